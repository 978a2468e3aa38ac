/**
 * The shapes that flow through the watchdog. Pure data: no I/O, no clocks.
 *
 * Times are epoch milliseconds (numbers) unless a field says it holds the raw API string.
 */

/** What the reader keeps of one Lease in `kube-node-lease`. Fields are raw: the core validates them. */
export interface LeaseInfo {
  readonly name: string;
  /** `spec.renewTime` exactly as the API sent it (a MicroTime string, null, or anything else). */
  readonly renewTime: unknown;
  /** `spec.leaseDurationSeconds` exactly as the API sent it (absent means the kubelet default, 40). */
  readonly leaseDurationSeconds: unknown;
  /**
   * `metadata.creationTimestamp` (RFC 3339, API server clock), when known; the reader keeps it only
   * for a lease whose `renewTime` is not a string (never renewed: its silence counts from creation).
   */
  readonly createdAt?: string | undefined;
  /**
   * Set when the API sent a name longer than Kubernetes allows (MAX_NAME_LENGTH): its length.
   * `name` is then cut where it was read (the reader's projection), and the lease is `invalid`.
   */
  readonly nameLength?: number | undefined;
}

export interface Taint {
  readonly key: string;
  readonly effect?: string | undefined;
  readonly value?: string | undefined;
}

/** What the reader keeps of one Node: only what the verdicts, grouping and notifications need. */
export interface NodeInfo {
  readonly name: string;
  /** As LeaseInfo's: the length of a name longer than Kubernetes allows, `name` cut. */
  readonly nameLength?: number | undefined;
  /** `metadata.creationTimestamp` (RFC 3339, API server clock). */
  readonly createdAt?: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
  readonly unschedulable: boolean;
  readonly deletionTimestamp?: string | undefined;
  readonly taints: readonly Taint[];
  /** Status of the `Ready` condition: 'True' | 'False' | 'Unknown', or undefined when absent. */
  readonly ready?: string | undefined;
  readonly readyReason?: string | undefined;
  readonly readyMessage?: string | undefined;
  /** `spec.providerID`, e.g. `aws:///eu-west-1a/i-0abc...`. */
  readonly providerID?: string | undefined;
}

/** One consistent read of a cluster. */
export interface Snapshot {
  readonly cluster: string;
  readonly namespace: string;
  readonly leases: readonly LeaseInfo[];
  /** null when Nodes could not be read (e.g. 403): the check runs on leases alone, degraded. */
  readonly nodes: readonly NodeInfo[] | null;
  /** The API server's clock (from the `Date` header of the lease list), epoch ms. */
  readonly serverTime: number;
  /** Why the snapshot is partial, when it is (e.g. "cannot list nodes: 403 Forbidden"). */
  readonly degraded?: string | undefined;
  /** Requests made and response bytes read to take this snapshot (for benchmarks and metrics). */
  readonly stats?: { readonly requests: number; readonly bytes: number } | undefined;
}

export const VERDICTS = [
  'healthy',
  'expired',
  'not-ready',
  'missing-lease',
  'orphaned-lease',
  'suppressed',
  'invalid',
  'suspect',
] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Verdicts that page someone. */
const ALERTING_VERDICTS: ReadonlySet<Verdict> = new Set(['expired', 'not-ready', 'missing-lease']);

export function isAlerting(verdict: Verdict): boolean {
  return ALERTING_VERDICTS.has(verdict);
}

/**
 * Verdicts of a node whose kubelet is not heard from: its lease stopped renewing, or it has none
 * past the startup grace (a kubelet that can write recreates a deleted lease within seconds).
 * A `not-ready` node is alerting but not silent: its kubelet renews and reports.
 */
const SILENT_VERDICTS: ReadonlySet<Verdict> = new Set(['expired', 'missing-lease']);

export function isSilent(verdict: Verdict): boolean {
  return SILENT_VERDICTS.has(verdict);
}

/** Why a node is suppressed (an expected removal, the user's exclusion, silence or maintenance window). */
export type SuppressionCause =
  | 'cordoned'
  | 'deleting'
  | 'autoscaler-removal'
  | 'karpenter-disruption'
  | 'graceful-shutdown'
  | 'out-of-service'
  | 'spot-interruption'
  | 'instance-terminated'
  | 'excluded'
  | 'silenced'
  | 'maintenance';

/** Where a node runs, as far as its labels tell (see node-facts.ts); each field only when a label gives it. */
export interface NodeFacts {
  readonly nodeGroup?: string | undefined;
  readonly instanceType?: string | undefined;
  /** `on-demand` or `spot` (EKS's `ON_DEMAND`/`SPOT` lowercased). */
  readonly capacityType?: string | undefined;
}

export interface NodeVerdict extends NodeFacts {
  /** Node name (or lease name for an orphaned lease). */
  readonly name: string;
  readonly verdict: Verdict;
  /** One human sentence: why this verdict. */
  readonly reason: string;
  /** Raw `renewTime` string as read, or null. */
  readonly renewTime: string | null;
  readonly leaseDurationSeconds: number | null;
  /** Silence on the watchdog's clock (see evaluate), whole seconds; null when there is no lease. */
  readonly silentForSeconds: number | null;
  /** `topology.kubernetes.io/zone`, when the node has one. */
  readonly zone: string | null;
  /** Instance id taken from `providerID`, when there is one. */
  readonly instance: string | null;
  readonly providerID: string | null;
  /** Set when verdict is `suppressed`. */
  readonly suppressedBy?: SuppressionCause | undefined;
  /** Set when verdict is `suppressed`: the verdict the node would have without its suppression. */
  readonly suppressedVerdict?: Verdict | undefined;
  /** True when the silence was estimated from the API server's clock (no earlier observation). */
  readonly firstSight?: boolean | undefined;
  /**
   * True when this check is the first to see the lease (no earlier observation), or when its
   * `expired` still rests on that first sight (the kubelet's clock) and no look of ours has
   * confirmed it yet: the alert lifecycle opens nothing until one does (storms aside).
   */
  readonly newlySeen?: boolean | undefined;
}

