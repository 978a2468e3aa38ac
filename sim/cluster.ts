/**
 * The simulated cluster's in-memory model: Nodes, Leases and the kubelets that renew them.
 * No HTTP here (that is server.ts).
 *
 * Kubelets have no timers. Each alive kubelet has a renewal schedule (a session start, an interval
 * of 0.25 × leaseDurationSeconds and a deterministic jitter from the seed); its Lease is computed
 * lazily as "the latest scheduled renewal ≤ now", written with the kubelet's skewed clock. Every
 * change to a kubelet (stop, start, skew) first *materializes* the lease as it looks now, so the
 * past stays what it was. resourceVersions are derived the same way: a lease's version advances
 * with each (lazy) renewal and with each explicit write, so it changes whenever the object does.
 */

export interface SimTaint {
  key: string;
  value?: string;
  effect: string;
}

export interface SimNodeSpec {
  name: string;
  zone?: string;
  labels?: Record<string, string>;
  /** Default 40; the kubelet renews every 0.25 × this, with jitter. */
  leaseDurationSeconds?: number;
  /** Kubelet clock = sim clock + skew; renewTime is written with it. */
  clockSkewMs?: number;
  /** Epoch ms; default: the sim clock's now. */
  createdAt?: number;
  unschedulable?: boolean;
  taints?: SimTaint[];
  /** Ready condition, default 'True'. */
  ready?: 'True' | 'False' | 'Unknown';
  /** Default `aws:///<zone>/i-<hex from name>`. */
  providerID?: string;
  /** Default true: create the node's Lease in kube-node-lease. */
  lease?: boolean;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  finalizers?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: {
    apiVersion: string;
    kind: string;
    name: string;
    uid: string;
  }[];
}

export interface KubeLease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: ObjectMeta;
  spec: Record<string, unknown>;
}

export interface NodeCondition {
  type: string;
  status: ConditionStatus;
  lastHeartbeatTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface KubeNode {
  apiVersion: 'v1';
  kind: 'Node';
  metadata: ObjectMeta;
  spec: { providerID: string; taints?: SimTaint[]; unschedulable?: boolean };
  status: {
    capacity: Record<string, string>;
    allocatable: Record<string, string>;
    conditions: NodeCondition[];
    addresses: { type: string; address: string }[];
    daemonEndpoints: { kubeletEndpoint: { Port: number } };
    nodeInfo: Record<string, string>;
    images: { names: string[]; sizeBytes: number }[];
  };
}

/** A write the API refused, with the HTTP status and Kubernetes reason it maps to. */
export class SimApiError extends Error {
  override readonly name = 'SimApiError';
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: { name?: string; group?: string; kind?: string },
  ) {
    super(message);
  }
}

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** Namespaces that exist in the sim; leases elsewhere are 404 (namespace not found). */
export const SIM_NAMESPACES: readonly string[] = [NODE_LEASE_NAMESPACE, 'default'];
export const SIM_KUBE_VERSION = 'v1.32.3';
const KUBELET_VERSION = 'v1.32.3-eks-473151a';
/** The node lifecycle controller's grace period: after it, a silent node's conditions go Unknown. */
const NODE_MONITOR_GRACE_US = 50_000_000;
/** kubelet's nodeStatusReportFrequency: lastHeartbeatTime moves every 5 minutes when nothing changes. */
const NODE_STATUS_REPORT_US = 300_000_000;
/** kubelet's lease controller uses wait.JitterUntil(renew, interval, 0.04, ...). */
const JITTER_FACTOR = 0.04;

interface Kubelet {
  alive: boolean;
  /** First renewal of the current session, sim µs. */
  startUs: number;
  intervalUs: number;
  durationSeconds: number;
  skewMs: number;
  /** When the kubelet stopped (sim µs); meaningful when !alive. */
  stoppedUs: number;
  /** Per-node hash key for jitter. */
  key: number;
}

