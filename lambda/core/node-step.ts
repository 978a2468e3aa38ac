/**
 * One node in one check: from its verdict, its open incident and its flap record (as remembered
 * from earlier checks), to its next incident and flap record and what it adds to the check's
 * notification (at most one entry: firing, resolved, reminder or flapping). Pure; the same
 * incident and flap record objects come back when they did not change.
 *
 * Incidents
 * - A node whose verdict alerts (`expired`, `not-ready`, `missing-lease`) and has no incident opens
 *   one: FIRING. A change between alerting verdicts only updates the incident.
 * - It resolves when the node is `healthy` (resolution 'recovered') or `suppressed` (resolution =
 *   `suppressedBy`; 'excluded' when the evaluator gave no cause), or the node is gone: verdict
 *   `orphaned-lease`, or absent from the evaluation (both 'node-deleted'; see `goneStep`).
 * - `invalid` and `suspect` (a silence our looks have not confirmed yet) neither open nor
 *   resolve: the incident stays as it is (and reminders go on). A recovery is announced only when
 *   a lease is seen renewed (or the node is removed), never because a silence is unconfirmed.
 * - A node seen for the first time already `expired` (`newlySeen`: no earlier observation of its
 *   lease, so its silence rests on the kubelet's own clock) opens nothing yet, nor does one whose
 *   `expired` still rests on that first sight (node-verdicts.ts): a look on the watchdog's clock
 *   decides. Storm nodes are not held back.
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
 * Stuck removals
 * - A node suppressed by an expected removal (cordoned, being deleted, autoscaler or Karpenter
 *   taint) whose verdict would otherwise be silent (`expired`, `missing-lease`) is remembered in
 *   `removal`: the first check that saw it so, on the watchdog's clock. From
 *   `stuckRemovalSeconds` after that (exactly at it counts) it is judged by that verdict, with a
 *   reason saying the removal seems stuck, and pages like any other node. A node that stops being
 *   both (renews, is un-cordoned, is deleted) is forgotten; its incident resolves as usual.
 * - Not the user's exclusion (it is for good), nor a silence or maintenance window (they have an
 *   end the user chose: silences.ts), and not a suppressed `not-ready` node (its kubelet is alive
 *   and says so: nothing is hidden).
 * - A silence or window taking an incident over resolves it (listed SILENCED, not as a recovery)
 *   but is no flap transition: a node still down when it ends fires again, not FLAPPING.
 *
 * Storms (the storm itself is decided per check, in incidents.ts)
 * - A storm node's incident takes the storm's key (one incident in the on-call tool).
 * - A storm node whose incident opens while the storm is not notifying opens silently.
 * - When the storm notifies (starts or spreads), every storm node with an open incident is listed,
 *   in `firing` when it opens then, else in `reminders` (paged already), and counts as notified.
 */

import { alertNode, goneNode, sameSnapshot, snapshotOf } from './alert-nodes.js';
import { type AlertPolicy, reminderDue } from './alert-policy.js';
import type { Flapping, FlapRecord, Incident } from './alert-state.js';
import { formatAge } from './duration.js';
import { flapDetectionOn, pruneFlapRecord, recordTransition, stableAgain } from './flapping.js';
import { incidentKey, nodeIncidentKey } from './incident-keys.js';
import { isAlerting, isSilent, type NodeVerdict } from './model.js';
import { type AlertNode, isSilencing, type Resolution } from './notification.js';
import { isRemovalCause, removalPhrase } from './suppression.js';

/** What is remembered about one node between checks. */
export interface NodeMemory {
  readonly incident: Incident | undefined;
  readonly flap: FlapRecord | undefined;
  /** Since when it has been suppressed by an expected removal and silent (see Stuck removals). */
  readonly removal?: number | undefined;
}

/** One node's entry in the check's notification. */
export interface NodeEntry {
  readonly list: 'firing' | 'resolved' | 'reminders' | 'flapping';
  readonly node: AlertNode;
}

/** The node's next memory, and its entry in the notification (null: nothing to say). */
export interface NodeStep extends NodeMemory {
  readonly entry: NodeEntry | null;
}

/** What one check knows that is the same for every node. */
export interface CheckContext {
  /** The cluster's name: part of every incident key (incident-keys.ts). */
  readonly cluster: string;
  readonly policy: AlertPolicy;
  readonly now: number;
  /** A storm starts or spreads in this check: its STORM notification lists every storm node. */
  readonly stormNotifies: boolean;
  /** The incident key of the storm that lasts past this check: its nodes' incidents take it. */
  readonly stormKey?: string | undefined;
}

