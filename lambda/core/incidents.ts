/**
 * The alert lifecycle: from a check's verdicts (or a failed read) and the alert state of the
 * previous checks, to at most one notification and the next alert state. Pure: no I/O, no clock
 * (`now` is an argument, epoch ms on the watchdog's clock), no environment.
 *
 * Incidents
 * - A node whose verdict alerts (`expired`, `not-ready`, `missing-lease`) and has no incident opens
 *   one: FIRING. A change between alerting verdicts only updates the incident.
 * - It resolves when the node is `healthy` (resolution 'recovered') or `suppressed` (resolution =
 *   `suppressedBy`; 'excluded' when the evaluator gave no cause), or the node is gone: verdict
 *   `orphaned-lease`, or absent from the evaluation (both 'node-deleted').
 * - `invalid` neither opens nor resolves: the incident stays as it is (and reminders go on).
 * - A node seen for the first time already alerting (`newlySeen`: no earlier observation of its
 *   lease, so its silence rests on the kubelet's own clock) opens nothing yet: the next check,
 *   judged on the watchdog's clock, decides. Storm nodes are not held back.
 * - A degraded evaluation (`evaluation.degraded`: the Nodes could not be read) does not prove
 *   that an absent node is gone: incidents and flap records of absent nodes are then kept as they
 *   are. Nodes present in it are handled as usual.
 * - A failed read (`alertsForReadFailure`) never touches node incidents, flap records or the
 *   storm, and sends no node reminders (those that fell due go out with the next successful
 *   check): a cluster that cannot be read must not look healthy, nor be guessed at.
 *
 * Grouping (see grouping.ts): one notification per check with every node that changed, sorted by
 * name in each list; null when nothing changed. Headline STORM > WATCHDOG > FIRING > FLAPPING >
 * REMINDER > RESOLVED; an ended storm or a resolved watchdog is the headline only when alone.
 *
 * Reminders
 * - An open incident is reminded when `now - lastNotifiedAt >= reminderIntervalSeconds` (exactly
 *   at the interval counts); `lastNotifiedAt` is set by FIRING, REMINDER, a STORM that lists the
 *   node, the FLAPPING notice and the "stopped flapping" notice. 0 turns reminders off (for the
 *   watchdog too). Flapping nodes get no reminders.
 *
 * Flapping (see flapping.ts for the counting)
 * - The transition that makes a node flap puts it in `flapping` (its current verdict; `since` when
 *   its incident is open, `resolution` when this transition resolved it) instead of FIRING or
 *   RESOLVED. Later transitions are silent, but the incident is still opened and resolved.
 * - Released once stable: if its incident is open it is listed in `firing` again (it is steadily
 *   down now, with `since` = when the incident opened); otherwise in `resolved` with the resolution
 *   of its current verdict (or of its last silent resolve, when the verdict is `invalid`).
 * - A node that is gone (absent or `orphaned-lease`) is released at once, in `resolved` with
 *   'node-deleted'; a gone node's resolution is not counted as a transition. Its flap record is
 *   dropped, so state stays bounded; flap records are otherwise dropped when their transitions
 *   have left the window and the node is not flapping.
 *
 * Storms (see storms.ts for the thresholds)
 * - Storm nodes are the alerting nodes of the storm zones (every alerting node for a cluster
 *   storm), except flapping ones.
 * - When a storm starts or spreads: one STORM notification (kind STORM, critical, `storm.state`
 *   'active') with every storm node in `firing` (those already firing before too: it is the
 *   summary of what is down) plus any other node that opened in that check.
 * - While it lasts: incidents still open for nodes joining it, silently (the STORM said so);
 *   nodes outside the storm zones fire as usual; recoveries are RESOLVED as usual; reminders go on.
 * - When it ends: `storm.state` 'ended' with the counts now, riding along with the check's other
 *   changes (kind STORM, severity info, when alone). `storm` is present only in these checks.
 *
 * Watchdog
 * - The first failed read opens a watchdog incident: WATCHDOG, critical, `watchdog.state` 'failing'.
 *   While reads keep failing: silent, except at the reminder interval and once when the failure
 *   class changes (`since` stays the first failure; the latest message is kept). The next
 *   successful check resolves it: `watchdog.state` 'resolved' with the failure, last message and
 *   since, grouped with that check's node changes.
 *
 * State: the same object comes back when nothing in it changed (callers may skip a write).
 * Scale: one pass over the nodes, plus one over the remembered incidents and flap records, with
 * Maps and Sets: linear in the number of nodes.
 */
