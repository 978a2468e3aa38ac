/**
 * The simulated week's in-process parts (reliability-soak.ts), so that a week of checks takes
 * seconds: the sim's cluster model read through the ClusterReader port without HTTP, the memory
 * state store measuring each document it saves as the DynamoDB store would keep it, and a
 * notifier that records what it is handed, and when.
 */
import { projectLease, projectNode } from '../lambda/adapters/kube/decode/projection.js';
import { MemoryStateStore } from '../lambda/adapters/state/memory/memory-store.js';
import { serializeClusterState } from '../lambda/adapters/state/state-document.js';
import type { LeaseInfo, NodeInfo, Snapshot } from '../lambda/core/model.js';
import type { Notification } from '../lambda/core/notification.js';
import {
  ClusterReadError,
  type ClusterReader,
  type ClusterState,
  type Notifier,
  type StateStore,
  type StoredState,
} from '../lambda/ports/index.js';
import type { SimCluster } from '../sim/cluster.js';
import { NODE_LEASE_NAMESPACE } from '../sim/objects.js';

export const CLUSTER = 'soak';

/** The sim's cluster model read in process, as the HTTP reader would hand it over. */
export class SimModelReader implements ClusterReader {
  constructor(
    private readonly sim: SimCluster,
    private readonly clock: () => number,
    private readonly unreadable: () => boolean,
  ) {}

  async read(): Promise<Snapshot> {
    if (this.unreadable()) {
      throw new ClusterReadError(
        'timeout',
        'no answer from the API server within 15s (soak stall)',
      );
    }
    const leases: LeaseInfo[] = [];
    for (const name of this.sim.sortedLeaseNames(NODE_LEASE_NAMESPACE)) {
      const lease = projectLease(this.sim.leaseObject(NODE_LEASE_NAMESPACE, name));
      if (lease) leases.push(lease);
    }
    const nodes: NodeInfo[] = [];
    for (const name of this.sim.sortedNodeNames()) {
      const node = projectNode(this.sim.nodeObject(name));
      if (node) nodes.push(node);
    }
    return {
      cluster: CLUSTER,
      namespace: NODE_LEASE_NAMESPACE,
      leases,
      nodes,
      serverTime: this.clock(),
    };
  }
}

/** The memory store, measuring each saved document as the DynamoDB store would keep it. */
export class MeasuredStore implements StateStore {
  readonly #inner = new MemoryStateStore();
  /** The last document saved. */
  last: Buffer = Buffer.alloc(0);
  load(cluster: string, signal?: AbortSignal): Promise<StoredState> {
    return this.#inner.load(cluster, signal);
  }
  async save(
    cluster: string,
    state: ClusterState,
    expectedVersion: number,
    signal?: AbortSignal,
  ): Promise<number> {
    const version = await this.#inner.save(cluster, state, expectedVersion, signal);
    this.last = Buffer.from(serializeClusterState(state), 'utf8');
    return version;
  }
}

/** A notification handed to the notifier, and when (on the soak's clock). */
export interface Sent {
  readonly at: number;
  readonly notification: Notification;
}

/** The notifier port, recording what it is handed (every publish succeeds). */
export class RecordingNotifier implements Notifier {
  constructor(
    private readonly sent: Sent[],
    private readonly clock: () => number,
  ) {}
  async publish(notification: Notification): Promise<void> {
    this.sent.push({ at: this.clock(), notification });
  }
}
