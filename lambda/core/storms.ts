/**
 * Storms: when most nodes of a zone, of a node group, or of the whole cluster go silent in the
 * same check, the cause is usually the network, the control plane or something the node group
 * shares (its image, its launch template, its subnet), not the nodes. Pure.
 *
 * - Only silent nodes count (`expired`, `missing-lease`: see `isSilent`): a `not-ready` node's
 *   kubelet is alive and renewing, so it is not part of "many nodes went silent together".
 * - A zone crosses the threshold when `silent / total >= zoneFraction` and
 *   `silent >= zoneMinNodes` (like the node lifecycle controller's "more than 2 not ready and at
 *   least 55 %"). So a zone of 2 nodes never storms on its own.
 * - A node group crosses it likewise, with the zone thresholds. Nodes without a node group label
 *   are in no node group (they are counted in their zone and the cluster only).
 * - The cluster crosses it likewise, with the sums over `evaluation.zones`.
 * - Scope 'cluster' wins; otherwise 'zone' when a zone crossed (node groups that crossed are
 *   named too), else 'node-group'. For 'cluster' every zone and node group is listed, otherwise
 *   those that crossed.
 * - Fractions are compared by division (`11 / 20 >= 0.55`), which is exact at the boundary where
 *   `0.55 * 20` would not be. A fraction above 1 turns that test off.
 * - A storm's state only grows while it lasts (zones and node groups are unions, scope escalates
 *   to cluster and never back), so a storm that wobbles around the threshold does not re-notify;
 *   it notifies again only when it spreads (a zone or node group not named before, or the whole
 *   cluster).
 */
import type { StormIncident } from './alert-state.js';
import type { Evaluation, NodeGroupSummary, ZoneSummary } from './model.js';
import type { StormInfo } from './notification.js';
import { compareNames } from './verdict-list.js';

export interface StormPolicy {
  /** Share of a zone's (or node group's) nodes silent at once that makes it storm. Default 0.55. */
  readonly zoneFraction: number;
  /** At least this many silent nodes in the zone (or node group). Default 3. */
  readonly zoneMinNodes: number;
  /** Share of the cluster's nodes silent at once that makes a cluster storm. Default 0.55. */
  readonly clusterFraction: number;
  /** At least this many silent nodes in the cluster. Default 3. */
  readonly clusterMinNodes: number;
}

/** What one check sees. */
export interface StormDetection extends Pick<StormInfo, 'clusterTotal' | 'clusterSilent'> {
  readonly scope: StormIncident['scope'];
  /** Zones that crossed the zone threshold, sorted by name (possibly none). */
  readonly crossed: readonly ZoneSummary[];
  /** Node groups that crossed the threshold, sorted by name (possibly none). */
  readonly crossedNodeGroups: readonly NodeGroupSummary[];
  /** Names of the zones whose silent nodes are storm nodes; null means every node. */
  readonly stormZones: ReadonlySet<string> | null;
  /** Names of the node groups whose silent nodes are storm nodes (empty for scope 'cluster'). */
  readonly stormNodeGroups: ReadonlySet<string>;
}

function crosses(silent: number, total: number, fraction: number, minNodes: number): boolean {
  return total > 0 && silent >= minNodes && silent / total >= fraction;
}

const byZone = (a: ZoneSummary, b: ZoneSummary) => compareNames(a.zone, b.zone);
const byNodeGroup = (a: NodeGroupSummary, b: NodeGroupSummary) =>
  compareNames(a.nodeGroup, b.nodeGroup);

export function detectStorm(
  zones: readonly ZoneSummary[],
  policy: StormPolicy,
  nodeGroups: readonly NodeGroupSummary[] = [],
): StormDetection | null {
  const clusterTotal = zones.reduce((sum, z) => sum + z.total, 0);
  const clusterSilent = zones.reduce((sum, z) => sum + z.silent, 0);
  const crossed = zones
    .filter((z) => crosses(z.silent, z.total, policy.zoneFraction, policy.zoneMinNodes))
    .sort(byZone);
  const crossedNodeGroups = nodeGroups
    .filter((g) => crosses(g.silent, g.total, policy.zoneFraction, policy.zoneMinNodes))
    .sort(byNodeGroup);
  const counts = { crossed, crossedNodeGroups, clusterTotal, clusterSilent };
  if (crosses(clusterSilent, clusterTotal, policy.clusterFraction, policy.clusterMinNodes)) {
    return { scope: 'cluster', ...counts, stormZones: null, stormNodeGroups: new Set() };
  }
  if (crossed.length === 0 && crossedNodeGroups.length === 0) return null;
  return {
    scope: crossed.length > 0 ? 'zone' : 'node-group',
    ...counts,
    stormZones: new Set(crossed.map((z) => z.zone)),
    stormNodeGroups: new Set(crossedNodeGroups.map((g) => g.nodeGroup)),
  };
}