import type { AlertState, FlapRecord, Incident, NodeSnapshot } from './alert-state.js';
import {
  DEFAULT_FLAP_POLICY,
  type FlapPolicy,
  flapDetectionOn,
  pruneFlapRecord,
  recordTransition,
  stableAgain,
} from './flapping.js';
import { composeNotification } from './grouping.js';
import type { ClusterReadFailure, Evaluation, NodeVerdict } from './model.js';
import { isAlerting } from './model.js';
import type { AlertNode, Notification, Resolution, WatchdogInfo } from './notification.js';
import { DEFAULT_STORM_POLICY, detectStorm, type StormPolicy, stormChange } from './storms.js';

export interface AlertPolicy {
  /** Remind about open incidents (and a failing watchdog) this often. Default 4 h; 0 = off. */
  readonly reminderIntervalSeconds: number;
  readonly flapping: FlapPolicy;
  readonly storm: StormPolicy;
}

export const DEFAULT_REMINDER_INTERVAL_SECONDS = 4 * 60 * 60;

export const DEFAULT_ALERT_POLICY: AlertPolicy = Object.freeze({
  reminderIntervalSeconds: DEFAULT_REMINDER_INTERVAL_SECONDS,
  flapping: DEFAULT_FLAP_POLICY,
  storm: DEFAULT_STORM_POLICY,
});

export interface AlertOutcome {
  readonly notification: Notification | null;
  readonly state: AlertState;
}

const GONE_REASON = 'no longer in the cluster: neither its Node nor its Lease was found';

function reminderDue(lastNotifiedAt: number, policy: AlertPolicy, now: number): boolean {
  const interval = policy.reminderIntervalSeconds;
  return interval > 0 && now - lastNotifiedAt >= interval * 1000;
}

/** How the incident of a node with this (non-alerting, non-invalid) verdict ends. */
function resolutionOf(node: NodeVerdict): Resolution | undefined {
  switch (node.verdict) {
    case 'healthy':
      return 'recovered';
    case 'suppressed':
      return node.suppressedBy ?? 'excluded';
    case 'orphaned-lease':
      return 'node-deleted';
    default:
      return undefined;
  }
}

function snapshotOf(node: NodeVerdict): NodeSnapshot {
  return {
    verdict: node.verdict,
    zone: node.zone,
    instance: node.instance,
    renewTime: node.renewTime,
  };
}

function sameSnapshot(incident: Incident, node: NodeVerdict): boolean {
  return (
    incident.verdict === node.verdict &&
    incident.zone === node.zone &&
    incident.instance === node.instance &&
    incident.renewTime === node.renewTime
  );
}

function alertNode(
  node: NodeVerdict,
  since: number | undefined,
  resolution: Resolution | undefined,
): AlertNode {
  return {
    name: node.name,
    zone: node.zone,
    instance: node.instance,
    verdict: node.verdict,
    reason: node.reason,
    renewTime: node.renewTime,
    silentForSeconds: node.silentForSeconds,
    ...(since === undefined ? {} : { since }),
    ...(resolution === undefined ? {} : { resolution }),
  };
}

/** A node absent from the evaluation, as last remembered. */
function goneNode(name: string, last: NodeSnapshot, since: number | undefined): AlertNode {
  return {
    name,
    zone: last.zone,
    instance: last.instance,
    verdict: last.verdict,
    reason: GONE_REASON,
    renewTime: last.renewTime,
    silentForSeconds: null,
    ...(since === undefined ? {} : { since }),
    resolution: 'node-deleted',
  };
}

