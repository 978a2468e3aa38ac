/**
 * core/v1 Events of the node lifecycle, as the kubelet and the node lifecycle controller emit
 * them: Starting and RegisteredNode on creation, NodeNotReady when a silent node goes Unknown
 * (or the kubelet reports NotReady), NodeReady when it comes back, NodeSchedulable /
 * NodeNotSchedulable on (un)cordon, RemovingNode on deletion. Creation events are derived from
 * the node record (100,000 nodes stay lean); later ones are recorded, repeated ones counted.
 * Events live in the default namespace and expire after an hour, like kube-apiserver's --event-ttl.
 */
import { hashString, hex, uidFrom } from './hashing.js';
import type { ObjectMeta } from './objects.js';
import type { EventSource, NodeEventRecord, NodeRecord } from './records.js';
import type { ClusterStore } from './store.js';
import { formatTime } from './time-format.js';

export const EVENT_NAMESPACE = 'default';
const EVENT_TTL_US = 3_600_000_000;

export interface KubeEvent {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: ObjectMeta;
  involvedObject: { kind: 'Node'; name: string; uid: string; apiVersion?: string };
  reason: string;
  message: string;
  source: { component: string; host?: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: string;
  eventTime: null;
  reportingComponent: string;
  reportingInstance: string;
}

const statusMessage = (node: string, status: string) => `Node ${node} status is now: ${status}`;

/** The message each reason carries, as the kubelet and node-controller word it. */
export function eventMessage(node: string, reason: string): string {
  switch (reason) {
    case 'Starting':
      return 'Starting kubelet.';
    case 'RegisteredNode':
      return `Node ${node} event: Registered Node ${node} in Controller`;
    case 'Shutdown':
      return 'Shutdown manager detected shutdown event';
    case 'RemovingNode':
      return `Node ${node} event: Removing Node ${node} from Controller`;
    default:
      return statusMessage(node, reason);
  }
}

function creationEvents(n: NodeRecord): NodeEventRecord[] {
  const base = { node: n.name, nodeUid: uidFrom(n.key, 1), type: 'Normal' as const, count: 1 };
  const at = { firstUs: n.createdUs, lastUs: n.createdUs };
  return [
    {
      ...base,
      ...at,
      reason: 'Starting',
      message: eventMessage(n.name, 'Starting'),
      source: 'kubelet',
    },
    {
      ...base,
      firstUs: n.createdUs + 1,
      lastUs: n.createdUs + 1,
      reason: 'RegisteredNode',
      message: eventMessage(n.name, 'RegisteredNode'),
      source: 'node-controller',
    },
  ];
}

/** Records an event for the node at `atUs` (later than now for a transition still to come). */
export function recordNodeEvent(
  store: ClusterStore,
  n: NodeRecord,
  reason: string,
  source: EventSource,
  atUs: number,
): void {
  const list = store.events.get(n.name) ?? [];
  const last = list[list.length - 1];
  if (last && last.reason === reason && last.source === source && last.lastUs <= atUs) {
    last.count++;
    last.lastUs = atUs;
  } else {
    list.push({
      node: n.name,
      nodeUid: uidFrom(n.key, 1),
      reason,
      message: eventMessage(n.name, reason),
      source,
      type: 'Normal',
      firstUs: atUs,
      lastUs: atUs,
      count: 1,
    });
  }
  store.events.set(n.name, list);
}

/** Forgets events scheduled after now (a kubelet came back before the controller noticed). */
export function dropFutureEvents(store: ClusterStore, name: string, nowUs: number): void {
  const list = store.events.get(name);
  if (list)
    store.events.set(
      name,
      list.filter((e) => e.firstUs <= nowUs),
    );
}

/** Keeps a deleted node's creation events (they can no longer be derived from its record). */
export function keepCreationEvents(store: ClusterStore, n: NodeRecord): void {
  store.events.set(n.name, [...creationEvents(n), ...(store.events.get(n.name) ?? [])]);
}

/** The node's events visible now: happened already and not expired. */
export function nodeEvents(store: ClusterStore, name: string, nowUs: number): NodeEventRecord[] {
  const n = store.nodes.get(name);
  const fresh = n !== undefined && n.createdUs + 1 >= nowUs - EVENT_TTL_US;
  const recorded = store.events.get(name);
  if (!fresh && recorded === undefined) return [];
  const all = [...(fresh ? creationEvents(n) : []), ...(recorded ?? [])];
  return all.filter((e) => e.firstUs <= nowUs && e.lastUs >= nowUs - EVENT_TTL_US);
}

export function eventName(e: NodeEventRecord): string {
  const nanos = BigInt(Math.floor(e.firstUs)) * 1000n + BigInt(hashString(e.reason) % 1000);
  return `${e.node}.${hex(Number(nanos >> 32n), 8)}${hex(Number(nanos & 0xffffffffn), 8)}`;
}

/** Names of every visible event, sorted (the API's list order). */
export function eventNames(store: ClusterStore, nowUs: number, node?: string): string[] {
  const nodes =
    node !== undefined ? [node] : new Set([...store.nodes.keys(), ...store.events.keys()]);
  const names: string[] = [];
  for (const name of nodes)
    for (const e of nodeEvents(store, name, nowUs)) names.push(eventName(e));
  return names.sort();
}

export function findEvent(
  store: ClusterStore,
  name: string,
  nowUs: number,
): NodeEventRecord | undefined {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return undefined;
  return nodeEvents(store, name.slice(0, dot), nowUs).find((e) => eventName(e) === name);
}

export function eventView(e: NodeEventRecord): KubeEvent {
  const name = eventName(e);
  const kubelet = e.source === 'kubelet';
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name,
      namespace: EVENT_NAMESPACE,
      uid: uidFrom(hashString(name), 5),
      resourceVersion: String(Math.floor(e.lastUs)),
      creationTimestamp: formatTime(e.firstUs),
    },
    involvedObject: kubelet
      ? { kind: 'Node', name: e.node, uid: e.node }
      : { kind: 'Node', name: e.node, uid: e.nodeUid, apiVersion: 'v1' },
    reason: e.reason,
    message: e.message,
    source: kubelet ? { component: 'kubelet', host: e.node } : { component: 'node-controller' },
    firstTimestamp: formatTime(e.firstUs),
    lastTimestamp: formatTime(e.lastUs),
    count: e.count,
    type: e.type,
    eventTime: null,
    reportingComponent: e.source,
    reportingInstance: kubelet ? e.node : '',
  };
}

/** Field selector values of an event (what `--field-selector` may name). */
export function eventField(ev: KubeEvent, field: string): string | undefined {
  const io = ev.involvedObject;
  const fields: Record<string, string | undefined> = {
    'involvedObject.kind': io.kind,
    'involvedObject.name': io.name,
    'involvedObject.uid': io.uid,
    'involvedObject.apiVersion': io.apiVersion ?? '',
    'involvedObject.namespace': '',
    'involvedObject.resourceVersion': '',
    'involvedObject.fieldPath': '',
    reason: ev.reason,
    reportingComponent: ev.reportingComponent,
    source: ev.source.component,
    type: ev.type,
  };
  return fields[field];
}

export const EVENT_FIELDS = [
  'metadata.name',
  'metadata.namespace',
  'involvedObject.kind',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.namespace',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
];

export type { EventSource, NodeEventRecord };
