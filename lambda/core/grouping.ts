/**
 * One notification per cluster per check, like an Alertmanager group: the headline kind, its
 * severity and a deterministic id for everything one check has to say. Pure.
 *
 * Headline, first that applies:
 *   STORM (a storm starts or spreads, critical) > WATCHDOG (reads fail, critical) > FIRING
 *   (critical) > FLAPPING (warning) > REMINDER (warning) > RESOLVED (info) > SILENCED (info: the
 *   only changes are silences or maintenance windows taking incidents over; not a recovery) >
 *   STORM (a storm ended, info) > WATCHDOG (reads work again, info).
 * A storm that ended or a watchdog that resolved is the headline only when nothing else happened;
 * otherwise it rides along in `storm` / `watchdog` under the headline of the node changes.
 */
import { createHash } from 'node:crypto';
import {
  type AlertNode,
  isSilencing,
  type NoticeInfo,
  type Notification,
  type NotificationKind,
  type Severity,
  type StormInfo,
  type WatchdogInfo,
} from './notification.js';
import { compareNames } from './verdict-list.js';

export interface CheckChanges {
  readonly cluster: string;
  readonly at: number;
  readonly firing: AlertNode[];
  readonly resolved: AlertNode[];
  readonly reminders: AlertNode[];
  readonly flapping: AlertNode[];
  readonly storm?: StormInfo | undefined;
  readonly watchdog?: WatchdogInfo | undefined;
}

function headline(changes: CheckChanges): { kind: NotificationKind; severity: Severity } | null {
  const stormState = changes.storm?.state ?? 'active';
  if (changes.storm !== undefined && stormState === 'active') {
    return { kind: 'STORM', severity: 'critical' };
  }
  if (changes.watchdog?.state === 'failing') return { kind: 'WATCHDOG', severity: 'critical' };
  if (changes.firing.length > 0) return { kind: 'FIRING', severity: 'critical' };
  if (changes.flapping.length > 0) return { kind: 'FLAPPING', severity: 'warning' };
  if (changes.reminders.length > 0) return { kind: 'REMINDER', severity: 'warning' };
  if (changes.resolved.length > 0) {
    const ended = changes.resolved.some((x) => !isSilencing(x.resolution));
    return { kind: ended ? 'RESOLVED' : 'SILENCED', severity: 'info' };
  }
  if (changes.storm !== undefined) return { kind: 'STORM', severity: 'info' };
  if (changes.watchdog !== undefined) return { kind: 'WATCHDOG', severity: 'info' };
  return null;
}

const byName = (a: AlertNode, b: AlertNode) => compareNames(a.name, b.name);

/** The notification for one check, or null when the check changed nothing worth saying. */
export function composeNotification(changes: CheckChanges): Notification | null {
  const head = headline(changes);
  if (head === null) return null;
  const body = {
    cluster: changes.cluster,
    kind: head.kind,
    severity: head.severity,
    at: changes.at,
    firing: changes.firing.sort(byName),
    resolved: changes.resolved.sort(byName),
    reminders: changes.reminders.sort(byName),
    flapping: changes.flapping.sort(byName),
    ...(changes.storm === undefined ? {} : { storm: changes.storm }),
    ...(changes.watchdog === undefined ? {} : { watchdog: changes.watchdog }),
  };
  return { id: notificationId(body), ...body };
}

/** What tells one notice of a topic from another: its state and since, or the clusters it names. */
function noticeIdentity(notice: NoticeInfo): unknown {
  if (notice.topic === 'degraded') return [notice.state, notice.since];
  if (notice.topic === 'checks-overdue') return [notice.state, notice.clusters];
  if (notice.topic === 'discovery') return [notice.change, notice.message];
  return null;
}

/**
 * sha256 (hex) over what identifies a notification: cluster, time of the check, kind, severity,
 * and per list the node names with their verdict and resolution; the storm's state, scope and
 * zones; the watchdog's state, failure and since; a notice's topic, state and since (or the clusters it names). Reasons
 * and messages are left out: they are prose, not identity. Same inputs, same id (a retried publish deduplicates on it).
 */
export function notificationId(notification: Omit<Notification, 'id'>): string {
  const hash = createHash('sha256');
  const line = (...parts: unknown[]): void => {
    hash.update(JSON.stringify(parts));
    hash.update('\n');
  };
  line('v1', notification.cluster, notification.at, notification.kind, notification.severity);
  const lists = [
    ['firing', notification.firing],
    ['resolved', notification.resolved],
    ['reminders', notification.reminders],
    ['flapping', notification.flapping],
  ] as const;
  for (const [list, nodes] of lists) {
    line(list, nodes.length);
    for (const node of nodes) line(node.name, node.verdict, node.resolution ?? null);
  }
  const storm = notification.storm;
  if (storm !== undefined) {
    line('storm', storm.state ?? 'active', storm.scope, storm.clusterTotal, storm.clusterSilent);
    for (const zone of storm.zones) line(zone.zone, zone.total, zone.silent);
    for (const group of storm.nodeGroups ?? [])
      line('group', group.nodeGroup, group.total, group.silent);
  }
  const watchdog = notification.watchdog;
  if (watchdog !== undefined) line('watchdog', watchdog.state, watchdog.failure, watchdog.since);
  const notice = notification.notice;
  if (notice !== undefined) {
    line('notice', notice.topic, noticeIdentity(notice));
  }
  return hash.digest('hex');
}
