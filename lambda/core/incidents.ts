/**
 * The alert lifecycle: from a check's verdicts (or a failed read) and the alert state of the
 * previous checks, to at most one notification and the next alert state. Pure: no I/O, no clock
 * (`now` is an argument, epoch ms on the watchdog's clock), no environment.
 *
 * A successful check (`alertsForEvaluation`) is composed of:
 * - the storm step (below; storms.ts for the thresholds),
 * - one step per node in the evaluation (node-step.ts: incidents, reminders, flapping),
 * - a pass over the remembered nodes that are absent from the evaluation (below),
 * - the watchdog incident, if any, resolving (below).
 * A failed read (`alertsForReadFailure`) is watchdog-alerts.ts: it never touches node incidents,
 * flap records or the storm, and sends no node reminders (those that fell due go out with the next
 * successful check): a cluster that cannot be read must not look healthy, nor be guessed at.
 *
 * Absent nodes
 * - A node remembered (open incident, flap record or stuck-removal clock) but absent from the
 *   evaluation is gone: its incident resolves with 'node-deleted', a flapping node is released at
 *   once, in `resolved`, and its records are dropped.
 * - A degraded evaluation (`evaluation.degraded`: the Nodes could not be read) or a suspect one
 *   (`evaluation.suspect`: a list lacking most of the last check) does not prove that an absent
 *   node is gone: incidents, flap records and stuck-removal clocks of absent nodes
 *   are then kept as they are (flap records only lose the transitions that left the window). Nodes present in it are
 *   handled as usual.
 *
 * Grouping (see grouping.ts): one notification per check with every node that changed, sorted by
 * name in each list; null when nothing changed. Headline STORM > WATCHDOG > FIRING > FLAPPING >
 * REMINDER > RESOLVED; an ended storm or a resolved watchdog is the headline only when alone.
 *
 * Storms (see storms.ts for the thresholds)
 * - Storm nodes are the silent nodes (`expired`, `missing-lease`) of the storm zones and node
 *   groups (every silent node for a cluster storm), except flapping ones. A `not-ready` node is
 *   not part of a storm: it fires on its own.
 * - When a storm starts or spreads: one STORM notification (kind STORM, critical, `storm.state`
 *   'active') with the storm nodes that open in it in `firing`, those paged before (a FIRING, an
 *   earlier STORM) in `reminders` (named still down, not paged again), plus any other node that
 *   opened in that check.
 * - Before it starts: while a group is forming, the FIRINGs of its silent nodes wait for it
 *   (storm-forming.ts: at most one renew interval; never a death alone).
 * - While it lasts: incidents still open for nodes joining it, silently (the STORM said so);
 *   nodes outside the storm zones fire as usual; recoveries are RESOLVED as usual; reminders go on.
 * - When it ends: `storm.state` 'ended' with the counts now, riding along with the check's other
 *   changes (kind STORM, severity info, when alone). `storm` is present only in these checks.
 *
 * Watchdog (see watchdog-alerts.ts for failing reads)
 * - The next successful check resolves a watchdog incident: `watchdog.state` 'resolved' with the
 *   failure, last message and since, grouped with that check's node changes; an incident that had
 *   not paged yet (fewer failed checks in a row than `readFailuresBeforePage`) ends silently.
 *
 * State: the same object comes back when nothing in it changed (callers may skip a write): the
 * steps hand back the records they did not change, and the state is rebuilt only when a record,
 * the storm or the watchdog differs from the one it started from.
 * Scale: one pass over the nodes, plus one over the remembered incidents and flap records, with
 * Maps and Sets: linear in the number of nodes.
 */
import type { AlertOutcome, AlertPolicy } from './alert-policy.js';
import type { AlertState, FlapRecord, Incident, StormIncident } from './alert-state.js';
import { pruneFlapRecord } from './flapping.js';
import { composeNotification } from './grouping.js';
import { incidentKey } from './incident-keys.js';
import { type Evaluation, isSilent, type NodeVerdict } from './model.js';
import { goneStep, type NodeEntry, type NodeMemory, type NodeStep, nodeStep } from './node-step.js';
import type { AlertNode, StormInfo, WatchdogInfo } from './notification.js';
import { gather } from './storm-forming.js';
import { detectStorm, inStorm, stormChange } from './storms.js';
import { verdictsOf } from './verdict-list.js';

