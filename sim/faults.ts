/**
 * The fault API: what happens to nodes, kubelets and leases in a scenario (a kubelet stops or
 * comes back, a clock skews, a node is cordoned, tainted, deleted, a lease is corrupted). Each
 * change first materializes the lease as it looks now, so the past stays what it was.
 */

import { dropFutureEvents, keepCreationEvents, recordNodeEvent } from './events.js';
import {
  type ConditionStatus,
  NODE_LEASE_NAMESPACE,
  READY_TEXT,
  type SimTaint,
} from './objects.js';
import type { ClusterStore } from './store.js';
import { formatMicroTime } from './time-format.js';

/** The node dies: its kubelet stops renewing the lease (and posting status). */
export function stopKubelet(store: ClusterStore, name: string): void {
  const n = store.node(name);
  if (!n.kubelet.alive) return;
  const lease = store.nodeLease(name);
  if (lease) store.materializeLease(lease);
  const nodeRv = store.nodeVersion(n, store.nowUs());
  n.kubelet.alive = false;
  n.kubelet.stoppedUs = store.nowUs();
  n.rv = nodeRv;
  n.rvAtUs = store.nowUs();
  recordNodeEvent(store, n, 'NodeNotReady', 'node-controller', store.unknownSinceUs(n));
}

/** The node comes back: its kubelet renews now, then on schedule. */
export function startKubelet(store: ClusterStore, name: string): void {
  const n = store.node(name);
  const nowUs = store.nowUs();
  const lease = store.nodeLease(name);
  if (lease) store.materializeLease(lease);
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
      renewTime: formatMicroTime(nowUs + k.skewMs * 1000 + store.subMicros(k.key, nowUs)),
    };
    lease.rv = store.nextRv(lease.rv + 1);
    lease.rvAtUs = nowUs;
  }
  if (wasDeadUnknown) {
    n.readySinceUs = nowUs;
    store.touchNode(n);
    dropFutureEvents(store, name, nowUs);
    recordNodeEvent(store, n, 'Starting', 'kubelet', nowUs);
    if (n.ready.status === 'True') recordNodeEvent(store, n, 'NodeReady', 'kubelet', nowUs);
  }
}

export function setClockSkew(store: ClusterStore, name: string, ms: number): void {
  const n = store.node(name);
  const lease = store.nodeLease(name);
  if (lease) store.materializeLease(lease);
  n.kubelet.skewMs = ms;
}

/** Sets the Ready condition as the kubelet reports it; the lease keeps renewing. */
export function setReady(
  store: ClusterStore,
  name: string,
  status: ConditionStatus,
  reason?: string,
): void {
  const n = store.node(name);
  const text = READY_TEXT[status];
  const changed = n.ready.status !== text.status;
  n.ready = reason ? { ...text, reason } : text;
  n.readySinceUs = store.nowUs();
  store.touchNode(n);
  if (changed && n.kubelet.alive && status !== 'Unknown') {
    recordNodeEvent(
      store,
      n,
      status === 'True' ? 'NodeReady' : 'NodeNotReady',
      'kubelet',
      store.nowUs(),
    );
  }
}

/**
 * The kubelet's graceful node shutdown begins: its node shutdown manager reports Ready=False with
 * "node is shutting down" and records a `Shutdown` event; the lease keeps renewing until the
 * kubelet stops (stopKubelet), as the machine powers off.
 */
export function beginShutdown(store: ClusterStore, name: string): void {
  const n = store.node(name);
  recordNodeEvent(store, n, 'Shutdown', 'kubelet', store.nowUs());
  setReady(store, name, 'False');
  n.ready = { ...n.ready, message: 'node is shutting down' };
  store.touchNode(n);
}

