/**
 * The node lists of an email: one section per kind of change (FIRING, REMINDER, FLAPPING,
 * RESOLVED, SILENCED), each a lazy list of entries so that a 100,000-node list is only rendered as far as
 * it fits. A node is shown in full (verdict, renewal, reason, times) or, in storms, as a name in a
 * compact list grouped by zone.
 */
import { formatAge } from '../../../core/duration.js';
import { parseTimestamp } from '../../../core/lease.js';
import type { Verdict } from '../../../core/model.js';
import {
  type AlertNode,
  type Notification,
  type Resolution,
  splitResolved,
} from '../../../core/notification.js';
import {
  bodyText,
  fmt,
  labelled,
  moment,
  NO_ZONE,
  nodeName,
  period,
  plural,
  utc,
  WIDTH,
  wrap,
  zoneName,
} from './format.js';
import { resolvedWord } from './subject.js';

/** One item of a node list: its text (one or more lines) and how many nodes it shows. */
export interface Entry {
  readonly text: string;
  readonly nodes: number;
  /** Followed by a blank line (detailed node blocks). */
  readonly spaced?: boolean;
}

export interface Section {
  readonly heading: string;
  readonly intro: readonly string[];
  /** Lazy: a 100,000-node list is only rendered as far as it fits. */
  readonly entries: Iterable<Entry>;
  readonly total: number;
}

/** What a section says before its nodes, by its kind (FIRING and RESOLVED say nothing). */
const INTROS: Readonly<Record<string, string>> = {
  REMINDER: 'These incidents are still open; this reminder repeats while they stay open.',
  FLAPPING:
    'These nodes failed and recovered several times in a short while. Further changes for ' +
    'them are held back until they have been stable for a while; a flapping node usually ' +
    'means an overloaded kubelet, a saturated network link or a clock problem.',
  SILENCED:
    'A silence or a maintenance window now covers these nodes: they are not paged while it ' +
    'holds, which does not mean they recovered. A node still down when it ends is paged again.',
};

/** The node sections of `n`, in the order the email lists them; empty lists are left out. */
export function nodeSections(n: Notification): Section[] {
  const compact = n.kind === 'STORM' || n.storm !== undefined;
  const { ended, silenced } = splitResolved(n.resolved);
  // RESOLVED (incidents that ended), then SILENCED (a silence is not a recovery): both closed.
  const lists: [string, readonly AlertNode[], string, boolean][] = [
    ['FIRING', n.firing, 'down', true],
    ['REMINDER', n.reminders, 'still down', true],
    ['FLAPPING', n.flapping, 'going down and up', true],
    ['RESOLVED', ended, resolvedWord(ended), false],
    ['SILENCED', silenced, 'silenced', false],
  ];
  return lists.flatMap(([kind, nodes, what, open]) => {
    if (nodes.length === 0) return [];
    const count = fmt(nodes.length);
    const intro = INTROS[kind];
    return {
      heading:
        compact && kind === 'FIRING'
          ? `NODES DOWN (${count})`
          : `${kind}: ${count} ${plural(nodes.length, 'node')} ${what}`,
      intro: intro ? wrap(intro) : [],
      entries: compact ? compactEntries(nodes) : detailed(nodes, n.at, open),
      total: nodes.length,
    };
  });
}

function* detailed(nodes: readonly AlertNode[], at: number, open: boolean): Generator<Entry> {
  for (const x of nodes) yield nodeEntry(x, at, open);
}

function nodeEntry(x: AlertNode, at: number, open: boolean): Entry {
  const lines = [nodeName(x.name)];
  lines.push(...labelled('  zone', zoneName(x.zone)));
  lines.push(...labelled('  instance', x.instance ? bodyText(x.instance, 128) : '(unknown)'));
  lines.push(...nodeFactLines(x));
  lines.push(...labelled('  verdict', verdictText(x.verdict)));
  lines.push(...labelled('  last renewal', renewalText(x, at)));
  const skew = skewText(x, at);
  if (skew) lines.push(...labelled("  node's clock", skew));
  lines.push(...labelled('  reason', bodyText(x.reason, 500) || '(none given)'));
  const down = downSince(x, at);
  if (open && down !== undefined) lines.push(...labelled('  down since', moment(down, at)));
  if (!open) {
    lines.push(...labelled('  resolution', resolutionText(x.resolution ?? 'recovered')));
    if (x.since !== undefined) {
      lines.push(...labelled('  was down', period(x.since, at)));
    }
  }
  return { text: lines.join('\n'), nodes: 1, spaced: true };
}

