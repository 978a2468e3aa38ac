/**
 * One check of one cluster, end to end: load state, read the cluster, decide, claim the
 * notifications in the outbox, publish them, record what was accepted. Both composition roots
 * (the Lambda handler and `lease-watchdog watch`) run exactly this.
 *
 * A stored state that cannot be read is reset by the store (`loadOrReset`: the copy kept aside,
 * the version kept, so the claim below still races fairly) and announced by one NOTICE, saved in
 * the claim's outbox like every notification.
 *
 * Ordering is what makes alerts neither lost nor doubled (the writes: claim-and-record.ts):
 *  1. the new state and the notifications to send are saved first, conditionally on the version
 *     that was loaded, with a lock on the outbox; a run that loses that race, or finds a live lock,
 *     backs off without sending anything;
 *  2. the outbox is published oldest first; a notification leaves the outbox only once the
 *     notifier accepted it, so a failed publish is retried by the next check — unless the
 *     notifier has refused it for good for GIVE_UP_AFTER_MS (30 min): then it is given up
 *     (reported as `abandoned`); a refused notification never blocks the ones behind it;
 *  3. what was accepted is recorded before the run returns (the caller's deadline leaves
 *     RECORD_BUDGET_MS for it).
 *
 * The bound on duplicates: a call that was applied but whose answer was lost (a timeout after
 * accept) costs at most one duplicate per lost answer. A lost SNS answer keeps that notification
 * in the outbox, so the next check sends it once more (a FIFO topic drops that copy by its
 * deduplication id within 5 minutes). A lost answer to the claim sends nothing (the run fails; the
 * next run past the lock sends the outbox once; with SDK retries the store recognises its own
 * write and the run goes on). A lost answer to the record fails the run after the record was
 * applied: nothing is sent again. Only a record that was never applied (the request lost, the
 * run killed) sends the notifications of that run once more.
 */

import type { Evaluation, Recheck } from '../core/model.js';
import type { Notification } from '../core/notification.js';
import type {
  ClusterReadError,
  ClusterState,
  Notifier,
  SilenceStore,
  StateReset,
  StateStore,
  StoredState,
} from '../ports/index.js';
import { type CheckAt, type DecideDeps, decideAlerts, readCluster } from './check-decide.js';
import { claim, publishAndRecord } from './claim-and-record.js';
import { type OnCallDeps, withFresh } from './on-call-delivery.js';
import type { Delivery } from './outbox-publishing.js';

export interface CycleDeps extends DecideDeps {
  readonly store: StateStore;
  readonly notifier: Notifier;
  /** Identifies this run in the outbox lock (e.g. the Lambda request id). */
  readonly runId: string;
  /** How long this run may hold the outbox lock: at least as long as it can run. */
  readonly lockMs: number;
  /** The users' silences, read once per check (none when absent). */
  readonly silences?: SilenceStore | undefined;
  /** The paging tools that get on-call events (on-call-delivery.ts); none when absent. */
  readonly onCall?: OnCallDeps | undefined;
}

/**
 * The state the store could not read and reset, and the silences it could not honour and set
 * aside, when it did (each announced by a NOTICE).
 */
interface Reset {
  readonly reset?: StateReset | undefined;
  readonly silencesSetAside?: StateReset | undefined;
}

export type CycleOutcome =
  | ({
      readonly status: 'checked';
      readonly evaluation: Evaluation;
      /**
       * The looks this check wants, earliest first: its suspects' re-checks (the evaluation's)
       * and the end of a forming storm's wait (core/storm-forming.ts).
       */
      readonly rechecks: readonly Recheck[];
      /** false: a look that changed nothing that must survive, and saved nothing (mustSave). */
      readonly saved?: false | undefined;
    } & Delivery &
      Reset)
  | ({
      readonly status: 'unreadable';
      readonly error: ClusterReadError;
      /** The cluster is deleted (`deleted`): its WATCHDOG was not raised. */
      readonly deleted?: true | undefined;
    } & Delivery &
      Reset)
  /**
   * Another run holds this cluster: this one backed off and sent nothing. One that lost the claim
   * still hands back the looks its suspects want (the run that saved may not have found them).
   */
  | { readonly status: 'busy'; readonly reason: string; readonly rechecks?: readonly Recheck[] };

/**
 * One check of `cluster`: load the state (or reset it), read the cluster, decide the alerts, then
 * the steps above — claim, publish, record.
 */