interface LeaseRecord {
  name: string;
  namespace: string;
  /** Stored for client-created leases; derived from the owner for node leases. */
  uid?: string;
  createdUs: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** The Node this lease belongs to (kept after the node is deleted: an orphan's ownerReference). */
  owner?: NodeRecord;
  /** Spec as of rvAtUs. */
  spec: Record<string, unknown>;
  rv: number;
  rvAtUs: number;
  /** The kubelet whose renewals after rvAtUs overwrite holderIdentity/duration/renewTime. */
  kubelet?: Kubelet;
  /** Sticky raw spec fields from setLeaseField (undefined removes the field). */
  overrides?: Record<string, unknown>;
  /** Memo of the last formatted renewal (renewals change every ~10 s, lists come more often). */
  memoUs?: number;
  memoTime?: string;
  /** Memo of creationTimestamp. */
  created?: string;
}

/** Kept lean (100,000 of them): deterministic strings (uid, labels, providerID) are derived. */
interface NodeRecord {
  name: string;
  key: number;
  zone: string;
  /** Labels given in the spec, on top of the standard ones. */
  extraLabels?: Record<string, string>;
  /** Memo of the full label set. */
  labels?: Record<string, string>;
  createdUs: number;
  providerID?: string;
  internalIP: string;
  instance: InstanceType;
  unschedulable: boolean;
  taints: SimTaint[];
  ready: { status: ConditionStatus; reason: string; message: string };
  readySinceUs: number;
  deletionUs?: number;
  rv: number;
  rvAtUs: number;
  kubelet: Kubelet;
}

interface InstanceType {
  name: string;
  arch: 'amd64' | 'arm64';
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
  /** Pre-serialized `"capacity":{..},"allocatable":{..}` (node JSON is built from fragments). */
  json: string;
}

const INSTANCE_TYPES: readonly InstanceType[] = [
  instanceType('m5.xlarge', 'amd64', 4, 16_203_060, 58),
  instanceType('m5.2xlarge', 'amd64', 8, 32_386_104, 58),
  instanceType('c5.2xlarge', 'amd64', 8, 15_923_072, 58),
  instanceType('r5.large', 'amd64', 2, 15_950_660, 29),
  instanceType('m6g.xlarge', 'arm64', 4, 15_994_560, 58),
];

function instanceType(
  name: string,
  arch: 'amd64' | 'arm64',
  cpu: number,
  memKi: number,
  pods: number,
): InstanceType {
  const it = {
    name,
    arch,
    capacity: {
      cpu: String(cpu),
      'ephemeral-storage': '83873772Ki',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: `${memKi}Ki`,
      pods: String(pods),
    },
    allocatable: {
      cpu: `${cpu * 1000 - 80 - cpu * 10}m`,
      'ephemeral-storage': '76224326324',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: `${memKi - 1_042_000}Ki`,
      pods: String(pods),
    },
  };
  return {
    ...it,
    json: `"capacity":${JSON.stringify(it.capacity)},"allocatable":${JSON.stringify(it.allocatable)}`,
  };
}

const IMAGES: readonly { names: string[]; sizeBytes: number }[] = [
  ['602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon-k8s-cni', 'v1.19.2-eksbuild.1', 52_112_344],
  [
    '602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon-k8s-cni-init',
    'v1.19.2-eksbuild.1',
    59_617_190,
  ],
  [
    '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/kube-proxy',
    'v1.32.0-minimal-eksbuild.2',
    36_734_201,
  ],
  ['602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/coredns', 'v1.11.4-eksbuild.2', 18_441_286],
  [
    '602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon/aws-network-policy-agent',
    'v1.1.6-eksbuild.1',
    35_016_455,
  ],
  ['602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/aws-ebs-csi-driver', 'v1.38.1', 66_002_901],
  [
    '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/csi-node-driver-registrar',
    'v2.12.0-eks-1-32-1',
    8_221_418,
  ],
  [
    '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/livenessprobe',
    'v2.14.0-eks-1-32-1',
    7_813_505,
  ],
  ['602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause', '3.5', 298_689],
  ['quay.io/prometheus/node-exporter', 'v1.8.2', 11_866_380],
  ['public.ecr.aws/karpenter/controller', '1.1.1', 49_205_813],
  ['registry.k8s.io/metrics-server/metrics-server', 'v0.7.2', 19_494_617],
  ['docker.io/fluent/fluent-bit', '3.2.2', 36_113_952],
  [
    'public.ecr.aws/eks-distro/kubernetes-csi/external-provisioner',
    'v5.1.0-eks-1-32-1',
    30_522_814,
  ],
  ['docker.io/library/nginx', '1.27.3', 72_955_450],
].map(([repo, tag, size]) => ({
  names: [`${repo}@sha256:${fakeDigest(`${repo}:${tag}`)}`, `${repo}:${tag}`],
  sizeBytes: size as number,
}));

const IMAGES_JSON = JSON.stringify(IMAGES);

// ---------------------------------------------------------------------------------------------
// Small deterministic helpers.

/** 32-bit FNV-1a of a string. */
function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A well-mixed 32-bit hash of two integers (murmur3 finalizer). */
function mix(a: number, b: number): number {
  let h = (Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Deterministic uniform value in [0, 1). */
function unit(a: number, b: number): number {
  return mix(a, b) / 4_294_967_296;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0').slice(-width);
}

function fakeDigest(s: string): string {
  let out = '';
  for (let i = 0; out.length < 64; i++) out += hex(mix(hashString(s), i), 8);
  return out;
}

function uidFrom(a: number, b: number): string {
  const p = (i: number) => hex(mix(a, b * 8 + i), 8);
  const x = p(0) + p(1) + p(2) + p(3);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-4${x.slice(13, 16)}-a${x.slice(17, 20)}-${x.slice(20, 32)}`;
}

/** RFC 3339 UTC with six fractional digits, as Kubernetes writes a MicroTime. */
export function formatMicroTime(us: number): string {
  const whole = Math.floor(us);
  const ms = Math.floor(whole / 1000);
  const micros = whole - ms * 1000;
  const iso = new Date(ms).toISOString(); // 2026-11-29T17:52:14.065Z
  return `${iso.slice(0, 23)}${String(micros).padStart(3, '0')}Z`;
}

/** RFC 3339 UTC with whole seconds, as Kubernetes writes a metav1.Time. */
export function formatTime(us: number): string {
  return `${new Date(Math.floor(us / 1000)).toISOString().slice(0, 19)}Z`;
}

function regionOf(zone: string): string {
  const m = /^([a-z]+-[a-z]+-\d+)[a-z]$/.exec(zone);
  return m?.[1] ?? 'sim-region-1';
}

const DEFAULT_ZONES = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];

// ---------------------------------------------------------------------------------------------

/** The latest tick of `start + n·period + jitter(n)` at or before `upTo`, or undefined. */
function lastTick(
  startUs: number,
  periodUs: number,
  upToUs: number,
  jitter: (n: number) => number,
): number | undefined {
  if (upToUs < startUs) return undefined;
  let n = Math.floor((upToUs - startUs) / periodUs);
  let t = startUs + n * periodUs + (n === 0 ? 0 : jitter(n));
  if (t > upToUs) {
    n--;
    t = startUs + n * periodUs + (n === 0 ? 0 : jitter(n));
  }
  return t;
}

export interface SimClusterOptions {
  /** The sim clock, epoch ms. Default Date.now. */
  now?: () => number;
  /** Seed of every pseudo-random choice (phases, jitter, instance types). Default 1. */
  seed?: number;
  /** Renewal jitter (kubelet's 4 %) and sub-millisecond digits. Default true. */
  jitter?: boolean;
}

export class SimCluster {
  readonly now: () => number;
  private readonly seed: number;
  private readonly jitter: boolean;
  private readonly nodes = new Map<string, NodeRecord>();
  private readonly leases = new Map<string, Map<string, LeaseRecord>>();
  private sortedNodes: string[] | null = null;
  private readonly sortedLeases = new Map<string, string[]>();
  private rvCounter = 0;
  private nodeSeq = 0;
  private ipSeq = 0;

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

  private nextRv(atLeast = 0): number {
    this.rvCounter = Math.max(this.rvCounter + 1, this.nowUs(), atLeast);
    return this.rvCounter;
  }

  /** The resourceVersion of a list taken now. */
  listResourceVersion(): string {
    return String(Math.max(this.rvCounter, this.nowUs()));
  }

  private subMicros(key: number, salt: number): number {
    return this.jitter ? Math.floor(unit(key, salt) * 1000) : 0;
  }

  // ----- kubelet schedule ---------------------------------------------------------------------

  private makeKubelet(key: number, durationSeconds: number, skewMs: number, startUs: number) {
    const kubelet: Kubelet = {
      alive: true,
      startUs,
      intervalUs: Math.max(1, Math.round(durationSeconds * 250_000)),
      durationSeconds,
      skewMs,
      stoppedUs: 0,
      key,
    };
    return kubelet;
  }

  /** Sim time (µs) of the kubelet's latest renewal at or before `atUs`. */
  private lastRenewalUs(k: Kubelet, atUs: number): number | undefined {
    const upTo = k.alive ? atUs : Math.min(atUs, k.stoppedUs);
    const span = Math.floor(k.intervalUs * JITTER_FACTOR);
    const jitter = this.jitter
      ? (n: number) => Math.floor(unit(k.key ^ this.seed, n) * span)
      : () => 0;
    return lastTick(k.startUs, k.intervalUs, upTo, jitter);
  }

  // ----- nodes ----------------------------------------------------------------------------------

  addNode(spec: SimNodeSpec): void {
    if (this.nodes.has(spec.name)) throw new Error(`node ${spec.name} already exists`);
    const nowUs = this.nowUs();
    const index = this.nodeSeq++;
    const key = mix(hashString(spec.name), this.seed);
    const zone = spec.zone ?? DEFAULT_ZONES[index % DEFAULT_ZONES.length]!;
    const createdUs = spec.createdAt !== undefined ? Math.floor(spec.createdAt * 1000) : nowUs;
    const duration = spec.leaseDurationSeconds ?? 40;
    const kubelet = this.makeKubelet(key, duration, spec.clockSkewMs ?? 0, createdUs);
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

  private labelsOf(n: NodeRecord): Record<string, string> {
    if (n.labels) return n.labels;
    const region = regionOf(n.zone);
    const arch = n.instance.arch;
    const labels: Record<string, string> = {
      'beta.kubernetes.io/arch': arch,
      'beta.kubernetes.io/instance-type': n.instance.name,
      'beta.kubernetes.io/os': 'linux',
      'eks.amazonaws.com/capacityType': 'ON_DEMAND',
      'eks.amazonaws.com/nodegroup': 'general',
      'failure-domain.beta.kubernetes.io/region': region,
      'failure-domain.beta.kubernetes.io/zone': n.zone,
      'k8s.io/cloud-provider-aws': '5f3a0b8c7e2d41f69a1b2c3d4e5f6a7b',
      'kubernetes.io/arch': arch,
      'kubernetes.io/hostname': n.name,
      'kubernetes.io/os': 'linux',
      'node.kubernetes.io/instance-type': n.instance.name,
      'topology.k8s.aws/zone-id': `euw1-az${(n.zone.charCodeAt(n.zone.length - 1) % 3) + 1}`,
      'topology.kubernetes.io/region': region,
      'topology.kubernetes.io/zone': n.zone,
      ...n.extraLabels,
    };
    // Memoize only for small clusters; big ones derive on demand to stay lean.
    if (this.nodes.size <= 5000) n.labels = labels;
    return labels;
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

  private node(name: string): NodeRecord {
    const n = this.nodes.get(name);
    if (!n) throw new Error(`no node named ${name}`);
    return n;
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

  /** Records a change to the node object now (bumps its resourceVersion). */
  private touchNode(n: NodeRecord): void {
    const view = this.nodeVersion(n, this.nowUs());
    n.rv = this.nextRv(view + 1);
    n.rvAtUs = this.nowUs();
  }

  private materializeLease(l: LeaseRecord): void {
    const nowUs = this.nowUs();
    const { spec, rv } = this.leaseState(l, nowUs);
    l.spec = spec;
    l.rv = rv;
    l.rvAtUs = nowUs;
  }

  private nodeLease(name: string): LeaseRecord | undefined {
    const l = this.leases.get(NODE_LEASE_NAMESPACE)?.get(name);
    const n = this.nodes.get(name);
    return l && n && l.kubelet === n.kubelet ? l : undefined;
  }

  /** The node dies: its kubelet stops renewing the lease (and posting status). */
  stopKubelet(name: string): void {
    const n = this.node(name);
    if (!n.kubelet.alive) return;
    const lease = this.nodeLease(name);
    if (lease) this.materializeLease(lease);
    const nodeRv = this.nodeVersion(n, this.nowUs());
    n.kubelet.alive = false;
    n.kubelet.stoppedUs = this.nowUs();
    n.rv = nodeRv;
    n.rvAtUs = this.nowUs();
  }

  /** The node comes back: its kubelet renews now, then on schedule. */
  startKubelet(name: string): void {
    const n = this.node(name);
    const nowUs = this.nowUs();
    const lease = this.nodeLease(name);
    if (lease) this.materializeLease(lease);
    const k = n.kubelet;
    const wasDeadUnknown = !k.alive;
    k.alive = true;
    k.startUs = nowUs;
    if (lease) {
      // The immediate renewal is an explicit write; later ones are lazy (after rvAtUs = now).
      lease.spec = {
        ...lease.spec,
        holderIdentity: name,
        leaseDurationSeconds: k.durationSeconds,
        renewTime: formatMicroTime(nowUs + k.skewMs * 1000 + this.subMicros(k.key, nowUs)),
      };
      lease.rv = this.nextRv(lease.rv + 1);
      lease.rvAtUs = nowUs;
    }
    if (wasDeadUnknown) {
      n.readySinceUs = nowUs;
      this.touchNode(n);
    }
  }

  setClockSkew(name: string, ms: number): void {
    const n = this.node(name);
    const lease = this.nodeLease(name);
    if (lease) this.materializeLease(lease);
    n.kubelet.skewMs = ms;
  }

  /** Sets the Ready condition as the kubelet reports it; the lease keeps renewing. */
  setReady(name: string, status: ConditionStatus, reason?: string): void {
    const n = this.node(name);
    const text = READY_TEXT[status];
    n.ready = reason ? { ...text, reason } : text;
    n.readySinceUs = this.nowUs();
    this.touchNode(n);
  }

  cordon(name: string, on = true): void {
    const n = this.node(name);
    n.unschedulable = on;
    const has = n.taints.some((t) => t.key === 'node.kubernetes.io/unschedulable');
    if (on && !has) {
      n.taints = [...n.taints, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }];
    }
    if (!on) n.taints = n.taints.filter((t) => t.key !== 'node.kubernetes.io/unschedulable');
    this.touchNode(n);
  }

  addTaint(name: string, taint: SimTaint): void {
    const n = this.node(name);
    n.taints = [
      ...n.taints.filter((t) => !(t.key === taint.key && t.effect === taint.effect)),
      { ...taint },
    ];
    this.touchNode(n);
  }

  removeTaint(name: string, key: string): void {
    const n = this.node(name);
    n.taints = n.taints.filter((t) => t.key !== key);
    this.touchNode(n);
  }

  /** Sets metadata.deletionTimestamp (and a finalizer, so the node stays). */
  markDeleting(name: string): void {
    const n = this.node(name);
    n.deletionUs = this.nowUs();
    this.touchNode(n);
  }

  /** Deletes the Node. By default its Lease stays behind (an orphan, no longer renewed). */
  deleteNode(name: string, opts: { keepLease?: boolean } = {}): void {
    const n = this.node(name);
    const lease = this.nodeLease(name);
    if (lease) {
      if (opts.keepLease ?? true) {
        this.materializeLease(lease);
        lease.kubelet = undefined;
      } else {
        this.deleteLease(name);
      }
    }
    n.kubelet.alive = false;
    n.kubelet.stoppedUs = this.nowUs();
    this.nodes.delete(name);
    this.sortedNodes = null;
  }

  /** Deletes the node's Lease in kube-node-lease (the kubelet keeps running, without a lease). */
  deleteLease(name: string, namespace = NODE_LEASE_NAMESPACE): void {
    const ns = this.leases.get(namespace);
    if (!ns?.delete(name)) throw new Error(`no lease ${namespace}/${name}`);
    this.sortedLeases.delete(namespace);
    this.nextRv();
  }

  /**
   * Raw, sticky spec patch of a node lease (for malformed-lease tests), e.g.
   * `{ renewTime: 'garbage' }` or `{ leaseDurationSeconds: 0 }`. The fields stay as patched even
   * while the kubelet renews; a value of `undefined` removes the field from the spec.
   * clearLeaseOverrides undoes it.
   */
  setLeaseField(name: string, patch: Record<string, unknown>, namespace = NODE_LEASE_NAMESPACE) {
    const l = this.leaseRecord(namespace, name);
    this.materializeLease(l);
    l.overrides = { ...l.overrides, ...patch };
    l.rv = this.nextRv(l.rv + 1);
  }

  clearLeaseOverrides(name: string, namespace = NODE_LEASE_NAMESPACE): void {
    const l = this.leaseRecord(namespace, name);
    this.materializeLease(l);
    l.overrides = undefined;
    l.rv = this.nextRv(l.rv + 1);
  }

  /** Stops every kubelet in the zone; returns the names of the nodes that went dark. */
  zoneDark(zone: string): string[] {
    const names: string[] = [];
    for (const n of this.nodes.values()) {
      if (n.zone === zone) {
        this.stopKubelet(n.name);
        names.push(n.name);
      }
    }
    return names;
  }

  /** Whether the node's kubelet is running. */
  kubeletAlive(name: string): boolean {
    return this.node(name).kubelet.alive;
  }

  // ----- views (what the API serves) -------------------------------------------------------------

  /** The node's resourceVersion at `atUs` (advances with heartbeats and the Unknown transition). */
  private nodeVersion(n: NodeRecord, atUs: number): number {
    const change = this.nodeLastChangeUs(n, atUs);
    return change !== undefined && change > n.rvAtUs ? n.rv + (change - n.rvAtUs) : n.rv;
  }

  private nodeLastChangeUs(n: NodeRecord, atUs: number): number | undefined {
    const k = n.kubelet;
    if (k.alive) return lastTick(k.startUs, NODE_STATUS_REPORT_US, atUs, () => 0);
    const unknownAt = this.unknownSinceUs(n);
    return atUs >= unknownAt ? unknownAt : undefined;
  }

  /** When the node lifecycle controller marks a stopped kubelet's node Unknown. */
  private unknownSinceUs(n: NodeRecord): number {
    const last = this.lastRenewalUs(n.kubelet, n.kubelet.stoppedUs) ?? n.kubelet.stoppedUs;
    return last + NODE_MONITOR_GRACE_US;
  }

  nodeObject(name: string): KubeNode | undefined {
    const n = this.nodes.get(name);
    return n ? this.nodeView(n, this.nowUs()) : undefined;
  }

  private nodeView(n: NodeRecord, nowUs: number): KubeNode {
    const k = n.kubelet;
    const silent = !k.alive && nowUs >= this.unknownSinceUs(n);
    const heartbeatUs = k.alive
      ? (lastTick(k.startUs, NODE_STATUS_REPORT_US, nowUs, () => 0) ?? n.createdUs)
      : (this.lastRenewalUs(k, k.stoppedUs) ?? n.createdUs);
    const hb = formatTime(heartbeatUs + k.skewMs * 1000);
    const created = formatTime(n.createdUs);
    const condition = (
      type: string,
      status: ConditionStatus,
      reason: string,
      message: string,
      sinceUs: number,
    ): NodeCondition =>
      silent
        ? {
            type,
            status: 'Unknown',
            lastHeartbeatTime: hb,
            lastTransitionTime: formatTime(this.unknownSinceUs(n)),
            reason: 'NodeStatusUnknown',
            message: 'Kubelet stopped posting node status.',
          }
        : {
            type,
            status,
            lastHeartbeatTime: hb,
            lastTransitionTime: formatTime(sinceUs),
            reason,
            message,
          };
    const taints = [...n.taints];
    if (silent) {
      taints.push(
        { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
      );
    } else if (n.ready.status !== 'True') {
      taints.push({ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' });
    }
    const metadata: ObjectMeta = {
      name: n.name,
      uid: uidFrom(n.key, 1),
      resourceVersion: String(this.nodeVersion(n, nowUs)),
      creationTimestamp: created,
      labels: this.labelsOf(n),
      annotations: {
        'alpha.kubernetes.io/provided-node-ip': n.internalIP,
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    };
    if (n.deletionUs !== undefined) {
      metadata.deletionTimestamp = formatTime(n.deletionUs);
      metadata.deletionGracePeriodSeconds = 0;
      metadata.finalizers = ['karpenter.sh/termination'];
    }
    const spec: KubeNode['spec'] = {
      providerID: n.providerID ?? `aws:///${n.zone}/i-${hex(n.key, 8)}${hex(mix(n.key, 2), 9)}`,
    };
    if (taints.length > 0) spec.taints = taints;
    if (n.unschedulable) spec.unschedulable = true;
    const since = n.createdUs;
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata,
      spec,
      status: {
        capacity: n.instance.capacity,
        allocatable: n.instance.allocatable,
        conditions: [
          condition(
            'MemoryPressure',
            'False',
            'KubeletHasSufficientMemory',
            'kubelet has sufficient memory available',
            since,
          ),
          condition(
            'DiskPressure',
            'False',
            'KubeletHasNoDiskPressure',
            'kubelet has no disk pressure',
            since,
          ),
          condition(
            'PIDPressure',
            'False',
            'KubeletHasSufficientPID',
            'kubelet has sufficient PID available',
            since,
          ),
          condition('Ready', n.ready.status, n.ready.reason, n.ready.message, n.readySinceUs),
        ],
        addresses: [
          { type: 'InternalIP', address: n.internalIP },
          { type: 'InternalDNS', address: n.name },
          { type: 'Hostname', address: n.name },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          machineID: `ec2${hex(mix(n.key, 3), 8)}${hex(mix(n.key, 4), 8)}${hex(mix(n.key, 5), 8)}${hex(mix(n.key, 6), 5)}`,
          systemUUID: `ec2${hex(mix(n.key, 3), 5)}-${hex(mix(n.key, 4), 4)}-${hex(mix(n.key, 5), 4)}-${hex(mix(n.key, 6), 4)}-${hex(mix(n.key, 7), 12)}`,
          bootID: uidFrom(n.key, 2),
          kernelVersion:
            n.instance.arch === 'arm64'
              ? '6.1.119-129.201.amzn2023.aarch64'
              : '6.1.119-129.201.amzn2023.x86_64',
          osImage: 'Amazon Linux 2023.6.20241212',
          containerRuntimeVersion: 'containerd://1.7.23',
          kubeletVersion: KUBELET_VERSION,
          kubeProxyVersion: KUBELET_VERSION,
          operatingSystem: 'linux',
          architecture: n.instance.arch,
        },
        images: IMAGES as { names: string[]; sizeBytes: number }[],
      },
    };
  }