export function cordon(store: ClusterStore, name: string, on = true): void {
  const n = store.node(name);
  if (n.unschedulable !== on) {
    const reason = on ? 'NodeNotSchedulable' : 'NodeSchedulable';
    recordNodeEvent(store, n, reason, 'kubelet', store.nowUs());
  }
  n.unschedulable = on;
  const has = n.taints.some((t) => t.key === 'node.kubernetes.io/unschedulable');
  if (on && !has) {
    n.taints = [...n.taints, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }];
  }
  if (!on) n.taints = n.taints.filter((t) => t.key !== 'node.kubernetes.io/unschedulable');
  store.touchNode(n);
}

export function addTaint(store: ClusterStore, name: string, taint: SimTaint): void {
  const n = store.node(name);
  n.taints = [
    ...n.taints.filter((t) => !(t.key === taint.key && t.effect === taint.effect)),
    { ...taint },
  ];
  store.touchNode(n);
}

export function removeTaint(store: ClusterStore, name: string, key: string): void {
  const n = store.node(name);
  n.taints = n.taints.filter((t) => t.key !== key);
  store.touchNode(n);
}

/** Sets metadata.deletionTimestamp (and a finalizer, so the node stays). */
export function markDeleting(store: ClusterStore, name: string): void {
  const n = store.node(name);
  n.deletionUs = store.nowUs();
  store.touchNode(n);
}

/** Deletes the Node. By default its Lease stays behind (an orphan, no longer renewed). */
export function deleteNode(
  store: ClusterStore,
  name: string,
  opts: { keepLease?: boolean } = {},
): void {
  const n = store.node(name);
  const lease = store.nodeLease(name);
  if (lease) {
    if (opts.keepLease ?? true) {
      store.materializeLease(lease);
      lease.kubelet = undefined;
    } else {
      deleteLease(store, name);
    }
  }
  dropFutureEvents(store, name, store.nowUs());
  keepCreationEvents(store, n);
  recordNodeEvent(store, n, 'RemovingNode', 'node-controller', store.nowUs());
  n.kubelet.alive = false;
  n.kubelet.stoppedUs = store.nowUs();
  store.nodes.delete(name);
  store.sortedNodes = null;
}

/** Deletes the node's Lease in kube-node-lease (the kubelet keeps running, without a lease). */
export function deleteLease(
  store: ClusterStore,
  name: string,
  namespace = NODE_LEASE_NAMESPACE,
): void {
  const ns = store.leases.get(namespace);
  if (!ns?.delete(name)) throw new Error(`no lease ${namespace}/${name}`);
  store.sortedLeases.delete(namespace);
  store.nextRv();
}

/**
 * Raw, sticky spec patch of a node lease (for malformed-lease tests), e.g.
 * `{ renewTime: 'garbage' }` or `{ leaseDurationSeconds: 0 }`. The fields stay as patched even
 * while the kubelet renews; a value of `undefined` removes the field from the spec.
 * clearLeaseOverrides undoes it.
 */
export function setLeaseField(
  store: ClusterStore,
  name: string,
  patch: Record<string, unknown>,
  namespace = NODE_LEASE_NAMESPACE,
) {
  const l = store.leaseRecord(namespace, name);
  store.materializeLease(l);
  l.overrides = { ...l.overrides, ...patch };
  l.rv = store.nextRv(l.rv + 1);
}

export function clearLeaseOverrides(
  store: ClusterStore,
  name: string,
  namespace = NODE_LEASE_NAMESPACE,
): void {
  const l = store.leaseRecord(namespace, name);
  store.materializeLease(l);
  l.overrides = undefined;
  l.rv = store.nextRv(l.rv + 1);
}

/** Stops every kubelet in the zone; returns the names of the nodes that went dark. */
export function zoneDark(store: ClusterStore, zone: string): string[] {
  const names: string[] = [];
  for (const n of store.nodes.values()) {
    if (n.zone === zone) {
      stopKubelet(store, n.name);
      names.push(n.name);
    }
  }
  return names;
}

/** Whether the node's kubelet is running. */
export function kubeletAlive(store: ClusterStore, name: string): boolean {
  return store.node(name).kubelet.alive;
}