/** The storm in this check. */
interface StormStep {
  readonly next: StormIncident | null;
  /** What the notification says about the storm, when it starts, spreads or ends. */
  readonly info: StormInfo | undefined;
  /** It starts or spreads in this check. */
  readonly notifies: boolean;
  /** Its incident key, while it lasts. */
  readonly key: string | undefined;
  /** True for a storm node (a silent node of a storm zone or node group). */
  readonly holds: (node: NodeVerdict) => boolean;
}

function stormStep(
  evaluation: Evaluation,
  previous: StormIncident | null,
  policy: AlertPolicy,
  now: number,
): StormStep {
  const detection = detectStorm(evaluation.zones, policy.storm, evaluation.nodeGroups);
  const change = stormChange(previous, detection, evaluation, now);
  const opened = (previous ?? change.next)?.since;
  const key =
    opened === undefined ? undefined : incidentKey('storm', evaluation.cluster, '', opened);
  return {
    next: change.next,
    info: change.notice === null ? undefined : { ...change.info, ...(key ? { key } : {}) },
    key: change.next === null ? undefined : key,
    notifies: change.notice === 'active',
    holds: (node) => isSilent(node.verdict) && inStorm(detection, node),
  };
}

/** The node records as they evolve through one check, and what the nodes add to its notification. */
class CheckRecords {
  readonly incidents: Map<string, Incident>;
  readonly flaps: Map<string, FlapRecord>;
  readonly removals: Map<string, number>;
  readonly entries: NodeEntry[] = [];

  constructor(state: AlertState) {
    this.incidents = new Map(Object.entries(state.incidents));
    this.flaps = new Map(Object.entries(state.flaps));
    this.removals = new Map(Object.entries(state.removals ?? {}));
  }

  memoryOf(name: string): NodeMemory {
    const removal = this.removals.get(name);
    return { incident: this.incidents.get(name), flap: this.flaps.get(name), removal };
  }

  /** Keeps a step's outcome: records that changed are replaced (or dropped), entries collected. */
  apply(name: string, before: NodeMemory, step: NodeStep): void {
    put(this.incidents, name, before.incident, step.incident);
    put(this.flaps, name, before.flap, step.flap);
    put(this.removals, name, before.removal, step.removal);
    if (step.entry !== null) this.entries.push(step.entry);
  }

  list(list: NodeEntry['list']): AlertNode[] {
    return this.entries.filter((entry) => entry.list === list).map((entry) => entry.node);
  }

  /** The next state: `state` itself when nothing in it changed (callers may skip a write). */
  next(state: AlertState, storm: StormIncident | null, gathering: number | undefined): AlertState {
    const unchanged =
      storm === state.storm &&
      gathering === state.gathering &&
      state.watchdog === null &&
      sameRecords(state.incidents, this.incidents) &&
      sameRecords(state.flaps, this.flaps) &&
      sameRecords(state.removals ?? {}, this.removals);
    if (unchanged) return state;
    return {
      incidents: Object.fromEntries(this.incidents),
      flaps: Object.fromEntries(this.flaps),
      watchdog: null,
      storm,
      ...(this.removals.size === 0 ? {} : { removals: Object.fromEntries(this.removals) }),
      ...(gathering === undefined ? {} : { gathering }),
    };
  }
}

/** Replaces (or drops) the record of `name` when the step changed it. */
function put<T>(
  records: Map<string, T>,
  name: string,
  before: T | undefined,
  after: T | undefined,
) {
  if (after === before) return;
  if (after === undefined) records.delete(name);
  else records.set(name, after);
}

/** Remembered nodes absent from the evaluation: gone, unless the evaluation is degraded or suspect. */
function absentNodes(
  evaluation: Evaluation,
  seen: ReadonlySet<string>,
  records: CheckRecords,
  check: { readonly policy: AlertPolicy; readonly now: number },
): void {
  if (evaluation.degraded !== undefined || evaluation.suspect !== undefined) {
    for (const [name, flap] of records.flaps) {
      if (!seen.has(name))
        put(records.flaps, name, flap, pruneFlapRecord(flap, check.policy.flapping, check.now));
    }
    return;
  }
  // A gone node's step only drops records: each map is walked once, a name in the first it is in.
  for (const remembered of [records.incidents, records.flaps, records.removals]) {
    for (const name of remembered.keys()) {
      if (seen.has(name)) continue;
      const memory = records.memoryOf(name);
      records.apply(name, memory, goneStep(evaluation.cluster, name, undefined, memory));
    }
  }
}

