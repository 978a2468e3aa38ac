import type { AlertState } from '../core/alert-state.js';
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
    super(`state of cluster ${cluster} changed since version ${expectedVersion}: another run saved first`);
  }
}

/** The port through which state is kept (DynamoDB in the cloud, a JSON file for the CLI, memory in tests). */
export interface StateStore {
  load(cluster: string, signal?: AbortSignal): Promise<StoredState>;
  /**
   * Saves `state` as version `expectedVersion + 1`, only if the stored version is still
   * `expectedVersion` (0: nothing stored yet). Returns the new version; throws StateConflictError.
   */
  save(cluster: string, state: ClusterState, expectedVersion: number, signal?: AbortSignal): Promise<number>;
}
