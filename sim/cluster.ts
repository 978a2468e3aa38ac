/**
 * The simulated cluster's in-memory model: Nodes, Leases and the kubelets that renew them.
 * No HTTP here (that is server.ts). This module is the entry point: SimCluster ties together the
 * state (store.ts), the kubelet schedules (kubelets.ts), the fault API (faults.ts), the views
 * (node-view.ts, leases.ts) and the writes clients make through the API.
 */
import { DEFAULT_ZONES, INSTANCE_TYPES, regionOf } from './catalogue.js';
import * as faults from './faults.js';
import { hashString, mix, unit } from './hashing.js';
import { makeKubelet } from './kubelets.js';
import { createLease, leaseView, updateLease } from './leases.js';
import { type NodeSummary, nodeJson, nodeSummary, nodeView } from './node-view.js';
import {
  type ConditionStatus,
  type KubeLease,
  type KubeNode,
  NO_TAINTS,
  NODE_LEASE_NAMESPACE,
  READY_TEXT,
  SIM_NAMESPACES,
  type SimNodeSpec,
  type SimTaint,
} from './objects.js';
import type { NodeRecord } from './records.js';
import { ClusterStore } from './store.js';

export {
  type ConditionStatus,
  type KubeLease,
  type KubeNode,
  NODE_LEASE_NAMESPACE,
  type NodeCondition,
  type ObjectMeta,
  SIM_KUBE_VERSION,
  SIM_NAMESPACES,
  SimApiError,
  type SimNodeSpec,
  type SimTaint,
} from './objects.js';
export type { SimClusterOptions } from './store.js';
export { formatMicroTime, formatTime, humanDuration } from './time-format.js';

export class SimCluster extends ClusterStore {
  private nodeSeq = 0;
  private ipSeq = 0;

  // ----- nodes ----------------------------------------------------------------------------------

  addNode(spec: SimNodeSpec): void {
    if (this.nodes.has(spec.name)) throw new Error(`node ${spec.name} already exists`);
    const nowUs = this.nowUs();
    const index = this.nodeSeq++;
    const key = mix(hashString(spec.name), this.seed);
    const zone = spec.zone ?? DEFAULT_ZONES[index % DEFAULT_ZONES.length]!;
    const createdUs = spec.createdAt !== undefined ? Math.floor(spec.createdAt * 1000) : nowUs;
    const duration = spec.leaseDurationSeconds ?? 40;
    const kubelet = makeKubelet(key, duration, spec.clockSkewMs ?? 0, createdUs);
    const ready = spec.ready ?? 'True';
    const node: NodeRecord = {
      name: spec.name,
      key,
      zone,
      createdUs,
      internalIP: this.ipFromName(spec.name) ?? this.nextIp(),
      instance: INSTANCE_TYPES[key % INSTANCE_TYPES.length]!,
      unschedulable: spec.unschedulable ?? false,
      taints: spec.taints ? spec.taints.map((t) => ({ ...t })) : NO_TAINTS,
      ready: READY_TEXT[ready],
      readySinceUs: createdUs,
      rv: this.nextRv(),
      rvAtUs: createdUs - 1,
      kubelet,
    };
    if (spec.labels) node.extraLabels = { ...spec.labels };
    if (spec.providerID !== undefined) node.providerID = spec.providerID;
    this.nodes.set(spec.name, node);
    this.sortedNodes = null;
    if (spec.lease ?? true) {
      this.putLeaseRecord({
        name: spec.name,
        namespace: NODE_LEASE_NAMESPACE,
        createdUs,
        owner: node,
        spec: { holderIdentity: spec.name, leaseDurationSeconds: duration },
        rv: node.rv,
        rvAtUs: createdUs - 1,
        kubelet,
      });
    }
  }

  /**
   * Adds `count` nodes with realistic EKS names (ip-10-0-1-23.eu-west-1.compute.internal), spread
   * round-robin over the zones, created at pseudo-random times over the last 30 days (so kubelet
   * phases are spread). With `prefix`, names are `<prefix><n>` instead. Returns the names.
   */
  addNodes(
    count: number,
    opts: { prefix?: string; zones?: string[]; leaseDurationSeconds?: number } = {},
  ): string[] {
    const zones = opts.zones && opts.zones.length > 0 ? opts.zones : DEFAULT_ZONES;
    const nowMs = this.now();
    const names: string[] = [];
    let seq = 0;
    for (let i = 0; i < count; i++) {
      const zone = zones[i % zones.length]!;
      let name: string;
      if (opts.prefix !== undefined) {
        do name = `${opts.prefix}${++seq}`;
        while (this.nodes.has(name));
      } else {
        const ip = this.nextIp();
        name = `ip-${ip.replaceAll('.', '-')}.${regionOf(zone)}.compute.internal`;
      }
      const age = Math.floor(unit(this.seed, this.nodeSeq + 7919) * 30 * 86_400_000) + 600_000;
      this.addNode({
        name,
        zone,
        createdAt: nowMs - age,
        ...(opts.leaseDurationSeconds !== undefined && {
          leaseDurationSeconds: opts.leaseDurationSeconds,
        }),
      });
      names.push(name);
    }
    return names;
  }

  private nextIp(): string {
    for (;;) {
      const n = this.ipSeq++ + 256 * 1 + 10; // start at 10.0.1.10
      const b = (n >> 8) & 255;
      const c = n & 255;
      const a = (n >> 16) & 255;
      if (c === 0 || c === 255) continue;
      return `10.${a}.${b}.${c}`;
    }
  }