/**
 * What the watchdog remembers of one lease between checks, on its own clock: the `renewTime`
 * value it last saw and when (watchdog clock) that value was first seen. Keyed by lease name.
 */
export interface Observation {
  /** The raw renewTime string last seen (null when the lease had none). */
  readonly renewTime: string | null;
  /** Watchdog-clock epoch ms at which `renewTime` last changed (estimated on first sight). */
  readonly changedAt: number;
  /**
   * True while `changedAt` is still the first-sight estimate (taken against the API server's
   * clock, so it inherits the kubelet's clock skew); false once a change was seen on our clock.
   */
  readonly estimated?: boolean | undefined;
  /**
   * The renewal estimated on the watchdog's clock (renewal-clock.ts): renewTime plus the learned
   * offset, clamped between our looks. Silence counts from here when set (else from changedAt).
   */
  readonly renewedAt?: number | undefined;
  /** The learned clock offset of this lease's kubelet (our clock − its clock, an upper bound), ms. */
  readonly offsetMs?: number | undefined;
  /**
   * Set once a look saw this renewTime silent past one renew interval: watchdog-clock ms from which
   * our looks have watched it unchanged (the look that first saw the value; that look itself when
   * it was frozen or the value a first sight: core/renewal-clock.ts).
   */
  readonly suspectSince?: number | undefined;
  /**
   * Watchdog-clock ms of the first look that judged this renewTime's silence expired: later looks
   * at the same value keep it expired (verdicts about one silence move one way), whatever the gap
   * between looks or a frozen look says. A new renewTime starts a new observation without it.
   */
  readonly expiredSince?: number | undefined;
}

export type Observations = ReadonlyMap<string, Observation>;

/** Nodes of one zone: how many, and how many of them are silent (`isSilent`). */
export interface ZoneSummary {
  readonly zone: string;
  readonly total: number;
  readonly silent: number;
}

/** Nodes of one node group (or node pool): how many, and how many of them are silent. */
export interface NodeGroupSummary {
  readonly nodeGroup: string;
  readonly total: number;
  readonly silent: number;
}

export interface Evaluation {
  readonly cluster: string;
  /** Watchdog clock at the check, epoch ms. */
  readonly checkedAt: number;
  readonly serverTime: number;
  /** Why the check ran on leases alone (the Nodes could not be read), when it did. */
  readonly degraded?: string | undefined;
  /**
   * Why the answer looked partial (a list lacking most of what the last check saw), when it did:
   * this check keeps what it cannot confirm as it was, and the next one confirms. Unlike
   * `degraded`, it is transient and announces nothing.
   */
  readonly suspect?: string | undefined;
  /** Sorted by name. */
  readonly nodes: readonly NodeVerdict[];
  readonly summary: Readonly<Record<Verdict, number>>;
  /** The `suppressed` nodes counted by cause (planned exits, removals, silences...): only those seen. */
  readonly suppressedBy?: Readonly<Partial<Record<SuppressionCause, number>>> | undefined;
  /** Nodes grouped by zone (nodes with no zone under ''), for storm detection. */
  readonly zones: readonly ZoneSummary[];
  /** Nodes grouped by node group (nodes with none are left out), sorted, for storm detection. */
  readonly nodeGroups: readonly NodeGroupSummary[];
  /** Observations to carry into the next check. */
  readonly observations: Observations;
  /**
   * Leases whose renewTime this look is the first to see although it is already silent past a
   * renew interval (lease-observations.ts, `lateSighting`): a look that saw one must be saved,
   * so that the look confirming its silence counts from this one. Absent when none.
   */
  readonly lateSightings?: number | undefined;
  /**
   * Suspects (leases silent past one renew interval, not yet confirmed) to look at again: per
   * moment a look can confirm them (watchdog clock, ms), the leases, earliest first.
   */
  readonly rechecks?: readonly Recheck[] | undefined;
}

/** A look asked for at `at` (watchdog clock, ms), to confirm the silence of `leases`. */
export interface Recheck {
  readonly at: number;
  readonly leases: readonly string[];
}

/** Why a cluster could not be read (set by the reader adapter, used by WATCHDOG alerts). */
export type ClusterReadFailure =
  | 'config' // the kubeconfig (or auth settings) cannot be used
  | 'unavailable' // AWS (Secrets Manager, STS, eks:DescribeCluster) throttled or failed (5xx)
  | 'exec-plugin' // the kubeconfig needs an exec credential plugin that is not installed
  | 'unreachable' // DNS, connection refused, reset, no route
  | 'tls' // certificate verification failed
  | 'unauthorized' // 401: credentials rejected
  | 'forbidden' // 403: RBAC denies a verb on a resource
  | 'not-found' // 404: e.g. the namespace does not exist
  | 'server' // 5xx or an unreadable answer
  | 'invalid-response' // 200 with something other than the list asked for, or a list out of bounds
  | 'timeout' // no answer in time
  | 'aborted'; // the caller's signal ended the read (e.g. the Lambda deadline)
