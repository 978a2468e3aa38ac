/** Keeping state: what a check carries to the next, and the store that keeps it. */
import type { AlertState } from '../core/alert-state.js';
import { EMPTY_ALERT_STATE } from '../core/alert-state.js';
import type { Observations } from '../core/model.js';
import type { MissedFiring, Notification } from '../core/notification.js';
import type { OpenOnCall, PendingOnCall } from './on-call.js';

/** Everything the watchdog carries from one check of a cluster to the next. */
export interface ClusterState {
  /** Last seen renewTime per lease, and when it changed on the watchdog's clock. */
  readonly observations: Observations;
  readonly alerts: AlertState;
  /**
   * Notifications a check saved (with its new state) but the notifier has not accepted yet: the
   * outbox. A check saves first, then publishes oldest first, removing each once accepted.
   */
  readonly outbox: readonly Notification[];
  /**
   * Set by a run while it publishes the outbox: other runs that find an unexpired lock back off,
   * so two overlapping runs never send the same notification twice.
   */
  readonly lock?: OutboxLock | null | undefined;
  /**
   * Per outbox notification id: when the notifier first refused it for good (watchdog clock, epoch
   * ms; absent: never). Older state documents counted refusals instead: their counts are dropped,
   * so such a notification is tried for the whole give-up time again.
   */
  readonly refusedSince?: Readonly<Record<string, number>> | undefined;
  /** When those refusals were last counted (watchdog clock): what bounds a clock's jump. */
  readonly refusedAt?: number | undefined;
  /**
   * FIRINGs given up unsent whose nodes the next published notification must name (while their
   * incidents are still open): what outbox-publishing.ts adds to it as `missedFiring`.
   */
  readonly givenUp?: MissedFiring | null | undefined;
  /**
   * The on-call outbox: events for PagerDuty or Opsgenie that the notifications the topic accepted
   * made, not yet taken by the tool (use-cases/on-call-delivery.ts). Absent: none.
   */
  readonly onCall?: readonly PendingOnCall[] | undefined;
  /** The incidents the paging tools were sent (key versions, groups), not resolved yet. */
  readonly onCallOpen?: readonly OpenOnCall[] | undefined;
}

export interface OutboxLock {
  /** Who holds it (e.g. the Lambda request id). */
  readonly owner: string;
  /** Watchdog-clock epoch ms after which the lock is stale (its holder died or timed out). */
  readonly until: number;
}

/** A fresh empty state (what stores hand out for a cluster never saved: nothing shared). */
export function emptyClusterState(): ClusterState {
  return { observations: new Map(), alerts: EMPTY_ALERT_STATE, outbox: [] };
}

export interface StoredState {
  /** 0 when nothing was stored yet for the cluster. */
  readonly version: number;
  readonly state: ClusterState;
  /**
   * Set when the stored state could not be read: the store kept the unreadable copy aside and
   * hands out an empty state, with the version to save over (a conditional save still protects
   * against an overlapping run). The check announces it once (a NOTICE).
   */
  readonly reset?: StateReset | undefined;
}

/** What a store did with a state it could not read. */
export interface StateReset {
  /** Why it could not be read: one line, no secrets. */
  readonly reason: string;
  /** Where the unreadable copy was kept (a DynamoDB key, a file path). */
  readonly copy: string;
}

/** Thrown by `save` when another run saved first: the loser backs off (reload, recompute). */
export class StateConflictError extends Error {
  override readonly name = 'StateConflictError';
  constructor(
    readonly cluster: string,
    readonly expectedVersion: number,
  ) {
    super(
      `state of cluster ${cluster} changed since version ${expectedVersion}: another run saved first`,
    );
  }
}

/**
 * Thrown by `load` (and `save`, when it must read first) when the stored state cannot be read:
 * a corrupt or foreign state file, shards missing from a DynamoDB generation, a bad checksum.
 * The message is one line that says what to do.
 */
export class StateCorruptError extends Error {
  override readonly name = 'StateCorruptError';
}

/**
 * Where state is kept (DynamoDB in the cloud, a JSON file for the CLI, memory in tests).
 *
 * The observations a load hands out, and those a save is given, may be kept by the store as they
 * are, not copied (at 100,000 leases a copy is ~3.5 MB of Map per load and per save): they are a
 * ReadonlyMap of readonly objects, and neither the store nor its caller changes them afterwards.
 * Everything else a load hands out is the caller's own.
 */
export interface StateStore {
  /**
   * The stored version and state. Its observations may be those of an earlier save (the DynamoDB
   * store's snapshot, docs/STATE.md): never newer than the version, and every lease that had
   * stopped changing is in them as it was saved, so a check that reads them times silence later,
   * never sooner. Everything else (alerts, outbox, lock) is exactly the version's.
   */
  load(cluster: string, signal?: AbortSignal): Promise<StoredState>;
  /**
   * Saves `state` as version `expectedVersion + 1`, only if the stored version is still
   * `expectedVersion` (0: nothing stored yet). Returns the new version; throws StateConflictError.
   */
  save(
    cluster: string,
    state: ClusterState,
    expectedVersion: number,
    signal?: AbortSignal,
  ): Promise<number>;
  /**
   * Like `load`, but a state it cannot read (what makes `load` throw StateCorruptError) is kept
   * aside and an empty state handed out instead, with `reset` saying why and where the copy is.
   * Other errors (the store cannot be reached) still throw. Stores that cannot hold unreadable
   * state need not offer it.
   */
  loadOrReset?(cluster: string, signal?: AbortSignal): Promise<StoredState>;
  /**
   * What a look that saved nothing (check-cycle.ts, mustSave) saw: its observations, over the
   * `version` it loaded. A store that remembers what it loaded hands these out at its next load of
   * that same version, as if the look had saved them, so that the next look times a renewal from
   * the look that first saw it rather than from itself. Observations of a look that did happen
   * are as safe to load as saved ones; another save (a newer version) replaces them. The store may
   * keep `observations` as they are: the caller no longer changes them. Stores that remember
   * nothing between loads need not offer it.
   */
  keepUnsaved?(cluster: string, version: number, observations: Observations): void;
}