  private ipFromName(name: string): string | undefined {
    const m = /^ip-(\d+)-(\d+)-(\d+)-(\d+)\./.exec(name);
    return m ? `${m[1]}.${m[2]}.${m[3]}.${m[4]}` : undefined;
  }

  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  hasNode(name: string): boolean {
    return this.nodes.has(name);
  }

  get nodeCount(): number {
    return this.nodes.size;
  }

  /** Node names in API list order (sorted, like etcd keys). Cached until the set changes. */
  sortedNodeNames(): readonly string[] {
    this.sortedNodes ??= [...this.nodes.keys()].sort();
    return this.sortedNodes;
  }

  nodeLabels(name: string): Readonly<Record<string, string>> | undefined {
    const n = this.nodes.get(name);
    return n ? this.labelsOf(n) : undefined;
  }

  nodeObject(name: string): KubeNode | undefined {
    const n = this.nodes.get(name);
    return n ? nodeView(this, n, this.nowUs()) : undefined;
  }

  /** The node as compact JSON (what the server sends in lists). */
  nodeJson(name: string): string | undefined {
    const n = this.nodes.get(name);
    return n ? nodeJson(this, n, this.nowUs()) : undefined;
  }

  /** Extra fields the server's Table output needs. */
  nodeSummary(name: string): NodeSummary | undefined {
    const n = this.nodes.get(name);
    return n ? nodeSummary(this, n, this.nowUs()) : undefined;
  }

  // ----- the fault API (see faults.ts) -----------------------------------------------------------

  /** The node dies: its kubelet stops renewing the lease (and posting status). */
  stopKubelet(name: string): void {
    faults.stopKubelet(this, name);
  }

  /** The node comes back: its kubelet renews now, then on schedule. */
  startKubelet(name: string): void {
    faults.startKubelet(this, name);
  }

  setClockSkew(name: string, ms: number): void {
    faults.setClockSkew(this, name, ms);
  }

  /** Sets the Ready condition as the kubelet reports it; the lease keeps renewing. */
  setReady(name: string, status: ConditionStatus, reason?: string): void {
    faults.setReady(this, name, status, reason);
  }

  /** The kubelet reports a graceful shutdown (Ready=False, a Shutdown event); the lease renews on. */
  beginShutdown(name: string): void {
    faults.beginShutdown(this, name);
  }

  cordon(name: string, on = true): void {
    faults.cordon(this, name, on);
  }

  addTaint(name: string, taint: SimTaint): void {
    faults.addTaint(this, name, taint);
  }

  removeTaint(name: string, key: string): void {
    faults.removeTaint(this, name, key);
  }

  /** Sets metadata.deletionTimestamp (and a finalizer, so the node stays). */
  markDeleting(name: string): void {
    faults.markDeleting(this, name);
  }

  /** Deletes the Node. By default its Lease stays behind (an orphan, no longer renewed). */
  deleteNode(name: string, opts: { keepLease?: boolean } = {}): void {
    faults.deleteNode(this, name, opts);
  }

  /** Deletes the node's Lease in kube-node-lease (the kubelet keeps running, without a lease). */
  deleteLease(name: string, namespace = NODE_LEASE_NAMESPACE): void {
    faults.deleteLease(this, name, namespace);
  }

  /**
   * Raw, sticky spec patch of a node lease (for malformed-lease tests), e.g.
   * `{ renewTime: 'garbage' }` or `{ leaseDurationSeconds: 0 }`. The fields stay as patched even
   * while the kubelet renews; a value of `undefined` removes the field from the spec.
   * clearLeaseOverrides undoes it.
   */
  setLeaseField(name: string, patch: Record<string, unknown>, namespace = NODE_LEASE_NAMESPACE) {
    faults.setLeaseField(this, name, patch, namespace);
  }

  clearLeaseOverrides(name: string, namespace = NODE_LEASE_NAMESPACE): void {
    faults.clearLeaseOverrides(this, name, namespace);
  }

  /** Stops every kubelet in the zone; returns the names of the nodes that went dark. */
  zoneDark(zone: string): string[] {
    return faults.zoneDark(this, zone);
  }

  /** Whether the node's kubelet is running. */
  kubeletAlive(name: string): boolean {
    return this.node(name).kubelet.alive;
  }

  // ----- leases ---------------------------------------------------------------------------------

  hasNamespace(namespace: string): boolean {
    return this.leases.has(namespace);
  }

  namespaces(): readonly string[] {
    return SIM_NAMESPACES;
  }

  /** Lease names of a namespace in API list order. Cached until the set changes. */
  sortedLeaseNames(namespace: string): readonly string[] {
    let sorted = this.sortedLeases.get(namespace);
    if (!sorted) {
      sorted = [...(this.leases.get(namespace)?.keys() ?? [])].sort();
      this.sortedLeases.set(namespace, sorted);
    }
    return sorted;
  }

  leaseLabels(namespace: string, name: string): Readonly<Record<string, string>> | undefined {
    const l = this.leases.get(namespace)?.get(name);
    return l ? (l.labels ?? {}) : undefined;
  }

  leaseObject(namespace: string, name: string): KubeLease | undefined {
    const l = this.leases.get(namespace)?.get(name);
    return l ? leaseView(this, l, this.nowUs()) : undefined;
  }

  /** Creates a Lease as a client would (POST). */
  createLease(namespace: string, body: unknown): KubeLease {
    return createLease(this, namespace, body);
  }

  /**
   * Replaces a Lease (PUT). 409 when metadata.resourceVersion is stale; creates it when absent
   * (leases allow create-on-update). The write wins until the kubelet's next renewal.
   */
  updateLease(
    namespace: string,
    name: string,
    body: unknown,
  ): { lease: KubeLease; created: boolean } {
    return updateLease(this, namespace, name, body);
  }
}
