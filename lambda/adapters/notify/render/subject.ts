/**
 * The SNS subject, and the headline it shares with the body's summary: one line of printable
 * ASCII, at most 99 characters (SNS wants fewer than 100), starting with `[` (punctuation, which
 * SNS accepts as a first character).
 */
import {
  type AlertNode,
  type NoticeInfo,
  type Notification,
  type Resolution,
  type StormInfo,
  splitResolved,
} from '../../../core/notification.js';
import { clusterSilentIn, silentIn } from '../../../core/storms.js';
import { isRemovalCause } from '../../../core/suppression.js';
import { fmt, nodeGroupName, plural, zoneName } from './format.js';
import { DISCOVERY_NOTICES } from './notice-lines.js';
import { asciiText, squeeze, truncate } from './text.js';

/** SNS: "Subjects must be … less than 100 characters long". */
export const SUBJECT_MAX_CHARS = 99;

const CLUSTER_SUBJECT_CHARS = 40;

export function renderSubject(n: Notification): string {
  const cluster =
    truncate(squeeze(asciiText(n.cluster)), CLUSTER_SUBJECT_CHARS, '...') || 'unnamed cluster';
  const head = squeeze(`[${cluster}] ${asciiText(headline(n))}`);
  const { names, total } = subjectNames(n);
  const subject = names.length > 0 ? withNames(head, names, total, SUBJECT_MAX_CHARS) : head;
  return truncate(subject, SUBJECT_MAX_CHARS, '...');
}

/** `FIRING: 2 nodes down`, `STORM: 14 of 20 nodes silent in eu-west-1a`, ... */
export function headline(n: Notification): string {
  if (n.notice) return noticeHeadline(n.notice);
  const watchdog = n.watchdog;
  if (watchdog?.state === 'failing') {
    return `${n.kind}: cannot read cluster (${watchdog.failure})`;
  }
  if (n.storm?.state === 'ended') {
    const parts = [countsPhrase(n, { firing: true }), 'storm over'].filter(Boolean);
    return `${n.kind === 'STORM' ? 'STORM OVER' : n.kind}: ${parts.join('; ')}`;
  }
  if (n.storm && n.kind === 'STORM') {
    const tail = countsPhrase(n, { firing: false });
    return `STORM: ${stormPhrase(n.storm)}${tail ? `; ${tail}` : ''}`;
  }
  const parts: string[] = [];
  const counts = countsPhrase(n, { firing: true });
  if (counts) parts.push(counts);
  if (watchdog?.state === 'resolved') parts.push('cluster readable again');
  const label =
    n.kind === 'WATCHDOG' && watchdog?.state === 'resolved' ? 'WATCHDOG RESOLVED' : n.kind;
  return `${label}: ${parts.join('; ') || 'no node changes'}`;
}

/** `NOTICE: degraded checks: Nodes cannot be read`, ... */
function noticeHeadline(notice: NoticeInfo): string {
  if (notice.topic === 'state-reset') return 'NOTICE: state was unreadable and was reset';
  if (notice.topic === 'checks-overdue') {
    const count = `${fmt(notice.clusters.length)} ${plural(notice.clusters.length, 'cluster')}`;
    return notice.state === 'started'
      ? `NOTICE: checks stopped for ${count}`
      : `NOTICE: checks succeed again for ${count}`;
  }
  if (notice.topic === 'silences-set-aside') {
    return 'NOTICE: a silence was unreadable and was set aside';
  }
  if (notice.topic === 'discovery') return DISCOVERY_NOTICES[notice.change][0];
  return notice.state === 'started'
    ? 'NOTICE: degraded checks: Nodes cannot be read'
    : 'NOTICE: checks complete again: Nodes readable';
}

/**
 * `14 of 20 nodes silent in eu-west-1a`, `3 of 3 nodes silent in node group gpu`, `60 of 60 nodes
 * silent cluster-wide`.
 */