export async function runCheckCycle(
  cluster: string,
  deps: CycleDeps,
  signal?: AbortSignal,
): Promise<CycleOutcome> {
  // A state the store cannot read is kept aside and replaced (a NOTICE says so), rather than
  // failing every check from now on.
  const stored = deps.store.loadOrReset
    ? await deps.store.loadOrReset(cluster, signal)
    : await deps.store.load(cluster, signal);
  const now = deps.clock();
  const held = stored.state.lock;
  // A lock is trusted for at most the lease a run takes (`lockMs`): one that ends further off
  // (a clock gone wrong, a hand-edited state) would otherwise hold every check back for ever.
  if (held && held.owner !== deps.runId && held.until > now && held.until - now <= deps.lockMs) {
    return { status: 'busy', reason: `another run (${held.owner}) is publishing for ${cluster}` };
  }

  // Silences it cannot honour are moved aside by their store and said once, never trusted.
  const silences = (await deps.silences?.listOrSetAside(cluster, signal)) ?? { silences: [] };
  const check = { cluster, deps, stored, now, signal };
  const read = await readCluster(check, silences.silences);
  const decided = await decideAlerts(check, read, silences.setAside);
  const seen = decided.judged;
  const { evaluation } = seen;
  const rechecks = [...(evaluation?.rechecks ?? []), ...(decided.wake ? [decided.wake] : [])];
  rechecks.sort((a, b) => a.at - b.at);
  const { claimed, publishing } = claimedState(check, decided);
  const { outbox } = claimed;
  if (deps.look && evaluation && !publishing && !mustSave(stored, claimed, evaluation)) {
    // Nothing this look saw must outlive it: the next look or check sees it again. A warm
    // container's next look still times a renewal from this look (StateStore.keepUnsaved).
    deps.store.keepUnsaved?.(cluster, stored.version, claimed.observations);
    return {
      status: 'checked',
      evaluation,
      rechecks,
      ...unpublished(outbox, signal),
      saved: false,
    };
  }
  // Step 1: the claim, conditional on the version loaded.
  const version = await claim(check, claimed);
  if (version === undefined) {
    const reason = `another run saved the state of ${cluster} first`;
    return { status: 'busy', reason, ...(evaluation ? { rechecks } : {}) };
  }
  // Steps 2 and 3: publish the outbox, record what was accepted.
  const delivery: Delivery = publishing
    ? await publishAndRecord(check, claimed, version)
    : unpublished(outbox, signal);
  const done = {
    ...delivery,
    ...(stored.reset ? { reset: stored.reset } : {}),
    ...(silences.setAside ? { silencesSetAside: silences.setAside } : {}),
  };
  return evaluation
    ? { status: 'checked', evaluation, rechecks, ...done }
    : { status: 'unreadable', error: seen.readError, deleted: decided.deleted, ...done };
}

/**
 * The state a check claims: what it saw and decided, the outbox with its fresh notifications, and
 * the lock when it has something to publish (`publishing`).
 */
function claimedState(
  { cluster, deps, stored, now, signal }: CheckAt & { readonly deps: CycleDeps },
  { judged, alerts, fresh }: Awaited<ReturnType<typeof decideAlerts>>,
): { claimed: ClusterState; publishing: boolean } {
  const outbox = fresh.length > 0 ? [...stored.state.outbox, ...fresh] : stored.state.outbox;
  // Past the deadline (the read was cut short) nothing is published: save without the lock.
  // On-call events still waiting are sent again by every check, with or without a notification.
  const lanes = withFresh(cluster, stored.state, fresh, deps.onCall);
  const waiting = deps.onCall !== undefined && (lanes.onCall?.length ?? 0) > 0;
  const publishing = (outbox.length > 0 || waiting) && !signal?.aborted;
  const claimed: ClusterState = {
    observations: judged.evaluation ? judged.evaluation.observations : stored.state.observations,
    alerts,
    outbox,
    lock: publishing ? { owner: deps.runId, until: now + deps.lockMs } : null,
    // What publishing carries from check to check, kept by a check that publishes nothing.
    refusedSince: stored.state.refusedSince,
    refusedAt: stored.state.refusedAt,
    givenUp: stored.state.givenUp ?? null,
    ...lanes,
  };
  return { claimed, publishing };
}

/** An outbox left unpublished (empty, or the deadline passed): all of it pending. */
function unpublished(outbox: readonly Notification[], signal: AbortSignal | undefined): Delivery {
  return {
    published: [],
    pending: outbox,
    abandoned: [],
    ...(outbox.length > 0 ? { publishError: signal?.reason } : {}),
  };
}

/**
 * Whether a look's new state holds something that must survive it: an alert transition (alerts,
 * flaps, storm, removals, degraded), a notification or a lock in the outbox, a reset state, a lease
 * that appeared or left, a suspect found or cleared (its `suspectSince`: the re-check that confirms
 * it counts from there), a silence judged expired (its `expiredSince`: it stays expired), a
 * renewTime first seen already silent past a renew interval (`lateSightings`: the look that finds
 * it suspect counts from this one, not from itself). What a look leaves out — a renewTime it saw
 * move while the kubelet renews, a clock offset it tightened — is seen again by the next look or
 * check, and a renewal timed from an older look pages later, never sooner (docs/STATE.md, "Why an
 * older snapshot is safe").
 */
export function mustSave(
  stored: StoredState,
  next: ClusterState,
  evaluation: Pick<Evaluation, 'lateSightings'> = {},
): boolean {
  const before = stored.state;
  if (stored.reset !== undefined || stored.version === 0) return true;
  if ((evaluation.lateSightings ?? 0) > 0) return true;
  if (before.outbox.length > 0 || next.outbox.length > 0 || (before.lock ?? null) !== null) {
    return true;
  }
  if (canonical(before.alerts) !== canonical(next.alerts)) return true;
  if (before.observations.size !== next.observations.size) return true;
  for (const [name, seen] of next.observations) {
    const was = before.observations.get(name);
    if (was === undefined || was.suspectSince !== seen.suspectSince) return true;
    if (was.expiredSince !== seen.expiredSince) return true;
  }
  return false;
}

/** JSON with keys sorted and undefined values left out: equal for equal plain documents. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
