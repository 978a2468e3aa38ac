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
 * Flapping (the record's window: flapping.ts)
 * - A transition is an incident opening or resolving. They are counted inside a sliding window
 *   (`now - t <= windowSeconds`, inclusive); the transition that brings the count to
 *   `transitions` (default 3: open, resolve, open) puts the node in FLAPPING. `transitions <= 0`
 *   turns flap detection off.
 * - While flapping, transitions are not counted, only the time of the latest one is kept: the node
 *   is released once `now - lastTransitionAt >= stableSeconds`.
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

import { type AlertPolicy, reminderDue } from './alert-policy.js';
import type { Flapping, FlapRecord, Incident, NodeSnapshot } from './alert-state.js';
import { formatAge } from './duration.js';
import { pruneFlapRecord } from './flapping.js';
import { incidentKey } from './incident-keys.js';
import { isAlerting, isSilent, type NodeFacts, type NodeVerdict } from './model.js';
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
interface CheckContext {
  /** The cluster's name: part of every incident key (incident-keys.ts). */
  readonly cluster: string;
  readonly policy: AlertPolicy;
  readonly now: number;
  /** A storm starts or spreads in this check: its STORM notification lists every storm node. */
  readonly stormNotifies: boolean;
  /** The incident key of the storm that lasts past this check: its nodes' incidents take it. */
  readonly stormKey?: string | undefined;
}

/** A node in the evaluation (one with an `orphaned-lease` is gone: see `goneStep`). */
export function nodeStep(
  node: NodeVerdict,
  stormNode: boolean,
  memory: NodeMemory,
  check: CheckContext,
): NodeStep {
  if (node.verdict === 'orphaned-lease') return goneStep(check.cluster, node.name, node, memory);
  const { judged, removal } = stuckRemoval(node, memory.removal, check);
  const step = verdictStep(judged, stormNode, memory, check);
  return removal === undefined ? step : { ...step, removal };
}

/**
 * Since when `node` has been suppressed by an expected removal and silent (undefined if it is
 * not), and the node as judged: by the verdict it hides once its removal has been stuck too long.
 */
function stuckRemoval(node: NodeVerdict, since: number | undefined, check: CheckContext) {
  const { now, policy } = check;
  const cause = node.suppressedBy;
  const verdict = node.suppressedVerdict;
  const silent = node.verdict === 'suppressed' && verdict !== undefined && isSilent(verdict);
  if (!silent || cause === undefined || !isRemovalCause(cause)) {
    return { judged: node, removal: undefined };
  }
  const removal = since ?? now;
  if (now - removal < policy.stuckRemovalSeconds * 1000) return { judged: node, removal };
  const stuckFor = formatAge((now - removal) / 1000);
  const limit = formatAge(policy.stuckRemovalSeconds);
  const reason = `removal seems stuck: ${removalPhrase(cause)} and silent for ${stuckFor} (limit ${limit}): ${node.reason}`;
  return { judged: { ...node, verdict, reason }, removal };
}

function verdictStep(
  node: NodeVerdict,
  stormNode: boolean,
  memory: NodeMemory,
  check: CheckContext,
): NodeStep {
  const { policy, now } = check;
  const flap = memory.flap && pruneFlapRecord(memory.flap, policy.flapping, now);
  if (node.verdict === 'expired' && memory.incident === undefined && node.newlySeen && !stormNode) {
    // Seen for the first time and already silent: that rests on the kubelet's clock alone (a
    // clock minutes behind looks like a dead node). The next check, on our own clock, decides.
    // A not-ready node is not held: its Node says Ready=False, there is no silence to confirm.
    return { incident: undefined, flap, entry: null };
  }
  // Nearly every node of nearly every check: nothing open, nothing to open, no flap record.
  if (memory.incident === undefined && flap === undefined && !isAlerting(node.verdict)) {
    return { incident: undefined, flap, entry: null };
  }
  const c = nodeCase(node, stormNode, { incident: memory.incident, flap }, check);
  // A silence taking an incident over is not a recovery: not a flap (its end does not page FLAPPING).
  const counts = c.transition !== null && !isSilencing(c.resolution);
  // Flapping takes over the transitions of a node that flaps.
  if (counts && policy.flapping.transitions > 0) return flapTransition(c);
  if (c.transition === null && flap?.flapping !== undefined) return flappingStep(c, flap.flapping);
  return plainStep(c);
}

/** One node in this check: its incident after the verdict, before flapping and storms have their say. */
interface NodeCase {
  readonly node: NodeVerdict;
  readonly stormNode: boolean;
  readonly check: CheckContext;
  /** Its flap record, without the transitions that left the window. */
  readonly flap: FlapRecord | undefined;
  readonly incident: Incident | undefined;
  readonly transition: 'open' | 'resolve' | null;
  /** How the incident resolved, for 'resolve'. */
  readonly resolution?: Resolution | undefined;
  /** When the incident (open, or just resolved) opened. */
  readonly since?: number | undefined;
  /** The key of the incident (open, or just resolved). */
  readonly key?: string | undefined;
}

function nodeCase(
  node: NodeVerdict,
  stormNode: boolean,
  { incident, flap }: NodeMemory,
  check: CheckContext,
): NodeCase {
  const { cluster, now } = check;
  const base = { node, stormNode, check, flap };
  if (incident === undefined) {
    if (!isAlerting(node.verdict)) return { ...base, incident, transition: null };
    const opened = { ...snapshotOf(node), openedAt: now, lastNotifiedAt: now };
    const key = incidentKey('node', cluster, node.name, now);
    return { ...base, incident: opened, transition: 'open', since: now, key };
  }
  const known = { ...base, since: incident.openedAt, key: keyOf(cluster, node.name, incident) };
  if (isAlerting(node.verdict)) {
    const updated = sameSnapshot(incident, node) ? incident : { ...incident, ...snapshotOf(node) };
    return { ...known, incident: updated, transition: null };
  }
  if (node.verdict === 'invalid' || node.verdict === 'suspect') {
    return { ...known, incident, transition: null };
  }
  return { ...known, incident: undefined, transition: 'resolve', resolution: resolutionOf(node) };
}

/** A transition, with flap detection on: counted, and taken over once the node flaps. */
function flapTransition(c: NodeCase): NodeStep {
  const { flap, check } = c;
  const node = snapshotOf(c.node);
  const was = flap?.flapping;
  if (was !== undefined) {
    // Already flapping: silent; only the latest transition is kept. An incident that opens takes
    // the episode's key.
    const { key } = was;
    const { resolution } = c;
    const now = check.now;
    const flapping = { ...was, lastTransitionAt: now, node, ...(resolution ? { resolution } : {}) };
    const opened = c.transition === 'open' && c.incident !== undefined && key !== undefined;
    const incident = opened ? { ...(c.incident as Incident), key } : c.incident;
    return { incident, flap: { transitions: flap?.transitions ?? [], flapping }, entry: null };
  }
  const transitions = [...(flap?.transitions ?? []), check.now];
  if (transitions.length < check.policy.flapping.transitions) {
    return plainStep({ ...c, flap: { transitions } });
  }
  // This transition makes the node flap: one FLAPPING notice instead of its FIRING or RESOLVED.
  const flapping: Flapping = {
    since: check.now,
    lastTransitionAt: check.now,
    node,
    ...(c.resolution === undefined ? {} : { resolution: c.resolution }),
    ...(c.key === undefined ? {} : { key: c.key }),
  };
  const entry = shown(c, 'flapping', c.resolution, c.key);
  return { incident: c.incident, flap: { transitions, flapping }, entry };
}

/** A flapping node without a transition: released once stable, silent until then. */
function flappingStep(c: NodeCase, flapping: Flapping): NodeStep {
  const { node, incident, flap, check } = c;
  const stable =
    check.now - flapping.lastTransitionAt >= check.policy.flapping.stableSeconds * 1000;
  // An unconfirmed silence is not stable: released neither as firing nor as recovered.
  if (node.verdict === 'suspect' || !stable) return { incident, flap, entry: null };
  if (incident !== undefined) {
    const entry = shown(c, 'firing', undefined, c.key);
    return { incident: notified(incident, check.now), flap: undefined, entry };
  }
  const ended = resolutionOf(node) ?? flapping.resolution ?? 'recovered';
  const released = alertNode(node, undefined, ended, flapping.key);
  return { incident, flap: undefined, entry: { list: 'resolved', node: released } };
}

/** Plain transitions, storms and reminders. */
function plainStep(c: NodeCase): NodeStep {
  const { incident, flap, transition, stormNode, check } = c;
  const quiet = { incident, flap, entry: null };
  if (transition === 'resolve')
    return { ...quiet, entry: shown(c, 'resolved', c.resolution, c.key) };
  if (incident === undefined) return quiet;
  if (transition === 'open' && stormNode && check.stormKey !== undefined) {
    // Part of the outage: the storm's incident (one in the on-call tool), under its key.
    const grouped = { ...incident, key: check.stormKey };
    const named = shown(c, 'firing', undefined, check.stormKey);
    return { incident: grouped, flap, entry: check.stormNotifies ? named : null };
  }
  if (transition === 'open') return { ...quiet, entry: shown(c, 'firing', undefined, c.key) };
  // A STORM names a node paged already (its FIRING, or an earlier STORM) still down, not paged again.
  const named = stormNode && check.stormNotifies;
  if (named || reminderDue(incident.lastNotifiedAt, check.policy, check.now)) {
    const entry = shown(c, 'reminders', undefined, c.key);
    return { incident: notified(incident, check.now), flap, entry };
  }
  return quiet;
}

const GONE_REASON = 'no longer in the cluster: neither its Node nor its Lease was found';

/**
 * A node that is gone (`orphaned-lease`, given as `node`; or absent from the evaluation, no
 * `node`, shown as last remembered): its incident resolves and it is released from flapping, at
 * once; nothing is kept.
 */
export function goneStep(
  cluster: string,
  name: string,
  node: NodeVerdict | undefined,
  { incident, flap }: NodeMemory,
): NodeStep {
  const forgotten = { incident: undefined, flap: undefined, entry: null };
  const last = incident ?? flap?.flapping?.node;
  if (last === undefined) return forgotten;
  const key = incident === undefined ? flap?.flapping?.key : keyOf(cluster, name, incident);
  const gone = node ?? { ...last, name, reason: GONE_REASON, silentForSeconds: null };
  const entry = alertNode(gone, incident?.openedAt, 'node-deleted', key);
  return { ...forgotten, entry: { list: 'resolved', node: entry } };
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

/** The key of a node's incident (a key it inherited while flapping, or from a storm, wins). */
function keyOf(cluster: string, name: string, incident: Incident): string {
  return incident.key ?? incidentKey('node', cluster, name, incident.openedAt);
}

function notified(incident: Incident, now: number): Incident {
  return incident.lastNotifiedAt === now ? incident : { ...incident, lastNotifiedAt: now };
}

/** The node facts that are present (stored state and notifications carry no undefined keys). */
function factsOf(node: NodeFacts): NodeFacts {
  return {
    ...(node.nodeGroup === undefined ? {} : { nodeGroup: node.nodeGroup }),
    ...(node.instanceType === undefined ? {} : { instanceType: node.instanceType }),
    ...(node.capacityType === undefined ? {} : { capacityType: node.capacityType }),
  };
}

/** What an incident (and a flap record) remembers of a node. */
function snapshotOf(node: NodeVerdict): NodeSnapshot {
  return {
    verdict: node.verdict,
    zone: node.zone,
    instance: node.instance,
    renewTime: node.renewTime,
    ...factsOf(node),
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

/** The node as a notification lists it (no undefined keys): its verdict, or as last remembered. */
function alertNode(
  node: Omit<AlertNode, 'since' | 'resolution' | 'key'>,
  since: number | undefined,
  resolution: Resolution | undefined,
  key: string | undefined,
): AlertNode {
  return {
    name: node.name,
    zone: node.zone,
    instance: node.instance,
    ...factsOf(node),
    verdict: node.verdict,
    reason: node.reason,
    renewTime: node.renewTime,
    silentForSeconds: node.silentForSeconds,
    ...(since === undefined ? {} : { since }),
    ...(resolution === undefined ? {} : { resolution }),
    ...(key === undefined ? {} : { key }),
  };
}

/** The case's node in `list`, since its incident opened. */
function shown(
  c: NodeCase,
  list: NodeEntry['list'],
  resolution: Resolution | undefined,
  key: string | undefined,
): NodeEntry {
  return { list, node: alertNode(c.node, c.since, resolution, key) };
}
