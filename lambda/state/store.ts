import { type AlertState, EMPTY_ALERT_STATE } from '../core/alert-state.js';
import type { Observations } from '../core/model.js';
import type { Notification } from '../core/notification.js';

/** Everything the watchdog carries from one check of a cluster to the next. */
export interface ClusterState {
  /** Last seen renewTime per lease, and when it changed on the watchdog's clock. */
  readonly observations: Observations;
  readonly alerts: AlertState;
  /**
   * Notifications claimed by a check but not yet accepted by the notifier (the outbox). A check
   * first publishes what is here (oldest first), removing each once accepted, then adds its own.
   */
  readonly outbox: readonly Notification[];
  /**
   * Set by a run while it publishes the outbox: other runs that find an unexpired lock back off,
   * so two overlapping runs never send the same notification twice.
   */
  readonly lock?: OutboxLock | null | undefined;
}

export interface OutboxLock {
  /** Who holds it (e.g. the Lambda request id). */
  readonly owner: string;
  /** Watchdog-clock epoch ms after which the lock is stale (its holder died or timed out). */
  readonly until: number;
}

/** The state of a cluster that was never saved (or whose stored state expired). */
export const EMPTY_CLUSTER_STATE: ClusterState = Object.freeze({
  observations: new Map(),
  alerts: EMPTY_ALERT_STATE,
  outbox: Object.freeze([]),
});

/** A fresh empty state (what stores hand out: nothing shared with other callers). */
export function emptyClusterState(): ClusterState {
  return { observations: new Map(), alerts: EMPTY_ALERT_STATE, outbox: [] };
}

export interface StoredState {
  /** 0 when nothing was stored yet for the cluster. */
  readonly version: number;
  readonly state: ClusterState;
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

/** The port through which state is kept (DynamoDB in the cloud, a JSON file for the CLI, memory in tests). */
export interface StateStore {
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
}
