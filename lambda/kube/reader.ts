import type { Snapshot } from '../core/model.js';

/** The port through which a check reads one cluster. */
export interface ClusterReader {
  /** Lists the node Leases and the Nodes. Rejects with a ClusterReadError; honours `signal`. */
  read(signal?: AbortSignal): Promise<Snapshot>;
}