/** True for a storm node: a node of a storm zone or storm node group (its silence is checked by the caller). */
export function inStorm(
  detection: StormDetection | null,
  node: { readonly zone: string | null; readonly nodeGroup?: string | undefined },
): boolean {
  if (detection === null) return false;
  if (detection.stormZones === null || detection.stormZones.has(node.zone ?? '')) return true;
  return node.nodeGroup !== undefined && detection.stormNodeGroups.has(node.nodeGroup);
}

export type StormChange =
  | { readonly notice: null; readonly next: StormIncident | null }
  | {
      readonly notice: 'active' | 'ended';
      readonly next: StormIncident | null;
      readonly info: StormInfo;
    };

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

/** What the storm sees now, beside the counts: zones and node groups of this check. */
type StormCounts = Pick<Evaluation, 'zones' | 'nodeGroups'>;

/** Compares this check's detection with the storm remembered from earlier checks. */
export function stormChange(
  previous: StormIncident | null,
  detection: StormDetection | null,
  counts: StormCounts,
  now: number,
): StormChange {
  if (detection === null) {
    if (previous === null) return { notice: null, next: null };
    return { notice: 'ended', next: null, info: endedInfo(previous, counts) };
  }
  const crossedZones = detection.crossed.map((z) => z.zone);
  const crossedGroups = detection.crossedNodeGroups.map((g) => g.nodeGroup);
  // A new storm spreads from nothing.
  const was = previous ?? { scope: detection.scope, zones: [], since: now };
  const knownZones = new Set(was.zones);
  const knownGroups = new Set(was.nodeGroups ?? []);
  const spread =
    previous === null ||
    (previous.scope !== 'cluster' &&
      (detection.scope === 'cluster' ||
        crossedZones.some((zone) => !knownZones.has(zone)) ||
        crossedGroups.some((group) => !knownGroups.has(group))));
  const zones = [...new Set([...was.zones, ...crossedZones])].sort();
  const nodeGroups = [...new Set([...(was.nodeGroups ?? []), ...crossedGroups])].sort();
  const scope: StormIncident['scope'] =
    was.scope === 'cluster' || detection.scope === 'cluster'
      ? 'cluster'
      : zones.length > 0
        ? 'zone'
        : 'node-group';
  const next =
    previous !== null &&
    scope === previous.scope &&
    sameNames(zones, previous.zones) &&
    sameNames(nodeGroups, previous.nodeGroups ?? [])
      ? previous
      : {
          scope,
          zones,
          ...(nodeGroups.length === 0 ? {} : { nodeGroups }),
          since: was.since,
        };
  if (!spread) return { notice: null, next };
  return { notice: 'active', next, info: activeInfo(detection, counts) };
}

function activeInfo(detection: StormDetection, counts: StormCounts): StormInfo {
  const cluster = detection.scope === 'cluster';
  const nodeGroups = cluster
    ? [...counts.nodeGroups].sort(byNodeGroup)
    : detection.crossedNodeGroups;
  return {
    state: 'active',
    scope: detection.scope,
    zones: cluster ? [...counts.zones].sort(byZone) : detection.crossed,
    ...(nodeGroups.length === 0 ? {} : { nodeGroups }),
    clusterTotal: detection.clusterTotal,
    clusterSilent: detection.clusterSilent,
  };
}

/** The zones and node groups of the storm that ended, with their counts now. */
function endedInfo(previous: StormIncident, counts: StormCounts): StormInfo {
  const zones = new Map(counts.zones.map((z) => [z.zone, z]));
  const groups = new Map(counts.nodeGroups.map((g) => [g.nodeGroup, g]));
  const cluster = previous.scope === 'cluster';
  const listedZones = cluster
    ? [...counts.zones].sort(byZone)
    : previous.zones.map((zone) => zones.get(zone) ?? { zone, total: 0, silent: 0 });
  const listedGroups = cluster
    ? [...counts.nodeGroups].sort(byNodeGroup)
    : (previous.nodeGroups ?? []).map(
        (nodeGroup) => groups.get(nodeGroup) ?? { nodeGroup, total: 0, silent: 0 },
      );
  return {
    state: 'ended',
    scope: previous.scope,
    zones: listedZones,
    ...(listedGroups.length === 0 ? {} : { nodeGroups: listedGroups }),
    clusterTotal: counts.zones.reduce((sum, z) => sum + z.total, 0),
    clusterSilent: counts.zones.reduce((sum, z) => sum + z.silent, 0),
  };
}

/**
 * The silent count of a zone or node group of a stored notification: notifications stored (in
 * the outbox) before the count was named `silent` call it `alerting`.
 */
export function silentIn(group: { readonly silent: number }): number {
  return group.silent ?? (group as { readonly alerting?: number }).alerting ?? 0;
}

/** The cluster's silent count of a stored storm (formerly `clusterAlerting`). */
export function clusterSilentIn(storm: StormInfo): number {
  return (
    storm.clusterSilent ?? (storm as { readonly clusterAlerting?: number }).clusterAlerting ?? 0
  );
}
