/**
 * The resources the sim serves, each described once: names, discovery facts, how to enumerate,
 * read, filter and print its objects, and which writes it takes. The server has one generic
 * "get one / list with paging, selectors and Table output" path over these descriptors.
 */
import type { SimCluster } from './cluster.js';
import {
  EVENT_FIELDS,
  EVENT_NAMESPACE,
  eventField,
  eventNames,
  eventView,
  findEvent,
  type KubeEvent,
} from './events.js';
import { deleteLeaseByApi, patchLease } from './leases.js';
import { deleteNodeByApi, patchNode } from './node-writes.js';
import type { KubeLease, KubeNode, ObjectMeta } from './objects.js';
import type { FieldTerm } from './paging.js';
import type { Column } from './table.js';
import {
  EVENT_COLUMNS,
  eventRow,
  LEASE_COLUMNS,
  leaseRow,
  NODE_COLUMNS,
  nodeRow,
  POD_COLUMNS,
} from './table.js';

export interface ApiObject {
  metadata: ObjectMeta;
}

export interface ResourceKind {
  /** Plural name, as in the URL. */
  readonly plural: string;
  readonly singular: string;
  /** API group; '' for core. */
  readonly group: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly shortNames?: readonly string[];
  readonly storageVersionHash?: string;
  readonly columns: readonly Column[];
  /** Field selector labels the API accepts for this resource. */
  readonly fields: readonly string[];
  /** Names in one namespace (or the cluster, for cluster-scoped kinds), in API list order. */
  names(namespace: string | undefined, fields: readonly FieldTerm[]): readonly string[];
  get(namespace: string | undefined, name: string): ApiObject | undefined;
  /** The object as compact JSON; default JSON.stringify(get(...)). */
  json?(namespace: string | undefined, name: string): string | undefined;
  labels(namespace: string | undefined, name: string): Readonly<Record<string, string>> | undefined;
  /** A field's value for field selectors other than metadata.name/namespace. */
  fieldValue?(obj: ApiObject, field: string): string | undefined;
  row(obj: ApiObject): unknown[];
  create?(namespace: string, body: unknown): ApiObject;
  update?(namespace: string, name: string, body: unknown): { object: ApiObject; created: boolean };
  patch?(namespace: string | undefined, name: string, type: string, body: unknown): ApiObject;
  delete?(namespace: string | undefined, name: string): ApiObject;
}

const READ_VERBS = ['get', 'list', 'watch'];

export function apiVersionOf(r: ResourceKind): string {
  return r.group ? `${r.group}/v1` : 'v1';
}

export function nodeResource(cluster: SimCluster): ResourceKind {
  return {
    plural: 'nodes',
    singular: 'node',
    group: '',
    kind: 'Node',
    namespaced: false,
    verbs: ['delete', 'get', 'list', 'patch', 'watch'],
    shortNames: ['no'],
    storageVersionHash: 'XwShjMxG9Fs=',
    columns: NODE_COLUMNS,
    fields: ['metadata.name', 'spec.unschedulable'],
    names: () => cluster.sortedNodeNames(),
    get: (_ns, name) => cluster.nodeObject(name),
    json: (_ns, name) => cluster.nodeJson(name),
    labels: (_ns, name) => cluster.nodeLabels(name),
    fieldValue: (obj, field) =>
      field === 'spec.unschedulable'
        ? String((obj as KubeNode).spec.unschedulable ?? false)
        : undefined,
    row: (obj) => nodeRow(obj as KubeNode, cluster.now()),
    patch: (_ns, name, type, body) => patchNode(cluster, name, type, body),
    delete: (_ns, name) => deleteNodeByApi(cluster, name),
  };
}

export function leaseResource(cluster: SimCluster): ResourceKind {
  return {
    plural: 'leases',
    singular: 'lease',
    group: 'coordination.k8s.io',
    kind: 'Lease',
    namespaced: true,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    storageVersionHash: 'gqkMMb/YqFM=',
    columns: LEASE_COLUMNS,
    fields: ['metadata.name', 'metadata.namespace'],
    names: (ns) => cluster.sortedLeaseNames(ns ?? ''),
    get: (ns, name) => cluster.leaseObject(ns ?? '', name),
    labels: (ns, name) => cluster.leaseLabels(ns ?? '', name),
    row: (obj) => leaseRow(obj as KubeLease, cluster.now()),
    create: (ns, body) => cluster.createLease(ns, body),
    update: (ns, name, body) => {
      const out = cluster.updateLease(ns, name, body);
      return { object: out.lease, created: out.created };
    },
    patch: (ns, name, type, body) => patchLease(cluster, ns ?? '', name, type, body),
    delete: (ns, name) => deleteLeaseByApi(cluster, ns ?? '', name),
  };
}

/** core/v1 Events: the node lifecycle's events, in the default namespace (see events.ts). */
export function eventResource(cluster: SimCluster): ResourceKind {
  const inNamespace = (ns: string | undefined) => ns === undefined || ns === EVENT_NAMESPACE;
  return {
    plural: 'events',
    singular: 'event',
    group: '',
    kind: 'Event',
    namespaced: true,
    verbs: READ_VERBS,
    shortNames: ['ev'],
    storageVersionHash: 'r2yiGXH7wu8=',
    columns: EVENT_COLUMNS,
    fields: EVENT_FIELDS,
    names: (ns, fields) => {
      if (!inNamespace(ns)) return [];
      // involvedObject.name=X (what describe node asks) reads one node's events, not all.
      const node = fields.find((t) => t.field === 'involvedObject.name' && t.op === '=');
      return eventNames(cluster, cluster.nowUs(), node?.value);
    },
    get: (ns, name) => {
      const e = inNamespace(ns) ? findEvent(cluster, name, cluster.nowUs()) : undefined;
      return e && eventView(e);
    },
    labels: () => ({}),
    fieldValue: (obj, field) => eventField(obj as KubeEvent, field),
    row: (obj) => eventRow(obj as KubeEvent, cluster.now()),
  };
}

/** core/v1 Pods: the sim runs none, but `kubectl describe node` lists them. */
export function podResource(): ResourceKind {
  return {
    plural: 'pods',
    singular: 'pod',
    group: '',
    kind: 'Pod',
    namespaced: true,
    verbs: READ_VERBS,
    shortNames: ['po'],
    storageVersionHash: 'xPOwRZ+Yhw8=',
    columns: POD_COLUMNS,
    fields: ['metadata.name', 'metadata.namespace', 'spec.nodeName', 'status.phase'],
    names: () => [],
    get: () => undefined,
    labels: () => undefined,
    row: () => [],
  };
}
