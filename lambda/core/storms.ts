/**
 * Storms: when most nodes of a zone, or of the whole cluster, alert in the same check, the cause is
 * usually the network or the control plane, not the nodes. Pure.
 *
 * - A zone crosses the threshold when `alerting / total >= zoneFraction` and
 *   `alerting >= zoneMinNodes` (counts of *alerting* nodes, like the node lifecycle controller's
 *   "more than 2 not ready and at least 55 %"). So a zone of 2 nodes never storms on its own.
 * - The cluster crosses it likewise, with the sums over `evaluation.zones`.
 * - Scope 'cluster' wins over 'zone'; for 'cluster' every zone is listed, for 'zone' the zones
 *   that crossed.
 * - Fractions are compared by division (`11 / 20 >= 0.55`), which is exact at the boundary where
 *   `0.55 * 20` would not be. A fraction above 1 turns that test off.
 * - A storm's state only grows while it lasts (zones are a union, scope escalates zone → cluster
 *   and never back), so a storm that wobbles around the threshold does not re-notify; it notifies
 *   again only when it spreads (a zone not named before, or the whole cluster).
 */
import type { StormIncident } from './alert-state.js';
import type { ZoneSummary } from './model.js';
import type { StormInfo } from './notification.js';

export interface StormPolicy {
  /** Share of a zone's nodes alerting at once that makes a zone storm. Default 0.55. */
  readonly zoneFraction: number;
  /** At least this many alerting nodes in the zone. Default 3. */
  readonly zoneMinNodes: number;
  /** Share of the cluster's nodes alerting at once that makes a cluster storm. Default 0.55. */
  readonly clusterFraction: number;
  /** At least this many alerting nodes in the cluster. Default 3. */
  readonly clusterMinNodes: number;
}

/** What one check sees. */
export interface StormDetection {
  readonly scope: 'zone' | 'cluster';
  /** Zones that crossed the zone threshold, sorted by name (possibly none, for scope 'cluster'). */
  readonly crossed: readonly ZoneSummary[];
  /** Names of the zones whose alerting nodes are storm nodes; null means every zone. */
  readonly stormZones: ReadonlySet<string> | null;
  readonly clusterTotal: number;
  readonly clusterAlerting: number;
}

function crosses(alerting: number, total: number, fraction: number, minNodes: number): boolean {
  return total > 0 && alerting >= minNodes && alerting / total >= fraction;
}

function byZone(a: ZoneSummary, b: ZoneSummary): number {
  return a.zone < b.zone ? -1 : a.zone > b.zone ? 1 : 0;
}

export function detectStorm(
  zones: readonly ZoneSummary[],
  policy: StormPolicy,
): StormDetection | null {
  let clusterTotal = 0;
  let clusterAlerting = 0;
  const crossed: ZoneSummary[] = [];
  for (const zone of zones) {
    clusterTotal += zone.total;
    clusterAlerting += zone.alerting;
    if (crosses(zone.alerting, zone.total, policy.zoneFraction, policy.zoneMinNodes)) {
      crossed.push(zone);
    }
  }
  crossed.sort(byZone);
  if (crosses(clusterAlerting, clusterTotal, policy.clusterFraction, policy.clusterMinNodes)) {
    return { scope: 'cluster', crossed, stormZones: null, clusterTotal, clusterAlerting };
  }
  if (crossed.length === 0) return null;
  return {
    scope: 'zone',
    crossed,
    stormZones: new Set(crossed.map((z) => z.zone)),
    clusterTotal,
    clusterAlerting,
  };
}

export type StormChange =
  | { readonly notice: null; readonly next: StormIncident | null }
  | {
      readonly notice: 'active' | 'ended';
      readonly next: StormIncident | null;
      readonly info: StormInfo;
    };

function sameZones(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((zone, i) => zone === b[i]);
}

/** Compares this check's detection with the storm remembered from earlier checks. */
export function stormChange(
  previous: StormIncident | null,
  detection: StormDetection | null,
  zones: readonly ZoneSummary[],
  now: number,
): StormChange {
  if (detection === null) {
    if (previous === null) return { notice: null, next: null };
    return { notice: 'ended', next: null, info: endedInfo(previous, zones) };
  }
  const crossedNames = detection.crossed.map((z) => z.zone);
  if (previous === null) {
    return {
      notice: 'active',
      next: { scope: detection.scope, zones: crossedNames, since: now },
      info: activeInfo(detection, zones),
    };
  }
  const known = new Set(previous.zones);
  const spread =
    previous.scope === 'zone' &&
    (detection.scope === 'cluster' || crossedNames.some((zone) => !known.has(zone)));
  const union = [...new Set([...previous.zones, ...crossedNames])].sort();
  const scope = previous.scope === 'cluster' ? 'cluster' : detection.scope;
  const next =
    scope === previous.scope && sameZones(union, previous.zones)
      ? previous
      : { scope, zones: union, since: previous.since };
  if (!spread) return { notice: null, next };
  return { notice: 'active', next, info: activeInfo(detection, zones) };
}

function activeInfo(detection: StormDetection, zones: readonly ZoneSummary[]): StormInfo {
  return {
    state: 'active',
    scope: detection.scope,
    zones: detection.scope === 'cluster' ? [...zones].sort(byZone) : detection.crossed,
    clusterTotal: detection.clusterTotal,
    clusterAlerting: detection.clusterAlerting,
  };
}

/** The zones of the storm that ended, with their counts now. */
function endedInfo(previous: StormIncident, zones: readonly ZoneSummary[]): StormInfo {
  let clusterTotal = 0;
  let clusterAlerting = 0;
  const current = new Map<string, ZoneSummary>();
  for (const zone of zones) {
    clusterTotal += zone.total;
    clusterAlerting += zone.alerting;
    current.set(zone.zone, zone);
  }
  const listed =
    previous.scope === 'cluster'
      ? [...zones].sort(byZone)
      : previous.zones.map((zone) => current.get(zone) ?? { zone, total: 0, alerting: 0 });
  return { state: 'ended', scope: previous.scope, zones: listed, clusterTotal, clusterAlerting };
}
