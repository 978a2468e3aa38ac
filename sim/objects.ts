/**
 * The Kubernetes object shapes the simulated cluster serves (Node, Lease, ObjectMeta), the
 * error a refused write raises, and the sim's fixed namespaces and version.
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

/** The Ready condition's reason and message as the kubelet reports each status. */
export const READY_TEXT: Record<
  ConditionStatus,
  { status: ConditionStatus; reason: string; message: string }
> = {
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

export const NO_TAINTS: SimTaint[] = [];

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isStringMap(v: unknown): v is Record<string, string> {
  return isRecord(v) && Object.values(v).every((x) => typeof x === 'string');
}