/** The incident after this check's verdict, before flapping and storms have their say. */
interface IncidentChange {
  readonly incident: Incident | undefined;
  readonly transition: 'open' | 'resolve' | null;
  /** How the incident resolved, for 'resolve'. */
  readonly resolution: Resolution | undefined;
  /** When the incident (open, or just resolved) opened. */
  readonly since: number | undefined;
  /** The key of the incident (open, or just resolved). */
  readonly key: string | undefined;
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

function notified(incident: Incident, now: number): Incident {
  return incident.lastNotifiedAt === now ? incident : { ...incident, lastNotifiedAt: now };
}

function entry(list: NodeEntry['list'], node: AlertNode): NodeEntry {
  return { list, node };
}

/**
 * A node that is gone (`orphaned-lease`, given as `node`; or absent from the evaluation, no
 * `node`): its incident resolves and it is released from flapping, at once; nothing is kept.
 */
export function goneStep(
  cluster: string,
  name: string,
  node: NodeVerdict | undefined,
  memory: NodeMemory,
): NodeStep {
  const { incident, flap } = memory;
  const forgotten = { incident: undefined, flap: undefined };
  if (incident === undefined && flap?.flapping === undefined) return { ...forgotten, entry: null };
  const since = incident?.openedAt;
  const key =
    incident === undefined ? flap?.flapping?.key : nodeIncidentKey(cluster, name, incident);
  if (node !== undefined) {
    return { ...forgotten, entry: entry('resolved', alertNode(node, since, 'node-deleted', key)) };
  }
  const last = incident ?? flap?.flapping?.node;
  if (last === undefined) return { ...forgotten, entry: null };
  return { ...forgotten, entry: entry('resolved', goneNode(name, last, since, key)) };
}

function incidentChange(
  node: NodeVerdict,
  incident: Incident | undefined,
  check: CheckContext,
): IncidentChange {
  const { cluster, now } = check;
  const key = incident === undefined ? undefined : nodeIncidentKey(cluster, node.name, incident);
  if (isAlerting(node.verdict)) {
    if (incident === undefined) {
      const opened = { ...snapshotOf(node), openedAt: now, lastNotifiedAt: now };
      const newKey = incidentKey('node', cluster, node.name, now);
      return {
        incident: opened,
        transition: 'open',
        resolution: undefined,
        since: now,
        key: newKey,
      };
    }
    const updated = sameSnapshot(incident, node) ? incident : { ...incident, ...snapshotOf(node) };
    const since = incident.openedAt;
    return { incident: updated, transition: null, resolution: undefined, since, key };
  }
  if (node.verdict !== 'invalid' && node.verdict !== 'suspect' && incident !== undefined) {
    const resolution = resolutionOf(node);
    const since = incident.openedAt;
    return { incident: undefined, transition: 'resolve', resolution, since, key };
  }
  return { incident, transition: null, resolution: undefined, since: incident?.openedAt, key };
}

/** Since when `node` has been suppressed by an expected removal and silent; undefined if it is not. */
function removalSince(node: NodeVerdict, since: number | undefined, now: number) {
  const cause = node.suppressedBy;
  const silent = node.suppressedVerdict !== undefined && isSilent(node.suppressedVerdict);
  if (node.verdict !== 'suppressed' || !silent || cause === undefined || !isRemovalCause(cause)) {
    return undefined;
  }
  return since ?? now;
}

/** The node as judged once its removal has been stuck too long: by the verdict it hides. */
function stuckRemoval(node: NodeVerdict, since: number | undefined, check: CheckContext) {
  const limitMs = check.policy.stuckRemovalSeconds * 1000;
  const cause = node.suppressedBy;
  const verdict = node.suppressedVerdict;
  if (since === undefined || check.now - since < limitMs) return node;
  if (cause === undefined || !isRemovalCause(cause) || verdict === undefined) return node;
  const stuckFor = formatAge((check.now - since) / 1000);
  const limit = formatAge(check.policy.stuckRemovalSeconds);
  return {
    ...node,
    verdict,
    reason: `removal seems stuck: ${removalPhrase(cause)} and silent for ${stuckFor} (limit ${limit}): ${node.reason}`,
  };
}

/** A node in the evaluation (one with an `orphaned-lease` is gone: see `goneStep`). */
export function nodeStep(
  node: NodeVerdict,
  stormNode: boolean,
  memory: NodeMemory,
  check: CheckContext,
): NodeStep {
  if (node.verdict === 'orphaned-lease') return goneStep(check.cluster, node.name, node, memory);
  const removal = removalSince(node, memory.removal, check.now);
  const step = verdictStep(stuckRemoval(node, removal, check), stormNode, memory, check);
  return removal === undefined ? step : { ...step, removal };
}

function verdictStep(
  node: NodeVerdict,
  stormNode: boolean,
  memory: NodeMemory,
  check: CheckContext,
): NodeStep {
  const { policy, now } = check;
  const flap =
    memory.flap === undefined ? undefined : pruneFlapRecord(memory.flap, policy.flapping, now);
  if (node.verdict === 'expired' && memory.incident === undefined && node.newlySeen && !stormNode) {
    // Seen for the first time and already silent: that rests on the kubelet's clock alone (a
    // clock minutes behind looks like a dead node). The next check, on our own clock, decides.
    // A not-ready node is not held: its Node says Ready=False, there is no silence to confirm.
    return { incident: undefined, flap, entry: null };
  }
  const change = incidentChange(node, memory.incident, check);
  // A silence taking an incident over is not a recovery: not a flap (its end does not page FLAPPING).
  const counts = change.transition !== null && !isSilencing(change.resolution);
  if (counts && flapDetectionOn(policy.flapping)) {
    // Flapping takes over the transitions of a node that flaps.
    const counted = recordTransition(
      flap,
      snapshotOf(node),
      change.resolution,
      policy.flapping,
      now,
    );
    if (counted.outcome === 'started') {
      const flapping = alertNode(node, change.since, change.resolution, change.key);
      return {
        incident: change.incident,
        flap: episodeKeyed(counted.record, change.key),
        entry: entry('flapping', flapping),
      };
    }
    if (counted.outcome === 'held') {
      const episode = counted.record.flapping?.key;
      return { incident: inheritKey(change, episode), flap: counted.record, entry: null };
    }
    return plainStep(node, stormNode, change, counted.record, check);
  }
  if (change.transition === null && flap?.flapping !== undefined) {
    return flappingStep(node, change, flap, flap.flapping, check);
  }
  return plainStep(node, stormNode, change, flap, check);
}

/** The flap record of an episode that starts now, holding the key of its incident. */
function episodeKeyed(record: FlapRecord, key: string | undefined): FlapRecord {
  const flapping = record.flapping;
  if (flapping === undefined || key === undefined) return record;
  return { ...record, flapping: { ...flapping, key } };
}

/** An incident that opens while its node flaps takes the episode's key. */
function inheritKey(change: IncidentChange, episode: string | undefined): Incident | undefined {
  const incident = change.incident;
  if (change.transition !== 'open' || incident === undefined || episode === undefined) {
    return incident;
  }
  return { ...incident, key: episode };
}

/** A flapping node without a transition: released once stable, silent until then. */
function flappingStep(
  node: NodeVerdict,
  change: IncidentChange,
  flap: FlapRecord,
  flapping: Flapping,
  check: CheckContext,
): NodeStep {
  const { incident, since } = change;
  // An unconfirmed silence is not stable: released neither as firing nor as recovered.
  if (node.verdict === 'suspect' || !stableAgain(flapping, check.policy.flapping, check.now)) {
    return { incident, flap, entry: null };
  }
  if (incident !== undefined) {
    const firing = alertNode(node, since, undefined, change.key);
    return {
      incident: notified(incident, check.now),
      flap: undefined,
      entry: entry('firing', firing),
    };
  }
  const ended = resolutionOf(node) ?? flapping.resolution ?? 'recovered';
  const released = alertNode(node, undefined, ended, flapping.key);
  return { incident, flap: undefined, entry: entry('resolved', released) };
}

/** Plain transitions, storms and reminders. */
function plainStep(
  node: NodeVerdict,
  stormNode: boolean,
  change: IncidentChange,
  flap: FlapRecord | undefined,
  check: CheckContext,
): NodeStep {
  const { incident, transition, resolution, since, key } = change;
  const quiet = { incident, flap, entry: null };
  if (transition === 'resolve') {
    return { ...quiet, entry: entry('resolved', alertNode(node, since, resolution, key)) };
  }
  if (incident === undefined) return quiet;
  if (transition === 'open' && stormNode && check.stormKey !== undefined) {
    // Part of the outage: the storm's incident (one in the on-call tool), under its key.
    const grouped = { ...incident, key: check.stormKey };
    const named = entry('firing', alertNode(node, since, undefined, check.stormKey));
    return { incident: grouped, flap, entry: check.stormNotifies ? named : null };
  }
  const firing = entry('firing', alertNode(node, since, undefined, key));
  if (transition === 'open') return { ...quiet, entry: firing };
  if (stormNode && check.stormNotifies) {
    // Paged already (its FIRING, or an earlier STORM): named still down, not paged again.
    return {
      incident: notified(incident, check.now),
      flap,
      entry: entry('reminders', firing.node),
    };
  }
  if (reminderDue(incident.lastNotifiedAt, check.policy, check.now)) {
    const reminder = entry('reminders', alertNode(node, since, undefined, key));
    return { incident: notified(incident, check.now), flap, entry: reminder };
  }
  return quiet;
}
