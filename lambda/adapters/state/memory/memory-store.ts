/**
 * State kept in memory: for tests, and for the CLI when no state file is given. Each cluster's
 * state is held as the same JSON text the other stores keep, so callers can never mutate what is
 * stored (nor the state they loaded through it), and the three stores keep exactly the same things.
 */
import {
  type ClusterState,
  emptyClusterState,
  StateConflictError,
  type StateStore,
  type StoredState,
} from '../../../ports/index.js';
import { parseClusterState, serializeClusterState } from '../state-document.js';

export class MemoryStateStore implements StateStore {
  readonly #clusters = new Map<string, { readonly version: number; readonly json: string }>();

  async load(cluster: string, signal?: AbortSignal): Promise<StoredState> {
    signal?.throwIfAborted();
    const stored = this.#clusters.get(cluster);
    if (stored === undefined) return { version: 0, state: emptyClusterState() };
    return { version: stored.version, state: parseClusterState(stored.json) };
  }

  async save(
    cluster: string,
    state: ClusterState,
    expectedVersion: number,
    signal?: AbortSignal,
  ): Promise<number> {
    signal?.throwIfAborted();
    const json = serializeClusterState(state);
    // No await between the check and the write: saves are atomic within the process.
    const current = this.#clusters.get(cluster)?.version ?? 0;
    if (current !== expectedVersion) throw new StateConflictError(cluster, expectedVersion);
    const version = expectedVersion + 1;
    this.#clusters.set(cluster, { version, json });
    return version;
  }
}