export function stormPhrase(storm: StormInfo): string {
  const groups = storm.nodeGroups ?? [];
  const byGroup = storm.scope === 'node-group' && groups.length > 0;
  if (storm.scope === 'cluster' || (storm.zones.length === 0 && !byGroup)) {
    return `${fmt(clusterSilentIn(storm))} of ${fmt(storm.clusterTotal)} nodes silent cluster-wide`;
  }
  const listed = byGroup
    ? groups.map((g) => ({ name: nodeGroupName(g.nodeGroup), total: g.total, silent: silentIn(g) }))
    : storm.zones.map((z) => ({ name: zoneName(z.zone), total: z.total, silent: silentIn(z) }));
  const silent = listed.reduce((sum, g) => sum + g.silent, 0);
  const total = listed.reduce((sum, g) => sum + g.total, 0);
  const what = byGroup ? 'node group' : 'zone';
  const where =
    listed.length <= 2
      ? `${byGroup ? 'node group ' : ''}${listed.map((g) => g.name).join(', ')}`
      : `${listed.length} ${what}s`;
  return `${fmt(silent)} of ${fmt(total)} nodes silent in ${where}`;
}

/**
 * The node counts: `2 nodes down` alone, `2 down, 1 recovered` when mixed; nodes a silence or a
 * maintenance window took over are counted `silenced`, apart from the recoveries. With
 * `firing: false` (storms) the firing count is left out, as the storm phrase already says it.
 */
function countsPhrase(n: Notification, opts: { firing: boolean }): string {
  const parts: Array<[number, string]> = [];
  if (opts.firing && n.firing.length > 0) parts.push([n.firing.length, 'down']);
  if (n.reminders.length > 0) parts.push([n.reminders.length, 'still down']);
  if (n.flapping.length > 0) parts.push([n.flapping.length, 'flapping']);
  const { ended, silenced } = splitResolved(n.resolved);
  if (ended.length > 0) parts.push([ended.length, resolvedWord(ended)]);
  if (silenced.length > 0) parts.push([silenced.length, 'silenced']);
  const [only] = parts;
  if (parts.length === 1 && only) return `${fmt(only[0])} ${plural(only[0], 'node')} ${only[1]}`;
  return parts.map(([count, word]) => `${fmt(count)} ${word}`).join(', ');
}

/** Removed as expected: the Node deleted, or an expected removal or planned exit (suppression.ts). */
function removed(resolution: Resolution | undefined): boolean {
  if (resolution === undefined || resolution === 'recovered') return false;
  return resolution === 'node-deleted' || isRemovalCause(resolution);
}

/** `recovered`, `removed` (cordoned, deleted, scaled in, a planned exit), or `resolved` when mixed. */
export function resolvedWord(nodes: readonly AlertNode[]): string {
  if (nodes.every((x) => (x.resolution ?? 'recovered') === 'recovered')) return 'recovered';
  return nodes.every((x) => removed(x.resolution)) ? 'removed' : 'resolved';
}

/** Short names for the subject, from the list the headline is about. */
function subjectNames(n: Notification): { names: string[]; total: number } {
  if (n.kind === 'STORM' || n.watchdog?.state === 'failing') return { names: [], total: 0 };
  if (n.notice?.topic === 'checks-overdue') {
    const { clusters } = n.notice;
    return { names: clusters.slice(0, 20).map(shortName), total: clusters.length };
  }
  const list =
    [n.firing, n.flapping, n.reminders, n.resolved].find((nodes) => nodes.length > 0) ?? [];
  // A subject holds at most a handful of names: never map a 100,000-node list.
  return { names: list.slice(0, 20).map((x) => shortName(x.name)), total: list.length };
}

/** `ip-10-0-1-5.eu-west-1.compute.internal` → `ip-10-0-1-5...`; at most 24 characters. */
function shortName(name: string): string {
  const clean = squeeze(asciiText(name)) || '?';
  const dot = clean.indexOf('.');
  const label = dot > 0 ? `${clean.slice(0, dot)}...` : clean;
  return truncate(label, 24, '...');
}

function withNames(head: string, names: readonly string[], total: number, max: number): string {
  const list = (shown: readonly string[]): string => {
    const rest = total - shown.length;
    return `${head} (${shown.join(', ')}${rest > 0 ? `, +${fmt(rest)} more` : ''})`;
  };
  const shown: string[] = [];
  for (const name of names) {
    if (list([...shown, name]).length > max) break;
    shown.push(name);
  }
  return shown.length > 0 ? list(shown) : head;
}