/**
 * The node's group, instance type and capacity type, as its labels say (core/node-facts.ts); a
 * fact the node does not carry is left out rather than shown as unknown.
 */
function nodeFactLines(x: AlertNode): string[] {
  const lines: string[] = [];
  const group = x.nodeGroup === undefined ? '' : bodyText(x.nodeGroup, 63);
  const type = x.instanceType === undefined ? '' : bodyText(x.instanceType, 63);
  const capacity = x.capacityType === undefined ? '' : bodyText(x.capacityType, 20);
  if (group) lines.push(...labelled('  node group', group));
  if (type) lines.push(...labelled('  instance type', type));
  if (capacity) lines.push(...labelled('  capacity type', capacity));
  return lines;
}

/**
 * Names a few per line, grouped by zone: for storms, where hundreds of nodes go at once. A DNS
 * suffix shared by every name (`.eu-west-1.compute.internal`) is said once, not on every name.
 */
function compactEntries(nodes: readonly AlertNode[]): Entry[] {
  const names = nodes.map((x) => nodeName(x.name));
  const suffix = commonDnsSuffix(names);
  const byZone = new Map<string, string[]>();
  nodes.forEach((x, i) => {
    const zone = zoneName(x.zone);
    const list = byZone.get(zone) ?? [];
    list.push((names[i] ?? '').slice(0, suffix ? -suffix.length : undefined));
    byZone.set(zone, list);
  });
  const zones = [...byZone.keys()].sort((a, b) =>
    a === NO_ZONE ? 1 : b === NO_ZONE ? -1 : a.localeCompare(b),
  );
  const entries: Entry[] = [];
  if (suffix) entries.push({ text: `  (every name below ends in ${suffix})`, nodes: 0 });
  for (const zone of zones) {
    const list = byZone.get(zone) ?? [];
    entries.push({ text: `  ${zone} (${fmt(list.length)}):`, nodes: 0 }, ...nameLines(list));
  }
  return entries;
}

/** Names joined by commas, as many to a line as fit in the body's width. */
function nameLines(names: readonly string[]): Entry[] {
  const entries: Entry[] = [];
  let line: string[] = [];
  let length = 0;
  for (const name of names) {
    if (line.length > 0 && length + 2 + name.length > WIDTH - 4) {
      entries.push({ text: `    ${line.join(', ')}`, nodes: line.length });
      line = [];
      length = 0;
    }
    length += (line.length > 0 ? 2 : 0) + name.length;
    line.push(name);
  }
  if (line.length > 0) entries.push({ text: `    ${line.join(', ')}`, nodes: line.length });
  return entries;
}

/** The longest `.`-led suffix that every name has (and that leaves something of each), or ''. */
function commonDnsSuffix(names: readonly string[]): string {
  const first = names[0] ?? '';
  let suffix = first.includes('.', 1) ? first.slice(first.indexOf('.', 1)) : '';
  for (const name of names) {
    while (suffix && !(name.endsWith(suffix) && name.length > suffix.length)) {
      const next = suffix.indexOf('.', 1);
      suffix = next > 0 ? suffix.slice(next) : '';
    }
    if (!suffix) break;
  }
  return suffix;
}

const VERDICT_TEXT: Readonly<Record<Verdict, string>> = {
  healthy: 'healthy',
  expired: 'expired (lease not renewed within the grace period)',
  'not-ready': 'not-ready (lease renewing, but the node reports Ready=False)',
  'missing-lease': 'missing-lease (the node has no lease)',
  'orphaned-lease': 'orphaned-lease (lease without a node)',
  suppressed: 'suppressed',
  invalid: 'invalid (lease spec cannot be read)',
  suspect: 'suspect (lease silent past its renew interval, not yet confirmed by a second look)',
};

function verdictText(verdict: Verdict): string {
  return VERDICT_TEXT[verdict] ?? bodyText(String(verdict), 40);
}

