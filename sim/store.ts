/**
 * The simulated cluster's state: the clock, resourceVersions, the Node and Lease records, and the
 * derivations every view and write shares (a node's version, a lease as the kubelet left it).
 *
 * Every change to a kubelet (stop, start, skew) first *materializes* its lease as it looks now,
 * so the past stays what it was. resourceVersions are derived the same way: a lease's version
 * advances with each (lazy) renewal and with each explicit write, so it changes whenever the
 * object does. Members are public for the sim's own modules (faults, views, writes), not for tests.
 */
import { standardLabels } from './catalogue.js';
import { unit } from './hashing.js';
import { lastHeartbeatUs, lastRenewalUs, NODE_MONITOR_GRACE_US } from './kubelets.js';
import { NODE_LEASE_NAMESPACE, SIM_NAMESPACES } from './objects.js';
import type { Kubelet, LeaseRecord, NodeEventRecord, NodeRecord } from './records.js';
import { formatMicroTime } from './time-format.js';

export interface SimClusterOptions {
  /** The sim clock, epoch ms. Default Date.now. */
  now?: () => number;
  /** Seed of every pseudo-random choice (phases, jitter, instance types). Default 1. */
  seed?: number;
  /** Renewal jitter (kubelet's 4 %) and sub-millisecond digits. Default true. */
  jitter?: boolean;
}

export class ClusterStore {
  readonly now: () => number;
  readonly seed: number;
  readonly jitter: boolean;
  readonly nodes = new Map<string, NodeRecord>();
  readonly leases = new Map<string, Map<string, LeaseRecord>>();
  sortedNodes: string[] | null = null;
  readonly sortedLeases = new Map<string, string[]>();
  /** Recorded node events by node name (creation events are derived, see events.ts). */
  readonly events = new Map<string, NodeEventRecord[]>();
  private rvCounter = 0;

  constructor(opts: SimClusterOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.seed = (opts.seed ?? 1) >>> 0;
    this.jitter = opts.jitter ?? true;
    for (const ns of SIM_NAMESPACES) this.leases.set(ns, new Map());
  }

  // ----- clock and versions -------------------------------------------------------------------

  nowUs(): number {
    return Math.floor(this.now() * 1000);
  }

  nextRv(atLeast = 0): number {
    this.rvCounter = Math.max(this.rvCounter + 1, this.nowUs(), atLeast);
    return this.rvCounter;
  }

  /** The resourceVersion of a list taken now. */
  listResourceVersion(): string {
    return String(Math.max(this.rvCounter, this.nowUs()));
  }

  subMicros(key: number, salt: number): number {
    return this.jitter ? Math.floor(unit(key, salt) * 1000) : 0;
  }

  lastRenewalUs(k: Kubelet, atUs: number): number | undefined {
    return lastRenewalUs(k, atUs, this.seed, this.jitter);
  }

  // ----- nodes ----------------------------------------------------------------------------------

  node(name: string): NodeRecord {
    const n = this.nodes.get(name);
    if (!n) throw new Error(`no node named ${name}`);
    return n;
  }

  labelsOf(n: NodeRecord): Record<string, string> {
    if (n.labels) return n.labels;
    const labels = standardLabels(n.name, n.zone, n.instance, n.extraLabels);
    // Memoize only for small clusters; big ones derive on demand to stay lean.
    if (this.nodes.size <= 5000) n.labels = labels;
    return labels;
  }

  /** Records a change to the node object now (bumps its resourceVersion). */
  touchNode(n: NodeRecord): void {
    const view = this.nodeVersion(n, this.nowUs());
    n.rv = this.nextRv(view + 1);
    n.rvAtUs = this.nowUs();
  }

  /** The node's resourceVersion at `atUs` (advances with heartbeats and the Unknown transition). */
  nodeVersion(n: NodeRecord, atUs: number): number {
    const change = this.nodeLastChangeUs(n, atUs);
    return change !== undefined && change > n.rvAtUs ? n.rv + (change - n.rvAtUs) : n.rv;
  }

  private nodeLastChangeUs(n: NodeRecord, atUs: number): number | undefined {
    const k = n.kubelet;
    if (k.alive) return lastHeartbeatUs(k, atUs);
    const unknownAt = this.unknownSinceUs(n);
    return atUs >= unknownAt ? unknownAt : undefined;
  }

  /** When the node lifecycle controller marks a stopped kubelet's node Unknown. */
  unknownSinceUs(n: NodeRecord): number {
    const last = this.lastRenewalUs(n.kubelet, n.kubelet.stoppedUs) ?? n.kubelet.stoppedUs;
    return last + NODE_MONITOR_GRACE_US;
  }

  /** Whether the node lifecycle controller sees the node as silent (conditions Unknown) now. */
  isSilent(n: NodeRecord, nowUs: number): boolean {
    return !n.kubelet.alive && nowUs >= this.unknownSinceUs(n);
  }

  // ----- leases ---------------------------------------------------------------------------------

  putLeaseRecord(l: LeaseRecord): void {
    const ns = this.leases.get(l.namespace);
    if (!ns) throw new Error(`namespace ${l.namespace} does not exist`);
    ns.set(l.name, l);
    this.sortedLeases.delete(l.namespace);
  }

  leaseRecord(namespace: string, name: string): LeaseRecord {
    const l = this.leases.get(namespace)?.get(name);
    if (!l) throw new Error(`no lease ${namespace}/${name}`);
    return l;
  }

  /** The node's Lease while it is renewed by the node's kubelet. */
  nodeLease(name: string): LeaseRecord | undefined {
    const l = this.leases.get(NODE_LEASE_NAMESPACE)?.get(name);
    const n = this.nodes.get(name);
    return l && n && l.kubelet === n.kubelet ? l : undefined;
  }

  /** The lease's spec and resourceVersion at `nowUs`, with the kubelet's renewals applied. */
  leaseState(l: LeaseRecord, nowUs: number): { spec: Record<string, unknown>; rv: number } {
    let spec = l.spec;
    let rv = l.rv;
    const k = l.kubelet;
    if (k) {
      const t = this.lastRenewalUs(k, nowUs);
      if (t !== undefined && t > l.rvAtUs) {
        const written = t + k.skewMs * 1000 + this.subMicros(k.key, t);
        if (l.memoUs !== written) {
          l.memoUs = written;
          l.memoTime = formatMicroTime(written);
        }
        spec = {
          ...spec,
          holderIdentity: l.owner?.name ?? l.name,
          leaseDurationSeconds: k.durationSeconds,
          renewTime: l.memoTime,
        };
        rv = l.rv + (t - l.rvAtUs);
      }
    }
    return { spec, rv };
  }

  /** Freezes the lease as it looks now (before a change to its kubelet). */
  materializeLease(l: LeaseRecord): void {
    const nowUs = this.nowUs();
    const { spec, rv } = this.leaseState(l, nowUs);
    l.spec = spec;
    l.rv = rv;
    l.rvAtUs = nowUs;
  }
}
