/**
 * The sim's internal records: what it stores per Node, Lease and kubelet. Kept lean (100,000
 * nodes): deterministic strings (uid, labels, providerID) are derived when an object is viewed.
 */
import type { InstanceType } from './catalogue.js';
import type { ConditionStatus, SimTaint } from './objects.js';

export interface Kubelet {
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

export interface LeaseRecord {
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
export interface NodeRecord {
  name: string;
  key: number;
  zone: string;
  /** Labels given in the spec, on top of the standard ones. */
  extraLabels?: Record<string, string>;
  /** Memo of the full label set; after a PATCH of the labels, the set as patched. */
  labels?: Record<string, string>;
  /** The annotations as last patched (default: the standard EKS ones). */
  annotations?: Record<string, string>;
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

/** One Event about a node, as the sim records it (events.ts derives the rest). */
export type EventSource = 'kubelet' | 'node-controller';

export interface NodeEventRecord {
  node: string;
  /** The Node's uid (node-controller events carry it; kubelet events carry the node's name). */
  nodeUid: string;
  reason: string;
  message: string;
  source: EventSource;
  type: 'Normal' | 'Warning';
  firstUs: number;
  lastUs: number;
  count: number;
}
