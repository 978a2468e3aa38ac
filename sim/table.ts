/**
 * Server-side Table output (what `kubectl get` prints): column definitions and rows per resource,
 * and the Table envelope with its includeObject modes.
 */
import type { IncomingMessage } from 'node:http';
import type { KubeEvent } from './events.js';
import type { KubeLease, KubeNode, ObjectMeta } from './objects.js';
import { listMetaJson, type Page } from './paging.js';
import { humanDuration } from './time-format.js';

export interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

// ----- Table output (what `kubectl get` prints) -----------------------------------------------

export const NAME_COLUMN: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
};
export const AGE_COLUMN: Column = {
  name: 'Age',
  type: 'string',
  format: '',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  priority: 0,
};
export const col = (name: string, description: string, priority = 0) => ({
  name,
  type: 'string',
  format: '',
  description,
  priority,
});
export const NODE_COLUMNS: Column[] = [
  NAME_COLUMN,
  col('Status', 'The status of the node'),
  col('Roles', 'The roles of the node'),
  AGE_COLUMN,
  col('Version', 'Kubelet Version reported by the node.'),
  col(
    'Internal-IP',
    'List of addresses reachable to the node. Queried from cloud provider, if available.',
    1,
  ),
  col(
    'External-IP',
    'List of addresses reachable to the node. Queried from cloud provider, if available.',
    1,
  ),
  col(
    'OS-Image',
    'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
    1,
  ),
  col(
    'Kernel-Version',
    "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
    1,
  ),
  col(
    'Container-Runtime',
    'Container runtime version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
    1,
  ),
];
export const LEASE_COLUMNS: Column[] = [
  NAME_COLUMN,
  col(
    'Holder',
    'HolderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
  ),
  AGE_COLUMN,
];

export type TableObjectMode = 'None' | 'Metadata' | 'Object';

/** The Table mode the request asks for (Accept: ...;as=Table;g=meta.k8s.io), or null. */
export function tableMode(req: IncomingMessage, query: URLSearchParams): TableObjectMode | null {
  const accept = req.headers.accept;
  if (!accept) return null;
  const first = accept.split(',')[0] ?? '';
  if (!/as=Table/.test(first) || !/g=meta\.k8s\.io/.test(first)) return null;
  const mode = query.get('includeObject');
  return mode === 'None' || mode === 'Object' ? mode : 'Metadata';
}

/** A row's object; with includeObject=None, null (an empty RawExtension marshals to null). */
function rowObject(mode: TableObjectMode, obj: { metadata: ObjectMeta }): unknown {
  if (mode === 'None') return null;
  if (mode === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export function tableJson<T extends { metadata: ObjectMeta }>(
  mode: TableObjectMode,
  columns: readonly Column[],
  pageOut: Page<T>,
  rv: string,
  row: (obj: T) => unknown[],
): string {
  const rows = pageOut.items.map((obj) => {
    const object = rowObject(mode, obj);
    return JSON.stringify(object === undefined ? { cells: row(obj) } : { cells: row(obj), object });
  });
  return `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":${listMetaJson(pageOut, rv)},"columnDefinitions":${JSON.stringify(columns)},"rows":[${rows.join(',')}]}`;
}

/** kubectl's AGE column: HumanDuration of now − creationTimestamp. */
export function age(meta: ObjectMeta, nowMs: number): string {
  return humanDuration(nowMs - Date.parse(meta.creationTimestamp));
}

/**
 * The node's Status cell as kube-apiserver's printer builds it: the Ready condition True gives
 * `Ready`, False or Unknown `NotReady`, no Ready condition `Unknown`; then `SchedulingDisabled`
 * when cordoned.
 */
export function nodeStatusCell(node: KubeNode): string {
  const ready = node.status.conditions.find((c) => c.type === 'Ready');
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

/** The Roles cell: `node-role.kubernetes.io/<role>` keys and a `kubernetes.io/role` value, sorted. */
function nodeRoles(labels: Readonly<Record<string, string>>): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(labels)) {
    const role = key.startsWith('node-role.kubernetes.io/')
      ? key.slice('node-role.kubernetes.io/'.length)
      : key === 'kubernetes.io/role'
        ? value
        : '';
    if (role) roles.add(role);
  }
  return [...roles].sort().join(',');
}

/** The node's row, from the object alone (so a deleted node's last state prints the same). */
export function nodeRow(node: KubeNode, nowMs: number): unknown[] {
  const roles = nodeRoles(node.metadata.labels ?? {});
  const ip = node.status.addresses.find((a) => a.type === 'InternalIP')?.address ?? '<none>';
  return [
    node.metadata.name,
    nodeStatusCell(node),
    roles || '<none>',
    age(node.metadata, nowMs),
    node.status.nodeInfo.kubeletVersion,
    ip,
    '<none>',
    node.status.nodeInfo.osImage,
    node.status.nodeInfo.kernelVersion,
    node.status.nodeInfo.containerRuntimeVersion,
  ];
}

export function leaseRow(lease: KubeLease, nowMs: number): unknown[] {
  const holder = lease.spec.holderIdentity;
  return [
    lease.metadata.name,
    typeof holder === 'string' ? holder : '',
    age(lease.metadata, nowMs),
  ];
}

export const EVENT_COLUMNS: Column[] = [
  col('Last Seen', 'The time the event was last observed.'),
  col('Type', 'Type of this event (Normal, Warning), new types could be added in the future.'),
  col('Reason', "The reason the transition into the object's current status."),
  col('Object', 'The object that this event is about.'),
  col('Subobject', 'The subobject (field path) of the involved object.', 1),
  col('Source', 'The component reporting this event.', 1),
  col('Message', 'A human-readable description of the status of this operation.'),
  col('First Seen', 'The time at which the event was first recorded.', 1),
  col('Count', 'The number of times this event has occurred.', 1),
  col('Name', 'The name of the event.', 1),
];

export function eventRow(ev: KubeEvent, nowMs: number): unknown[] {
  const since = (t: string) => humanDuration(nowMs - Date.parse(t));
  const source = ev.source.host ? `${ev.source.component}, ${ev.source.host}` : ev.source.component;
  return [
    since(ev.lastTimestamp),
    ev.type,
    ev.reason,
    `${ev.involvedObject.kind.toLowerCase()}/${ev.involvedObject.name}`,
    '',
    source,
    ev.message,
    since(ev.firstTimestamp),
    ev.count,
    ev.metadata.name,
  ];
}

export const POD_COLUMNS: Column[] = [
  NAME_COLUMN,
  col('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
  col('Status', 'The aggregate status of the containers in this pod.'),
  col('Restarts', 'The number of times the containers in this pod have been restarted.'),
  AGE_COLUMN,
];