const RESOLUTION_TEXT: Readonly<Record<Resolution, string>> = {
  recovered: 'recovered: the lease is renewing again',
  cordoned: 'cordoned (spec.unschedulable): taken out of service on purpose',
  deleting: 'being deleted (deletionTimestamp set)',
  'autoscaler-removal': 'being removed by the cluster autoscaler (ToBeDeletedByClusterAutoscaler)',
  'karpenter-disruption': 'being disrupted by Karpenter',
  'graceful-shutdown': 'shut down gracefully (the kubelet reported it): a planned exit',
  'out-of-service': 'tainted node.kubernetes.io/out-of-service: a planned exit',
  'spot-interruption': 'its Spot instance was reclaimed by EC2: a planned exit',
  'instance-terminated': 'its instance was terminated through the EC2 API: a planned exit',
  excluded: "now excluded by the watchdog's node selector",
  silenced: 'silenced by a user (lease-watchdog silence list)',
  maintenance: "in a maintenance window of the cluster's config",
  'node-deleted': 'the Node was deleted (a lease left behind is orphaned, not a failure)',
};

function resolutionText(resolution: Resolution): string {
  return RESOLUTION_TEXT[resolution] ?? bodyText(String(resolution), 60);
}

/**
 * When the lease was last renewed on the watchdog's clock: `renewTime` moved by the clock offset
 * the watchdog learned for that lease (core/renewal-clock.ts) — the instant the verdict's silence
 * (`silentForSeconds`, the reason's "no lease renewal for …") is timed from. One clock, one number:
 * the email says the same age here, in the reason and in "down since". The raw `renewTime` (the
 * kubelet's clock) is shown only when it disagrees by more than a gap between checks explains.
 */
function renewedAt(x: AlertNode, at: number): number | undefined {
  if (x.renewTime === null || x.silentForSeconds === null) return undefined;
  return at - x.silentForSeconds * 1000;
}

/**
 * Since when a node is down: for a silent lease, the start of its silence (its last renewal on
 * the watchdog's clock), which the incident's opening can only follow — a node first seen silent
 * for 31 minutes has been down 31 minutes, not since this check. Otherwise (a node that reports
 * Ready=False, a missing lease) the incident's opening, when the watchdog first saw it down.
 */
function downSince(x: AlertNode, at: number): number | undefined {
  const silent = x.verdict === 'expired' || x.verdict === 'suspect';
  const start = silent ? renewedAt(x, at) : undefined;
  if (start === undefined) return x.since;
  return x.since === undefined ? start : Math.min(x.since, start);
}

function renewalText(x: AlertNode, at: number): string {
  if (x.renewTime === null) return 'never';
  const ms = parseTimestamp(x.renewTime);
  if (ms === undefined) return `${bodyText(x.renewTime, 64)} (unreadable)`;
  const estimated = renewedAt(x, at);
  if (estimated !== undefined) return moment(estimated, at);
  // No silence measured (a node gone from the cluster): renewTime as the kubelet wrote it.
  const delta = at - ms;
  return delta >= 0
    ? moment(ms, at)
    : `${utc(ms)} (${formatAge(-delta / 1000)} in the future: the node's clock is ahead)`;
}

/**
 * How much longer than the watchdog-clock silence a correct kubelet clock may make a lease look
 * silent: the watchdog times silence from the check that first saw the last renewal, which comes
 * up to one gap between checks later (EventBridge Scheduler's `rate(1 minute)` leaves up to ~119 s
 * between two runs), plus 30s of tolerance.
 */
const BEHIND_TOLERANCE_S = 150;
/** A renewal this much younger than the watchdog-clock silence means the node's clock is ahead. */
const AHEAD_TOLERANCE_S = 30;

/**
 * renewTime is written with the kubelet's clock; the silence is measured on the watchdog's (see
 * renewedAt). When they disagree by more than a gap between checks explains, say what renewTime
 * reads: the node's clock is off. An instant and an offset, never a second age of the silence.
 */
function skewText(x: AlertNode, at: number): string | null {
  const ms = x.renewTime === null ? undefined : parseTimestamp(x.renewTime);
  if (ms === undefined || x.silentForSeconds === null) return null;
  const off = (at - ms) / 1000 - x.silentForSeconds;
  if (off >= -AHEAD_TOLERANCE_S && off <= BEHIND_TOLERANCE_S) return null;
  const way = off > 0 ? 'behind' : 'ahead';
  return `renewTime reads ${utc(ms)}: the node's clock seems ${formatAge(Math.abs(off))} ${way}`;
}