  /**
   * The node as compact JSON, built from pre-serialized static fragments (instance capacity,
   * images): what the server sends in lists, at a fraction of JSON.stringify's cost.
   */
  nodeJson(name: string): string | undefined {
    const n = this.nodes.get(name);
    if (!n) return undefined;
    const node = this.nodeView(n, this.nowUs());
    const { conditions, addresses, daemonEndpoints, nodeInfo } = node.status;
    const rest = JSON.stringify({ conditions, addresses, daemonEndpoints, nodeInfo });
    return `{"apiVersion":"v1","kind":"Node","metadata":${JSON.stringify(node.metadata)},"spec":${JSON.stringify(node.spec)},"status":{${n.instance.json},${rest.slice(1, -1)},"images":${IMAGES_JSON}}}`;
  }

  /** Extra fields the server's Table output needs. */
  nodeSummary(name: string): { ready: boolean; unschedulable: boolean; roles: string } | undefined {
    const n = this.nodes.get(name);
    if (!n) return undefined;
    const silent = !n.kubelet.alive && this.nowUs() >= this.unknownSinceUs(n);
    const roles = Object.keys(this.labelsOf(n))
      .filter((l) => l.startsWith('node-role.kubernetes.io/'))
      .map((l) => l.slice('node-role.kubernetes.io/'.length))
      .join(',');
    return {
      ready: !silent && n.ready.status === 'True',
      unschedulable: n.unschedulable,
      roles: roles || '<none>',
    };
  }

