/**
 * What the API serves for a Node: the object built from its record at an instant, the compact
 * JSON the server sends in lists, and the summary kubectl's Table columns need.
 */
import { IMAGES, IMAGES_JSON, KUBELET_VERSION } from './catalogue.js';
import { hex, mix, uidFrom } from './hashing.js';
import { lastHeartbeatUs } from './kubelets.js';
import type { ConditionStatus, KubeNode, NodeCondition, ObjectMeta, SimTaint } from './objects.js';
import type { NodeRecord } from './records.js';
import type { ClusterStore } from './store.js';
import { formatTime } from './time-format.js';

/** Annotations every EKS node carries; patched annotations replace the set. */
function defaultAnnotations(n: NodeRecord): Record<string, string> {
  return {
    'alpha.kubernetes.io/provided-node-ip': n.internalIP,
    'node.alpha.kubernetes.io/ttl': '0',
    'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
  };
}

export function nodeAnnotations(n: NodeRecord): Record<string, string> {
  return n.annotations ?? defaultAnnotations(n);
}

function nodeConditions(store: ClusterStore, n: NodeRecord, nowUs: number): NodeCondition[] {
  const k = n.kubelet;
  const silent = store.isSilent(n, nowUs);
  const heartbeatUs = k.alive
    ? (lastHeartbeatUs(k, nowUs) ?? n.createdUs)
    : (store.lastRenewalUs(k, k.stoppedUs) ?? n.createdUs);
  const hb = formatTime(heartbeatUs + k.skewMs * 1000);
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
          lastTransitionTime: formatTime(store.unknownSinceUs(n)),
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
  const since = n.createdUs;
  return [
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
  ];
}

/** The node's taints plus the ones the node lifecycle controller adds for its condition. */
function nodeTaints(store: ClusterStore, n: NodeRecord, nowUs: number): SimTaint[] {
  const taints = [...n.taints];
  if (store.isSilent(n, nowUs)) {
    taints.push(
      { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
    );
  } else if (n.ready.status !== 'True') {
    taints.push({ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' });
  }
  return taints;
}

function nodeMetadata(store: ClusterStore, n: NodeRecord, nowUs: number): ObjectMeta {
  const metadata: ObjectMeta = {
    name: n.name,
    uid: uidFrom(n.key, 1),
    resourceVersion: String(store.nodeVersion(n, nowUs)),
    creationTimestamp: formatTime(n.createdUs),
    labels: store.labelsOf(n),
    annotations: nodeAnnotations(n),
  };
  if (n.deletionUs !== undefined) {
    metadata.deletionTimestamp = formatTime(n.deletionUs);
    metadata.deletionGracePeriodSeconds = 0;
    metadata.finalizers = ['karpenter.sh/termination'];
  }
  return metadata;
}

function nodeInfo(n: NodeRecord): Record<string, string> {
  const k = n.key;
  return {
    machineID: `ec2${hex(mix(k, 3), 8)}${hex(mix(k, 4), 8)}${hex(mix(k, 5), 8)}${hex(mix(k, 6), 5)}`,
    systemUUID: `ec2${hex(mix(k, 3), 5)}-${hex(mix(k, 4), 4)}-${hex(mix(k, 5), 4)}-${hex(mix(k, 6), 4)}-${hex(mix(k, 7), 12)}`,
    bootID: uidFrom(k, 2),
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
  };
}

export function nodeView(store: ClusterStore, n: NodeRecord, nowUs: number): KubeNode {
  const taints = nodeTaints(store, n, nowUs);
  const spec: KubeNode['spec'] = {
    providerID: n.providerID ?? `aws:///${n.zone}/i-${hex(n.key, 8)}${hex(mix(n.key, 2), 9)}`,
  };
  if (taints.length > 0) spec.taints = taints;
  if (n.unschedulable) spec.unschedulable = true;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: nodeMetadata(store, n, nowUs),
    spec,
    status: {
      capacity: n.instance.capacity,
      allocatable: n.instance.allocatable,
      conditions: nodeConditions(store, n, nowUs),
      addresses: [
        { type: 'InternalIP', address: n.internalIP },
        { type: 'InternalDNS', address: n.name },
        { type: 'Hostname', address: n.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: nodeInfo(n),
      images: IMAGES as { names: string[]; sizeBytes: number }[],
    },
  };
}

/**
 * The node as compact JSON, built from pre-serialized static fragments (instance capacity,
 * images): what the server sends in lists, at a fraction of JSON.stringify's cost.
 */
export function nodeJson(store: ClusterStore, n: NodeRecord, nowUs: number): string {
  const node = nodeView(store, n, nowUs);
  const { conditions, addresses, daemonEndpoints, nodeInfo } = node.status;
  const rest = JSON.stringify({ conditions, addresses, daemonEndpoints, nodeInfo });
  return `{"apiVersion":"v1","kind":"Node","metadata":${JSON.stringify(node.metadata)},"spec":${JSON.stringify(node.spec)},"status":{${n.instance.json},${rest.slice(1, -1)},"images":${IMAGES_JSON}}}`;
}

export interface NodeSummary {
  ready: boolean;
  unschedulable: boolean;
  roles: string;
}

/** Extra fields the server's Table output needs. */
export function nodeSummary(store: ClusterStore, n: NodeRecord, nowUs: number): NodeSummary {
  const roles = Object.keys(store.labelsOf(n))
    .filter((l) => l.startsWith('node-role.kubernetes.io/'))
    .map((l) => l.slice('node-role.kubernetes.io/'.length))
    .join(',');
  return {
    ready: !store.isSilent(n, nowUs) && n.ready.status === 'True',
    unschedulable: n.unschedulable,
    roles: roles || '<none>',
  };
}