/**
 * A storm's incident (its key, which its nodes' incidents share) resolves once, when the last of
 * them does: until then the nodes that recover, and the storm's end, leave its key out (their
 * notifications say so, an on-call tool hears nothing), like an Alertmanager group.
 */
function groupResolves(records: CheckRecords, storm: StormInfo | undefined) {
  const resolved = records.list('resolved');
  const grouped = (key: string | undefined) => key?.startsWith('lw-storm-') === true;
  const ended = storm?.state === 'ended' && grouped(storm.key);
  if (!ended && !resolved.some((x) => grouped(x.key))) return { resolved, storm };
  const open = new Set<string | undefined>();
  for (const incident of records.incidents.values()) {
    if (grouped(incident.key)) open.add(incident.key);
  }
  const keyless = <T extends { readonly key?: string | undefined }>(x: T): T => {
    if (x.key === undefined || !open.has(x.key)) return x;
    const { key: _open, ...rest } = x;
    return rest as T;
  };
  return { resolved: resolved.map(keyless), storm: storm && keyless(storm) };
}

/** True when `after` holds exactly the objects of `before`, key for key. */
function sameRecords<T>(
  before: Readonly<Record<string, T>>,
  after: ReadonlyMap<string, T>,
): boolean {
  if (Object.keys(before).length !== after.size) return false;
  for (const [name, value] of after)
    if (!Object.hasOwn(before, name) || before[name] !== value) return false;
  return true;
}

/** A watchdog incident resolves; one that never paged (a streak shorter than readFailuresBeforePage) ends silently. */
function watchdogResolved({ watchdog }: AlertState, cluster: string): WatchdogInfo | undefined {
  if (watchdog === null || watchdog.lastNotifiedAt === null) return undefined;
  const { failure, message, since } = watchdog;
  const key = incidentKey('watchdog', cluster, '', since);
  return { state: 'resolved', failure, message, since, key };
}

/** After a successful check of a cluster. */
export function alertsForEvaluation(
  evaluation: Evaluation,
  state: AlertState,
  policy: AlertPolicy,
  now: number,
): AlertOutcome {
  const storm = stormStep(evaluation, state.storm, policy, now);
  const records = new CheckRecords(state);
  const check = {
    cluster: evaluation.cluster,
    policy,
    now,
    stormNotifies: storm.notifies,
    stormKey: storm.key,
  };
  // Only the names seen that keep a record after their step: absentNodes asks of no other.
  const seen = new Set<string>();
  const step = (node: NodeVerdict, held: boolean) => {
    const memory = records.memoryOf(node.name);
    if (!held) records.apply(node.name, memory, nodeStep(node, storm.holds(node), memory, check));
    const { name } = node;
    if (records.incidents.has(name) || records.flaps.has(name) || records.removals.has(name)) {
      seen.add(name);
    }
  };
  // Silent nodes that would FIRING now wait for the rest (storm-forming.ts).
  const opening: NodeVerdict[] = [];
  for (const node of verdictsOf(evaluation)) {
    const opens = isSilent(node.verdict) && !records.incidents.has(node.name);
    if (opens && !node.newlySeen && !storm.holds(node)) opening.push(node);
    else step(node, false);
  }
  const gathering = gather(evaluation, opening, state.gathering, { policy: policy.storm, now });
  const held: string[] = [];
  for (const node of opening) {
    if (gathering.holds(node)) held.push(node.name);
    step(node, gathering.holds(node));
  }
  absentNodes(evaluation, seen, records, check);

  const grouped = groupResolves(records, storm.info);
  const notification = composeNotification({
    cluster: evaluation.cluster,
    at: now,
    firing: records.list('firing'),
    resolved: grouped.resolved,
    reminders: records.list('reminders'),
    flapping: records.list('flapping'),
    storm: grouped.storm,
    watchdog: watchdogResolved(state, evaluation.cluster),
  });
  const next = records.next(state, storm.next, gathering.since);
  const { wakeAt } = gathering;
  return { notification, state: next, ...(wakeAt ? { wake: { at: wakeAt, leases: held } } : {}) };
}