  // ----- leases ---------------------------------------------------------------------------------

  private putLeaseRecord(l: LeaseRecord): void {
    const ns = this.leases.get(l.namespace);
    if (!ns) throw new Error(`namespace ${l.namespace} does not exist`);
    ns.set(l.name, l);
    this.sortedLeases.delete(l.namespace);
  }

  private leaseRecord(namespace: string, name: string): LeaseRecord {
    const l = this.leases.get(namespace)?.get(name);
    if (!l) throw new Error(`no lease ${namespace}/${name}`);
    return l;
  }

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

  private leaseState(l: LeaseRecord, nowUs: number): { spec: Record<string, unknown>; rv: number } {
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

  leaseObject(namespace: string, name: string): KubeLease | undefined {
    const l = this.leases.get(namespace)?.get(name);
    return l ? this.leaseView(l, this.nowUs()) : undefined;
  }

  private leaseView(l: LeaseRecord, nowUs: number): KubeLease {
    const state = this.leaseState(l, nowUs);
    let spec = state.spec;
    if (l.overrides) {
      spec = { ...spec };
      for (const [key, value] of Object.entries(l.overrides)) {
        if (value === undefined) delete spec[key];
        else spec[key] = value;
      }
    }
    l.uid ??= uidFrom(l.owner?.key ?? 0, 3);
    l.created ??= formatTime(l.createdUs);
    const metadata: ObjectMeta = {
      name: l.name,
      namespace: l.namespace,
      uid: l.uid,
      resourceVersion: String(state.rv),
      creationTimestamp: l.created,
    };
    if (l.labels) metadata.labels = l.labels;
    if (l.annotations) metadata.annotations = l.annotations;
    if (l.owner) {
      metadata.ownerReferences = [
        { apiVersion: 'v1', kind: 'Node', name: l.owner.name, uid: uidFrom(l.owner.key, 1) },
      ];
    }
    return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata, spec };
  }

