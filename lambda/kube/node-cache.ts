/**
 * The node cache policy: whole Nodes are listed once per refresh period, and in between only the
 * nodes the leases single out (silent, unreadable, new, gone) are read again.
 */
import { parseTimestamp } from '../core/lease.js';
import type { LeaseInfo, NodeInfo } from '../core/model.js';

/** More suspects than this in one read, and a full Node list is cheaper than the GETs. */
export const MAX_NODE_GETS = 100;
/** A lease older than this on the API server's clock may be going silent: read its Node afresh. */
export const SUSPECT_AGE_MS = 20_000;

/**
 * The Node facts of one cluster, kept between reads (a warm Lambda container, a `watch`
 * process). Kubelets renew every 10 s; Nodes change when someone cordons, taints or deletes one,
 * or when a kubelet reports a condition. With a cache, `not-ready` and newly cordoned healthy
 * nodes are noticed up to `refreshMs` late; silent nodes are always judged on fresh Node facts.
 */
export class NodeCache {
  private nodes: Map<string, NodeInfo> | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly refreshMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The cached nodes, when the last full list is recent enough. */
  current(): ReadonlyMap<string, NodeInfo> | undefined {
    return this.nodes && this.clock() - this.fetchedAt < this.refreshMs ? this.nodes : undefined;
  }

  replace(nodes: readonly NodeInfo[]): void {
    this.nodes = new Map(nodes.map((n) => [n.name, n]));
    this.fetchedAt = this.clock();
  }

  /** A fresh read of one node; undefined: it is gone. */
  update(name: string, node: NodeInfo | undefined): void {
    if (!this.nodes) return;
    if (node) this.nodes.set(name, node);
    else this.nodes.delete(name);
  }
}

/** Nodes worth reading afresh: their lease looks old or unreadable, or lease and Node disagree. */
export function suspectNodes(
  leases: readonly LeaseInfo[],
  nodes: ReadonlyMap<string, NodeInfo>,
  serverTime: number,
): string[] {
  const suspects = new Set<string>();
  const leased = new Set<string>();
  for (const lease of leases) {
    leased.add(lease.name);
    const renewed =
      typeof lease.renewTime === 'string' ? parseTimestamp(lease.renewTime) : undefined;
    if (renewed === undefined || serverTime - renewed >= SUSPECT_AGE_MS || !nodes.has(lease.name)) {
      suspects.add(lease.name);
    }
  }
  for (const name of nodes.keys()) if (!leased.has(name)) suspects.add(name);
  return [...suspects];
}
