/**
 * The check cycle's writes around publishing (check-cycle.ts, steps 1 and 3): the claim that saves
 * the new state and the outbox before anything is sent, and the record of what the notifier
 * accepted after. Their order and budgets are what keeps an alert from being lost or doubled.
 */
import type { ClusterState, Notifier, StateStore } from '../ports/index.js';
import { StateConflictError } from '../ports/index.js';
import type { CheckAt } from './check-decide.js';
import { type OnCallDeps, sendOnCall } from './on-call-delivery.js';
import { type Delivery, publishOutbox } from './outbox-publishing.js';

/** What publishing and recording use of the cycle's parts. */
export interface RecordDeps {
  readonly store: StateStore;
  readonly notifier: Notifier;
  /** The watchdog's clock, epoch ms. */
  readonly clock: () => number;
  readonly onCall?: OnCallDeps | undefined;
}

/** The check whose writes these are: its cluster, the state it loaded, its deadline. */
type Check = Pick<CheckAt, 'cluster' | 'stored' | 'signal'> & { readonly deps: RecordDeps };

/**
 * Saves the new state and the outbox (the claim). Undefined when another run saved first. Once
 * the deadline has passed (a read cut short) the save gets the record budget instead.
 */
export async function claim(
  { cluster, stored, deps, signal }: Check,
  state: ClusterState,
): Promise<number | undefined> {
  const budget = signal?.aborted ? AbortSignal.timeout(RECORD_BUDGET_MS) : signal;
  try {
    return await deps.store.save(cluster, state, stored.version, budget);
  } catch (error) {
    if (error instanceof StateConflictError) return undefined;
    throw error;
  }
}

/**
 * How long recording the delivery may take after publishing. A caller with a hard deadline (the
 * Lambda) aborts `signal` at least this long before it, so the record is made inside its time.
 */
export const RECORD_BUDGET_MS = 2_500;

/**
 * Steps 2 and 3, once the claim is saved: publishes the outbox and sends the on-call outbox, then
 * records what the notifier and the paging tools accepted (and when each refused one was first refused) with the lock released.
 */
export async function publishAndRecord(
  { cluster, deps, signal }: Check,
  claimed: ClusterState,
  version: number,
): Promise<Delivery> {
  // A given-up FIRING is named while its node's incident is still open.
  const isOpen = (node: string) => Object.hasOwn(claimed.alerts.incidents, node);
  // The topic and the paging tools side by side: each its own lane, none the gate of another.
  const [delivery, lanes] = await Promise.all([
    publishOutbox(claimed, deps.notifier, signal, { clock: deps.clock, isOpen }),
    deps.onCall
      ? sendOnCall(cluster, claimed, deps.onCall, signal)
      : { onCall: undefined, onCallOpen: undefined },
  ]);
  // Recording what SNS accepted must not be cut short by the deadline that may have stopped the
  // publishing: a lost record would send those notifications again. It gets its own budget,
  // which the caller's deadline leaves free, and is awaited before the run returns.
  await deps.store.save(
    cluster,
    {
      ...claimed,
      outbox: delivery.pending,
      refusedSince: delivery.refusedSince,
      refusedAt: delivery.refusedAt,
      givenUp: delivery.givenUp,
      lock: null,
      ...lanes,
    },
    version,
    AbortSignal.timeout(RECORD_BUDGET_MS),
  );
  return delivery;
}
