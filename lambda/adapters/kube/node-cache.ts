/**
 * The node cache policy: whole Nodes are listed once per refresh period, and in between only the
 * nodes the leases single out (silent, unreadable, new, gone) are read again.
 */
import { parseTimestamp } from '../../core/lease.js';
import type { LeaseInfo, NodeInfo } from '../../core/model.js';
import { NodeRows } from './node-rows.js';

/** More suspects than this in one read, and a full Node list is cheaper than the GETs. */
export const MAX_NODE_GETS = 100;
/**
 * The default suspect age: a lease older than this on the API server's clock may be going
 * silent, so its Node is read afresh. Two missed renewals of a kubelet (it renews every 10 s).
 */
export const SUSPECT_AGE_MS = 20_000;

/**
 * The suspect age for a grace period: min(20 s, grace / 2).
 *
 * A node must be judged on fresh Node facts (cordoned, tainted, deleted) by the check that finds
 * it silent, so the suspect age has to be below the grace period, with room to spare: the reader
 * measures a lease's age as API server clock − `renewTime`, which is written with the kubelet's
 * clock (a kubelet running 5 s fast looks 5 s fresher than it is) and compared with a Date header
 * that has whole seconds, while the core counts silence on its own clock from when it saw
 * `renewTime` change. Half the grace leaves that room for any grace period: from the first read
 * at which a lease is half a grace period old, every read fetches its Node afresh.
 *
 * From a 40 s grace up, 20 s is enough: a healthy lease is at most ~10 s old, so a longer age
 * would only read silent nodes later, and a shorter one would read healthy ones for nothing.
 * Under a 20 s grace, healthy nodes may be re-read too (more GETs, capped by MAX_NODE_GETS,
 * beyond which Nodes are listed whole): correct verdicts matter more than requests.
 */
export function suspectAgeFor(gracePeriodSeconds: number): number {
  return Math.min(SUSPECT_AGE_MS, (gracePeriodSeconds * 1000) / 2);
}

/**
 * The Node facts of one cluster, kept between reads (a warm Lambda container, a `watch`
 * process). Kubelets renew every 10 s; Nodes change when someone cordons, taints or deletes one,
 * or when a kubelet reports a condition. Between full lists the Table of Nodes shows each node's
 * Ready and cordon, so `not-ready` and cordons are noticed at the next read, and silent nodes are
 * always judged on fresh Node facts; only labels and taints of healthy nodes are as of the last
 * full list.
 */
export class NodeCache {
  private nodes: Map<string, NodeInfo> | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private tableRetryAt = Number.NEGATIVE_INFINITY;
  private readonly rows = new NodeRows();

  constructor(
    readonly refreshMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The cached nodes, when the last full list is recent enough. */
  current(): ReadonlyMap<string, NodeInfo> | undefined {
    return this.nodes && this.clock() - this.fetchedAt < this.refreshMs ? this.nodes : undefined;
  }

  /**
   * The row the cache keeps for a node (node-rows.ts). A whole list is projected straight to
   * rows, page by page (node-reads.ts), so that its 100,000 projections and their rows are never
   * all alive at once.
   */
  row(node: NodeInfo): NodeInfo {
    // The row already kept, when the node has not changed since it was (NodeRows.same).
    const kept = this.nodes?.get(node.name);
    return kept !== undefined && this.rows.same(kept, node) ? kept : this.rows.row(node);
  }

  /** A whole list of nodes, each a row of this cache already (`row`). */
  replaceRows(rows: readonly NodeInfo[]): void {
    // Set one by one: `new Map(rows.map(…))` built a [name, row] pair per node first (~5 MB of
    // garbage at 100,000 nodes, on a relist's peak).
    const nodes = new Map<string, NodeInfo>();
    for (const row of rows) nodes.set(row.name, row);
    this.nodes = nodes;
    this.fetchedAt = this.clock();
  }

  /**
   * Whether to read the Table of Nodes between full lists: yes, unless the server answered it
   * with something unusable less than one refresh period ago (then whole Nodes are listed).
   */
  tableUsable(): boolean {
    return this.clock() >= this.tableRetryAt;
  }

  /** The Table answer was unusable: list whole Nodes on every read for one refresh period. */
  refuseTable(): void {
    this.tableRetryAt = this.clock() + this.refreshMs;
  }

  /** A fresh read of one node; undefined: it is gone. */
  update(name: string, node: NodeInfo | undefined): void {
    if (!this.nodes) return;
    if (node) this.nodes.set(name, this.rows.row(node));
    else this.nodes.delete(name);
  }
}

interface SuspectOptions {
  readonly suspectAfterMs?: number | undefined;
  readonly named?: ReadonlySet<string> | ReadonlyMap<string, unknown> | undefined;
}

/**
 * Nodes worth reading afresh: their lease is at least `suspectAfterMs` old on the API server's
 * clock, or unreadable, or lease and Node disagree (a lease without a Node, a Node without one).
 * With `named`, the node names of a fresh Table: a lease whose node is neither cached nor in it
 * is an orphan, confirmed, not a suspect (orphaned leases can number hundreds).
 */
export function suspectNodes(
  leases: readonly LeaseInfo[],
  nodes: ReadonlyMap<string, NodeInfo>,
  serverTime: number,
  { suspectAfterMs = SUSPECT_AGE_MS, named }: SuspectOptions = {},
): string[] {
  const suspects = new Set<string>();
  // Leases whose node is cached, and whether the names came strictly ascending (as the API lists
  // them): then no name repeats, and `matched === nodes.size` says every cached node has a lease
  // without a Set of 100,000 names (`npm run bench`). Otherwise that Set, after the loop.
  let matched = 0;
  let ascending = true;
  let last = '';
  for (const lease of leases) {
    const name = lease.name;
    if (!(name > last)) ascending = false;
    last = name;
    const cached = nodes.has(name);
    if (cached) matched++;
    else if (named && !named.has(name)) continue;
    const renewed =
      typeof lease.renewTime === 'string' ? parseTimestamp(lease.renewTime) : undefined;
    if (renewed === undefined || serverTime - renewed >= suspectAfterMs || !cached) {
      suspects.add(name);
    }
  }
  if (!ascending || matched !== nodes.size) {
    const leased = new Set(leases.map((lease) => lease.name));
    for (const name of nodes.keys()) if (!leased.has(name)) suspects.add(name);
  }
  return [...suspects];
}