  /** Creates a Lease as a client would (POST). */
  createLease(namespace: string, body: unknown): KubeLease {
    const { name, spec, labels, annotations } = this.readLeaseBody(namespace, body);
    if (this.leases.get(namespace)?.has(name)) {
      throw new SimApiError(
        409,
        'AlreadyExists',
        `leases.coordination.k8s.io "${name}" already exists`,
        {
          name,
          group: 'coordination.k8s.io',
          kind: 'leases',
        },
      );
    }
    const nowUs = this.nowUs();
    const record: LeaseRecord = {
      name,
      namespace,
      uid: uidFrom(hashString(`${namespace}/${name}`), nowUs % 1_000_000),
      createdUs: nowUs,
      spec,
      rv: this.nextRv(),
      rvAtUs: nowUs,
      ...(labels && { labels }),
      ...(annotations && { annotations }),
    };
    // A node lease created by a client is renewed by that node's kubelet from now on.
    const node = namespace === NODE_LEASE_NAMESPACE ? this.nodes.get(name) : undefined;
    if (node) {
      record.kubelet = node.kubelet;
      record.owner = node;
    }
    this.putLeaseRecord(record);
    return this.leaseView(record, nowUs);
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
    const parsed = this.readLeaseBody(namespace, body, name);
    const l = this.leases.get(namespace)?.get(name);
    if (!l) return { lease: this.createLease(namespace, body), created: true };
    const nowUs = this.nowUs();
    const current = this.leaseState(l, nowUs);
    const rv = parsed.resourceVersion;
    if (rv === undefined || rv === '') {
      throw new SimApiError(
        422,
        'Invalid',
        `Lease.coordination.k8s.io "${name}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
        { name, group: 'coordination.k8s.io', kind: 'Lease' },
      );
    }
    if (rv !== String(current.rv)) {
      throw new SimApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on leases.coordination.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        { name, group: 'coordination.k8s.io', kind: 'leases' },
      );
    }
    l.spec = parsed.spec;
    l.labels = parsed.labels;
    l.annotations = parsed.annotations;
    l.rv = this.nextRv(current.rv + 1);
    l.rvAtUs = nowUs;
    return { lease: this.leaseView(l, nowUs), created: false };
  }

  private readLeaseBody(
    namespace: string,
    body: unknown,
    pathName?: string,
  ): {
    name: string;
    spec: Record<string, unknown>;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
  } {
    if (!this.leases.has(namespace)) {
      throw new SimApiError(404, 'NotFound', `namespaces "${namespace}" not found`, {
        name: namespace,
        kind: 'namespaces',
      });
    }
    const obj = isRecord(body) ? body : {};
    const meta = isRecord(obj.metadata) ? obj.metadata : {};
    const name = typeof meta.name === 'string' ? meta.name : (pathName ?? '');
    if (obj.kind !== undefined && obj.kind !== 'Lease') {
      throw new SimApiError(400, 'BadRequest', `the body kind "${String(obj.kind)}" is not Lease`);
    }
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) || name.length > 253) {
      throw new SimApiError(
        422,
        'Invalid',
        `Lease.coordination.k8s.io "${name}" is invalid: metadata.name: Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'`,
      );
    }
    if (pathName !== undefined && name !== pathName) {
      throw new SimApiError(
        400,
        'BadRequest',
        `the name of the object (${name}) does not match the name on the URL (${pathName})`,
      );
    }
    if (typeof meta.namespace === 'string' && meta.namespace !== namespace) {
      throw new SimApiError(
        400,
        'BadRequest',
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    const spec = isRecord(obj.spec) ? { ...obj.spec } : {};
    const out: ReturnType<SimCluster['readLeaseBody']> = { name, spec };
    if (isStringMap(meta.labels)) out.labels = meta.labels;
    if (isStringMap(meta.annotations)) out.annotations = meta.annotations;
    if (typeof meta.resourceVersion === 'string') out.resourceVersion = meta.resourceVersion;
    return out;
  }
}

const READY_TEXT: Record<ConditionStatus, NodeRecord['ready']> = {
  True: { status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
  False: {
    status: 'False',
    reason: 'KubeletNotReady',
    message:
      'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
  },
  Unknown: {
    status: 'Unknown',
    reason: 'NodeStatusUnknown',
    message: 'Kubelet stopped posting node status.',
  },
};

const NO_TAINTS: SimTaint[] = [];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isStringMap(v: unknown): v is Record<string, string> {
  return isRecord(v) && Object.values(v).every((x) => typeof x === 'string');
}
