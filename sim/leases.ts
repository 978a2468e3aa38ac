/**
 * Leases as the API serves and writes them: the view of a record at an instant, create (POST)
 * and replace (PUT) with the API's validation and optimistic concurrency.
 */
import { deleteLease } from './faults.js';
import { hashString, uidFrom } from './hashing.js';
import {
  isRecord,
  isStringMap,
  type KubeLease,
  NODE_LEASE_NAMESPACE,
  type ObjectMeta,
  SimApiError,
} from './objects.js';
import { applyPatch } from './patches.js';
import type { LeaseRecord } from './records.js';
import type { ClusterStore } from './store.js';
import { formatTime } from './time-format.js';

interface LeaseBody {
  name: string;
  spec: Record<string, unknown>;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resourceVersion?: string;
}

export function leaseView(store: ClusterStore, l: LeaseRecord, nowUs: number): KubeLease {
  const state = store.leaseState(l, nowUs);
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
export function createLease(store: ClusterStore, namespace: string, body: unknown): KubeLease {
  const { name, spec, labels, annotations } = readLeaseBody(store, namespace, body);
  if (store.leases.get(namespace)?.has(name)) {
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
  const nowUs = store.nowUs();
  const record: LeaseRecord = {
    name,
    namespace,
    uid: uidFrom(hashString(`${namespace}/${name}`), nowUs % 1_000_000),
    createdUs: nowUs,
    spec,
    rv: store.nextRv(),
    rvAtUs: nowUs,
    ...(labels && { labels }),
    ...(annotations && { annotations }),
  };
  // A node lease created by a client is renewed by that node's kubelet from now on.
  const node = namespace === NODE_LEASE_NAMESPACE ? store.nodes.get(name) : undefined;
  if (node) {
    record.kubelet = node.kubelet;
    record.owner = node;
  }
  store.putLeaseRecord(record);
  return leaseView(store, record, nowUs);
}

/**
 * Replaces a Lease (PUT). 409 when metadata.resourceVersion is stale; creates it when absent
 * (leases allow create-on-update). The write wins until the kubelet's next renewal.
 */
export function updateLease(
  store: ClusterStore,
  namespace: string,
  name: string,
  body: unknown,
): { lease: KubeLease; created: boolean } {
  const parsed = readLeaseBody(store, namespace, body, name);
  const l = store.leases.get(namespace)?.get(name);
  if (!l) return { lease: createLease(store, namespace, body), created: true };
  const nowUs = store.nowUs();
  const current = store.leaseState(l, nowUs);
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
  l.rv = store.nextRv(current.rv + 1);
  l.rvAtUs = nowUs;
  return { lease: leaseView(store, l, nowUs), created: false };
}

function readLeaseBody(
  store: ClusterStore,
  namespace: string,
  body: unknown,
  pathName?: string,
): LeaseBody {
  if (!store.leases.has(namespace)) {
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
  const out: LeaseBody = { name, spec };
  if (isStringMap(meta.labels)) out.labels = meta.labels;
  if (isStringMap(meta.annotations)) out.annotations = meta.annotations;
  if (typeof meta.resourceVersion === 'string') out.resourceVersion = meta.resourceVersion;
  return out;
}

function leaseNotFound(name: string): SimApiError {
  return new SimApiError(404, 'NotFound', `leases.coordination.k8s.io "${name}" not found`, {
    name,
    group: 'coordination.k8s.io',
    kind: 'leases',
  });
}

/** PATCH of a Lease: the patch applied to the lease as served, then written like a PUT. */
export function patchLease(
  store: ClusterStore,
  namespace: string,
  name: string,
  type: string,
  body: unknown,
): KubeLease {
  const l = store.leases.get(namespace)?.get(name);
  if (!l) throw leaseNotFound(name);
  const before = leaseView(store, l, store.nowUs());
  const after = applyPatch(before, type, body);
  if (isRecord(after) && isRecord(after.metadata)) {
    after.metadata.resourceVersion ??= before.metadata.resourceVersion;
  }
  return updateLease(store, namespace, name, after).lease;
}

/** DELETE of a Lease: answers with the lease as it was. */
export function deleteLeaseByApi(store: ClusterStore, namespace: string, name: string): KubeLease {
  const l = store.leases.get(namespace)?.get(name);
  if (!l) throw leaseNotFound(name);
  const last = leaseView(store, l, store.nowUs());
  deleteLease(store, name, namespace);
  return last;
}