/** After a successful check of a cluster. */
export function alertsForEvaluation(
  evaluation: Evaluation,
  state: AlertState,
  policy: AlertPolicy,
  now: number,
): AlertOutcome {
  const incidents = new Map<string, Incident>(Object.entries(state.incidents));
  const flaps = new Map<string, FlapRecord>(Object.entries(state.flaps));
  const flapOn = flapDetectionOn(policy.flapping);
  let dirty = false;

  const firing: AlertNode[] = [];
  const resolved: AlertNode[] = [];
  const reminders: AlertNode[] = [];
  const flapping: AlertNode[] = [];

  const detection = detectStorm(evaluation.zones, policy.storm);
  const storm = stormChange(state.storm, detection, evaluation.zones, now);
  if (storm.next !== state.storm) dirty = true;
  const stormNotifies = storm.notice === 'active';
  const inStorm = (node: NodeVerdict): boolean =>
    detection !== null &&
    isAlerting(node.verdict) &&
    (detection.stormZones === null || detection.stormZones.has(node.zone ?? ''));

  const setIncident = (name: string, incident: Incident): void => {
    incidents.set(name, incident);
    dirty = true;
  };
  const notified = (name: string, incident: Incident): void => {
    if (incident.lastNotifiedAt !== now) setIncident(name, { ...incident, lastNotifiedAt: now });
  };
  const setFlap = (name: string, before: FlapRecord | undefined, after: FlapRecord | undefined) => {
    if (after === before) return;
    if (after === undefined) flaps.delete(name);
    else flaps.set(name, after);
    dirty = true;
  };

  /** A node that is gone: resolve its incident and release it from flapping, at once. */
  const gone = (name: string, node: NodeVerdict | undefined): void => {
    const incident = incidents.get(name);
    const flap = flaps.get(name);
    if (incident !== undefined) {
      incidents.delete(name);
      dirty = true;
    }
    if (flap !== undefined) setFlap(name, flap, undefined);
    const wasFlapping = flap?.flapping !== undefined;
    if (incident === undefined && !wasFlapping) return;
    const since = incident?.openedAt;
    if (node !== undefined) {
      resolved.push(alertNode(node, since, 'node-deleted'));
    } else {
      const last = incident ?? flap?.flapping?.node;
      if (last !== undefined) resolved.push(goneNode(name, last, since));
    }
  };

  const seen = new Set<string>();
  for (const node of evaluation.nodes) {
    const name = node.name;
    seen.add(name);
    if (node.verdict === 'orphaned-lease') {
      gone(name, node);
      continue;
    }
    const before = flaps.get(name);
    const flap = before === undefined ? undefined : pruneFlapRecord(before, policy.flapping, now);
    let incident = incidents.get(name);

    // 1. The incident: open, update, resolve, or keep.
    let transition: 'open' | 'resolve' | null = null;
    let resolution: Resolution | undefined;
    let since: number | undefined;
    if (isAlerting(node.verdict) && incident === undefined && node.newlySeen && !inStorm(node)) {
      // Seen for the first time and already silent: that rests on the kubelet's clock alone (a
      // clock minutes behind looks like a dead node). The next check, on our own clock, decides.
      setFlap(name, before, flap);
      continue;
    }
    if (isAlerting(node.verdict)) {
      if (incident === undefined) {
        incident = { ...snapshotOf(node), openedAt: now, lastNotifiedAt: now };
        setIncident(name, incident);
        transition = 'open';
      } else if (!sameSnapshot(incident, node)) {
        incident = { ...incident, ...snapshotOf(node) };
        setIncident(name, incident);
      }
      since = incident.openedAt;
    } else if (node.verdict !== 'invalid' && incident !== undefined) {
      resolution = resolutionOf(node);
      since = incident.openedAt;
      incidents.delete(name);
      dirty = true;
      incident = undefined;
      transition = 'resolve';
    } else {
      since = incident?.openedAt;
    }

    // 2. Flapping takes over the transitions of a node that flaps.
    if (transition !== null && flapOn) {
      const counted = recordTransition(flap, snapshotOf(node), resolution, policy.flapping, now);
      setFlap(name, before, counted.record);
      if (counted.outcome === 'started') {
        flapping.push(alertNode(node, since, resolution));
        continue;
      }
      if (counted.outcome === 'held') continue;
    } else {
      setFlap(name, before, flap);
    }

    // 3. A flapping node without a transition: released once stable, silent until then.
    if (transition === null && flap?.flapping !== undefined) {
      const released = flap.flapping;
      if (!stableAgain(released, policy.flapping, now)) continue;
      setFlap(name, before, undefined);
      if (incident !== undefined) {
        firing.push(alertNode(node, since, undefined));
        notified(name, incident);
      } else {
        const ended = resolutionOf(node) ?? released.resolution ?? 'recovered';
        resolved.push(alertNode(node, undefined, ended));
      }
      continue;
    }

    // 4. Plain transitions, storms and reminders.
    if (transition === 'resolve') {
      resolved.push(alertNode(node, since, resolution));
    } else if (incident !== undefined) {
      const stormNode = inStorm(node);
      if (transition === 'open') {
        if (!stormNode || stormNotifies) firing.push(alertNode(node, since, undefined));
      } else if (stormNode && stormNotifies) {
        firing.push(alertNode(node, since, undefined));
        notified(name, incident);
      } else if (reminderDue(incident.lastNotifiedAt, policy, now)) {
        reminders.push(alertNode(node, since, undefined));
        notified(name, incident);
      }
    }
  }

  // Nodes remembered but absent from this evaluation.
  if (evaluation.degraded === undefined) {
    const absent: string[] = [];
    for (const name of incidents.keys()) if (!seen.has(name)) absent.push(name);
    for (const name of flaps.keys()) if (!seen.has(name) && !incidents.has(name)) absent.push(name);
    for (const name of absent) gone(name, undefined);
  } else {
    for (const [name, record] of flaps) {
      if (!seen.has(name)) setFlap(name, record, pruneFlapRecord(record, policy.flapping, now));
    }
  }

  const watchdog: WatchdogInfo | undefined =
    state.watchdog === null
      ? undefined
      : {
          state: 'resolved',
          failure: state.watchdog.failure,
          message: state.watchdog.message,
          since: state.watchdog.since,
        };
  if (state.watchdog !== null) dirty = true;

  const notification = composeNotification({
    cluster: evaluation.cluster,
    at: now,
    firing,
    resolved,
    reminders,
    flapping,
    storm: storm.notice === null ? undefined : storm.info,
    watchdog,
  });
  const next: AlertState = dirty
    ? {
        incidents: Object.fromEntries(incidents),
        flaps: Object.fromEntries(flaps),
        watchdog: null,
        storm: storm.next,
      }
    : state;
  return { notification, state: next };
}

/** After a failed read of a cluster. Node incidents, flap records and the storm stay as they are. */
export function alertsForReadFailure(
  cluster: string,
  failure: ClusterReadFailure | 'unknown',
  message: string,
  state: AlertState,
  policy: AlertPolicy,
  now: number,
): AlertOutcome {
  const previous = state.watchdog;
  const notify =
    previous === null ||
    previous.failure !== failure ||
    reminderDue(previous.lastNotifiedAt, policy, now);
  const since = previous?.since ?? now;
  const lastNotifiedAt = notify ? now : (previous?.lastNotifiedAt ?? now);
  const unchanged =
    previous !== null &&
    previous.failure === failure &&
    previous.message === message &&
    previous.lastNotifiedAt === lastNotifiedAt;
  const next: AlertState = unchanged
    ? state
    : { ...state, watchdog: { failure, message, since, lastNotifiedAt } };
  const notification = notify
    ? composeNotification({
        cluster,
        at: now,
        firing: [],
        resolved: [],
        reminders: [],
        flapping: [],
        watchdog: { state: 'failing', failure, message, since },
      })
    : null;
  return { notification, state: next };
}
