/** Test builders for leases, nodes and snapshots (as the reader hands them to the core). */
import type { LeaseInfo, NodeInfo, Snapshot, Taint } from '../lambda/core/model.js';

/** A pinned instant: 2026-11-29T12:00:00Z. */
export const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

/** Epoch ms → MicroTime text, as a kubelet writes it (six fractional digits, UTC). */
export function microTime(ms: number, extraMicros = 0): string {
  const iso = new Date(Math.floor(ms)).toISOString(); // 2026-11-29T12:00:00.123Z
  const micros = String(extraMicros).padStart(3, '0');
  return `${iso.slice(0, -1)}${micros}Z`;
}

export function lease(
  name: string,
  spec: { renewTime?: unknown; leaseDurationSeconds?: unknown; createdAt?: string } = {},
): LeaseInfo {
  return {
    name,
    renewTime: 'renewTime' in spec ? spec.renewTime : microTime(T0),
    leaseDurationSeconds: 'leaseDurationSeconds' in spec ? spec.leaseDurationSeconds : 40,
    createdAt: spec.createdAt,
  };
}

export function node(
  name: string,
  spec: {
    zone?: string;
    labels?: Record<string, string>;
    createdAt?: string;
    ready?: string;
    readyReason?: string;
    unschedulable?: boolean;
    deletionTimestamp?: string;
    taints?: Taint[];
    providerID?: string;
  } = {},
): NodeInfo {
  const labels: Record<string, string> = { 'kubernetes.io/hostname': name, ...spec.labels };
  if (spec.zone) labels['topology.kubernetes.io/zone'] = spec.zone;
  return {
    name,
    createdAt: spec.createdAt ?? '2026-01-01T00:00:00Z',
    labels,
    unschedulable: spec.unschedulable ?? false,
    deletionTimestamp: spec.deletionTimestamp,
    taints: spec.taints ?? [],
    ready: spec.ready ?? 'True',
    readyReason: spec.readyReason,
    providerID: spec.providerID ?? `aws:///${spec.zone ?? 'eu-west-1a'}/i-${name}`,
  };
}

export function snapshot(spec: {
  leases: LeaseInfo[];
  nodes?: NodeInfo[] | null;
  serverTime?: number;
  degraded?: string;
}): Snapshot {
  return {
    cluster: 'test',
    namespace: 'kube-node-lease',
    leases: spec.leases,
    nodes: spec.nodes === undefined ? spec.leases.map((l) => node(l.name)) : spec.nodes,
    serverTime: spec.serverTime ?? T0,
    degraded: spec.degraded,
  };
}
