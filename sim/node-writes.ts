/**
 * Writes clients make to Nodes through the API: PATCH (what kubectl cordon, uncordon, label,
 * annotate and taint send) and DELETE. A patch is applied to the node as served, then the fields
 * a client may change are written back: labels, annotations, spec.unschedulable, spec.taints.
 *
 * The annotation `sim.lease-watchdog.io/kubelet` drives the node's simulated kubelet:
 * `stopped` stops it, `running` starts it (and reports Ready), `not-ready` keeps it renewing its
 * lease but reporting Ready=False (KubeletNotReady).
 */
import * as faults from './faults.js';
import { nodeView } from './node-view.js';
import { isRecord, isStringMap, type KubeNode, SimApiError, type SimTaint } from './objects.js';
import { applyPatch } from './patches.js';
import type { NodeRecord } from './records.js';
import type { ClusterStore } from './store.js';

export const KUBELET_ANNOTATION = 'sim.lease-watchdog.io/kubelet';
/** Taints the node lifecycle controller owns: derived from the node's condition, never stored. */
const CONTROLLER_TAINTS = new Set([
  'node.kubernetes.io/unreachable',
  'node.kubernetes.io/not-ready',
]);

function invalid(name: string, message: string): SimApiError {
  return new SimApiError(422, 'Invalid', `Node "${name}" is invalid: ${message}`, {
    name,
    kind: 'Node',
  });
}

function nodeNotFound(name: string): SimApiError {
  return new SimApiError(404, 'NotFound', `nodes "${name}" not found`, { name, kind: 'nodes' });
}

function readTaints(name: string, raw: unknown): SimTaint[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw invalid(name, 'spec.taints: Invalid value: must be a list');
  return raw.map((t, i) => {
    if (!isRecord(t) || typeof t.key !== 'string' || typeof t.effect !== 'string') {
      throw invalid(name, `spec.taints[${i}]: Required value: key and effect are required`);
    }
    if (!['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(t.effect)) {
      throw invalid(name, `spec.taints[${i}].effect: Unsupported value: "${t.effect}"`);
    }
    const taint: SimTaint = { key: t.key, effect: t.effect };
    if (typeof t.value === 'string' && t.value !== '') taint.value = t.value;
    return taint;
  });
}

/** Writes the client-writable fields of the patched node back into its record. */
function writeBack(store: ClusterStore, n: NodeRecord, before: KubeNode, after: unknown): void {
  if (!isRecord(after) || !isRecord(after.metadata) || !isRecord(after.spec)) {
    throw invalid(n.name, 'the patched object is not a Node');
  }
  const meta = after.metadata;
  if (meta.name !== n.name)
    throw invalid(n.name, 'metadata.name: Invalid value: field is immutable');
  if (
    meta.resourceVersion !== undefined &&
    meta.resourceVersion !== before.metadata.resourceVersion
  ) {
    throw new SimApiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on nodes "${n.name}": the object has been modified; please apply your changes to the latest version and try again`,
      { name: n.name, kind: 'nodes' },
    );
  }
  const labels = meta.labels ?? {};
  const annotations = meta.annotations ?? {};
  if (!isStringMap(labels)) throw invalid(n.name, 'metadata.labels: label values must be strings');
  if (!isStringMap(annotations)) {
    throw invalid(n.name, 'metadata.annotations: annotation values must be strings');
  }
  const unschedulable = after.spec.unschedulable ?? false;
  if (typeof unschedulable !== 'boolean') {
    throw invalid(n.name, 'spec.unschedulable: Invalid value: must be a boolean');
  }
  const taints = readTaints(n.name, after.spec.taints).filter((t) => !CONTROLLER_TAINTS.has(t.key));
  n.labels = { ...labels };
  n.annotations = { ...annotations };
  n.taints = taints;
  if (unschedulable !== n.unschedulable) faults.cordon(store, n.name, unschedulable);
}

/** Drives the simulated kubelet from the sim.lease-watchdog.io/kubelet annotation. */
function applyKubeletAnnotation(store: ClusterStore, n: NodeRecord, value: string | undefined) {
  switch (value) {
    case 'stopped':
      faults.stopKubelet(store, n.name);
      return;
    case 'running':
      if (!n.kubelet.alive) faults.startKubelet(store, n.name);
      if (n.ready.status !== 'True') faults.setReady(store, n.name, 'True');
      return;
    case 'not-ready':
      if (!n.kubelet.alive) faults.startKubelet(store, n.name);
      if (n.ready.status !== 'False') faults.setReady(store, n.name, 'False');
      return;
  }
}

function checkKubeletAnnotation(name: string, value: string | undefined): void {
  if (value === undefined || ['stopped', 'running', 'not-ready'].includes(value)) return;
  throw invalid(
    name,
    `metadata.annotations[${KUBELET_ANNOTATION}]: Unsupported value: "${value}": supported values: "running", "stopped", "not-ready"`,
  );
}

/** PATCH /api/v1/nodes/{name} with any of kubectl's three patch content types. */
export function patchNode(
  store: ClusterStore,
  name: string,
  type: string,
  body: unknown,
): KubeNode {
  const n = store.nodes.get(name);
  if (!n) throw nodeNotFound(name);
  const before = nodeView(store, n, store.nowUs());
  const after = applyPatch(before, type, body);
  const previousKubelet = before.metadata.annotations?.[KUBELET_ANNOTATION];
  const nextKubelet =
    isRecord(after) && isRecord(after.metadata) && isStringMap(after.metadata.annotations)
      ? after.metadata.annotations[KUBELET_ANNOTATION]
      : undefined;
  checkKubeletAnnotation(name, nextKubelet);
  writeBack(store, n, before, after);
  if (nextKubelet !== previousKubelet) applyKubeletAnnotation(store, n, nextKubelet);
  store.touchNode(n);
  return nodeView(store, n, store.nowUs());
}

/** DELETE /api/v1/nodes/{name}: the node goes now; the garbage collector takes its Lease. */
export function deleteNodeByApi(store: ClusterStore, name: string): KubeNode {
  const n = store.nodes.get(name);
  if (!n) throw nodeNotFound(name);
  const last = nodeView(store, n, store.nowUs());
  faults.deleteNode(store, name, { keepLease: false });
  store.nextRv();
  return last;
}
