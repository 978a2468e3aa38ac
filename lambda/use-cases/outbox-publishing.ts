/**
 * Step 2 of the check cycle (check-cycle.ts): publishing the outbox it claimed. A notification
 * leaves the outbox only once the notifier accepted it, or once the notifier has refused it for good
 * for GIVE_UP_AFTER_MS (then it is given up, reported as `abandoned`). A refused notification never
 * blocks the notifications behind it. What this returns is what the cycle records (step 3).
 */

import type { MissedFiring, Notification } from '../core/notification.js';
import type { ClusterState, Notifier } from '../ports/index.js';

/** What a check did with the outbox. */
export interface Delivery {
  /** Notifications the notifier accepted in this run. */
  readonly published: readonly Notification[];
  /** Notifications still in the outbox (retried by the next check). */
  readonly pending: readonly Notification[];
  /**
   * Notifications given up in this run: the notifier refused each for good (`retryable: false`)
   * for GIVE_UP_AFTER_MS. They left the outbox unsent.
   */
  readonly abandoned: readonly Abandoned[];
  /** Why a publish failed (the last failure), when one did. */
  readonly publishError?: unknown;
}

export interface Abandoned {
  readonly notification: Notification;
  /** The last refusal. */
  readonly error: unknown;
  /** How long it was refused, from the first refusal to the last, ms. */
  readonly refusedForMs: number;
}

/**
 * How long a notification that the notifier refuses for good (InvalidParameter, a disabled KMS
 * key, a key policy or topic policy that denies the function, a topic that is gone) is tried, from
 * its first refusal, before it is given up: 30 minutes. Time, not a count of checks: the default
 * deployment checks about three times a minute, and the faults behind a refusal are fixed by a
 * person in minutes (a key policy edited, a key re-enabled, a topic restored), once the watchdog's
 * own alarms told them. Holding on costs one Publish per check and blocks nothing (the others are
 * tried behind it); giving up sooner would lose a FIRING for good.
 */
export const GIVE_UP_AFTER_MS = 30 * 60_000;

/**
 * The most one check adds to a refusal's time, whatever the clock says passed since the check
 * before: the give-up runs on the checks' own steps, so a wall clock that jumps hours forward
 * cannot cut it short, nor one that jumps back stretch it by more than a step. Longer than any
 * check interval (the schedule's minute, the dispatcher's period).
 */
export const STEP_MAX_MS = 10 * 60_000;

/** What one check adds to a time of refusals: the clock's step since `since`, at most STEP_MAX_MS. */
export function checkStep(since: number | undefined, now: number): number {
  return Math.min(Math.max(0, now - (since ?? now)), STEP_MAX_MS);
}

/**
 * Whether a publish failure says the message will never be accepted as it is: the notifier said
 * so (`retryable: false`), or the failure is not a delivery failure at all (no `retryable`: a
 * rendering exception, a bug that this message triggers) and would happen again on every try.
 * Only a failure marked `retryable: true`, or the caller's deadline, is the notifier's trouble.
 */
function refusedForGood(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) return false;
  return (error as { retryable?: unknown } | null | undefined)?.retryable !== true;
}

/**
 * Publishes the outbox oldest first. A notification refused for good does not stop the others: its
 * first refusal is remembered (`refusedSince`, watchdog clock, moved along by what the clock
 * jumped beyond STEP_MAX_MS since the refusals were last counted, `refusedAt`), and it is given up
 * once refused GIVE_UP_AFTER_MS after that. A transient failure (throttling, 5xx, no answer) is
 * the notifier's trouble, not the message's: the rest waits with it, so notifications keep their
 * order (a RESOLVED never overtakes its FIRING). The deadline stops publishing.
 */
export async function publishOutbox(
  carried: Carried & Pick<ClusterState, 'outbox'>,
  notifier: Notifier,
  signal: AbortSignal | undefined,
  { clock, isOpen }: { clock: () => number; isOpen: (node: string) => boolean },
): Promise<Delivery & Required<Carried>> {
  const published: Notification[] = [];
  const pending: Notification[] = [];
  const abandoned: Abandoned[] = [];
  const refusedSince: Record<string, number> = {};
  const refusedAt = clock();
  const refused = stepped(carried, refusedAt);
  let givenUp = carried.givenUp ?? null;
  let publishError: unknown;
  let stopped = false;
  for (const notification of carried.outbox) {
    const since = refused[notification.id];
    if (stopped || signal?.aborted) {
      if (!stopped && signal?.aborted) publishError = signal.reason;
      stopped = true;
      pending.push(notification);
      if (since !== undefined) refusedSince[notification.id] = since;
      continue;
    }
    const missed = stillOpen(givenUp, isOpen);
    try {
      await notifier.publish(
        missed ? { ...notification, missedFiring: missed } : notification,
        signal,
      );
      published.push(notification);
      if (missed) givenUp = null;
    } catch (error) {
      publishError = error;
      const forGood = refusedForGood(error, signal);
      const now = clock();
      const first = forGood ? (since ?? now) : since;
      if (first !== undefined && now - first >= GIVE_UP_AFTER_MS) {
        abandoned.push({ notification, error, refusedForMs: now - first });
        givenUp = withGivenUp(givenUp, notification);
        continue;
      }
      pending.push(notification);
      if (first !== undefined) refusedSince[notification.id] = first;
      if (!forGood) stopped = true;
    }
  }
  return {
    published,
    pending,
    abandoned,
    refusedSince,
    refusedAt,
    // A record whose nodes all recovered meanwhile has nothing left to say.
    givenUp: stillOpen(givenUp, isOpen) ? givenUp : null,
    ...(publishError !== undefined ? { publishError } : {}),
  };
}

/**
 * The first refusals, each moved along by what the clock jumped beyond STEP_MAX_MS since they were
 * last counted (`refusedAt`): the time a notification has been refused grows by a step at most.
 */
function stepped(carried: Carried, now: number): Record<string, number> {
  const jump = now - (carried.refusedAt ?? now) - checkStep(carried.refusedAt, now);
  const firsts = Object.entries(carried.refusedSince ?? {});
  return Object.fromEntries(firsts.map(([id, first]) => [id, first + jump]));
}

/** What publishing carries from one check to the next, beside the outbox. */
type Carried = Pick<ClusterState, 'refusedSince' | 'refusedAt' | 'givenUp'>;

/** A given-up FIRING as a notification names it: its nodes still open; null when none is. */
function stillOpen(
  givenUp: MissedFiring | null,
  isOpen: (node: string) => boolean,
): MissedFiring | null {
  const nodes = givenUp?.nodes.filter(isOpen) ?? [];
  return givenUp && nodes.length > 0 ? { nodes, at: givenUp.at } : null;
}

/**
 * The record with the nodes a notification given up fired for (FIRING and STORM pages only). Read
 * warily: what is given up may be a notification too malformed to render.
 */
function withGivenUp(givenUp: MissedFiring | null, n: Notification): MissedFiring | null {
  const firing: unknown = n.firing;
  if ((n.kind !== 'FIRING' && n.kind !== 'STORM') || !Array.isArray(firing)) return givenUp;
  const names = firing
    .map((x: { name?: unknown } | null) => x?.name)
    .filter((name): name is string => typeof name === 'string');
  if (names.length === 0 || !Number.isFinite(n.at)) return givenUp;
  const nodes = new Set([...(givenUp?.nodes ?? []), ...names]);
  return { nodes: [...nodes].sort(), at: Math.min(givenUp?.at ?? n.at, n.at) };
}
