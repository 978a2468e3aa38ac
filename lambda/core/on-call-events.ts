/**
 * On-call events: what a notification means to a paging tool (PagerDuty, Opsgenie), one event per
 * incident it opens or ends, keyed by the incident key (incident-keys.ts). Pure.
 *
 * - A node that fires (or flaps) triggers its incident; a resolved node resolves it. A REMINDER
 *   sends nothing: the tool's incident is still open, and paging it again is the tool's business.
 * - The watchdog's incident triggers when it pages (`failing`) and resolves when reads work again;
 *   a storm triggers when it starts or spreads and resolves when it ends; its nodes share its key
 *   (one incident for one outage), and it resolves once the last of them does (incidents.ts).
 * - A NOTICE is not an incident: nothing.
 * - A notification that opens more than ON_CALL_NODE_EVENTS node incidents opens one group
 *   incident instead (a STORM-keyed event whose `members` are their keys): a storm of thousands of
 *   nodes is a few pages, not thousands (nor a tool's rate limit spent at once), and no node is
 *   dropped. Every resolve is made: the lane pairs a member's with its group (on-call-delivery.ts).
 */
import { incidentKey } from './incident-keys.js';
import type { AlertNode, Notification, Severity } from './notification.js';

/** The most node incidents one notification opens on a receiver; above it, one group incident. */
export const ON_CALL_NODE_EVENTS = 50;

export interface OnCallEvent {
  readonly action: 'trigger' | 'resolve';
  /** The incident key: PagerDuty's `dedup_key`, Opsgenie's `alias`. */
  readonly key: string;
  readonly cluster: string;
  /** The node, or the cluster for the watchdog's and a storm's incidents. */
  readonly source: string;
  readonly severity: Severity;
  /** One line, as read (renderers sanitise and bound it). */
  readonly summary: string;
  /** The check that made it (watchdog clock, epoch ms). */
  readonly at: number;
  /** A few facts for the tool's details, as read. */
  readonly details: Readonly<Record<string, string>>;
  /** A group incident's trigger: the node incident keys it stands for. */
  readonly members?: readonly string[] | undefined;
}

function nodeEvent(
  n: Notification,
  x: AlertNode,
  action: OnCallEvent['action'],
  severity: Severity,
): OnCallEvent | null {
  // A node of a storm that triggers with it: the storm's own event, under the same key, says it.
  if (!x.key || (action === 'trigger' && x.key === n.storm?.key)) return null;
  const what = action === 'resolve' ? `resolved (${x.resolution ?? 'recovered'})` : x.verdict;
  const details: Record<string, string> = { verdict: x.verdict, reason: x.reason };
  if (x.zone) details.zone = x.zone;
  if (x.instance) details.instance = x.instance;
  if (x.nodeGroup) details.nodeGroup = x.nodeGroup;
  return {
    action,
    key: x.key,
    cluster: n.cluster,
    source: x.name,
    severity,
    summary: `[${n.cluster}] node ${x.name} ${what}: ${x.reason}`,
    at: n.at,
    details,
  };
}

/** The watchdog's and the storm's events of `n`: each triggers critical and resolves info. */
function clusterEvents(n: Notification): OnCallEvent[] {
  const events: OnCallEvent[] = [];
  const event = (opens: boolean, key: string, what: string, details: Record<string, string>) =>
    events.push({
      cluster: n.cluster,
      source: n.cluster,
      at: n.at,
      action: opens ? 'trigger' : 'resolve',
      key,
      severity: opens ? 'critical' : 'info',
      summary: `[${n.cluster}] ${what}`,
      details,
    });
  const { watchdog: w, storm: s } = n;
  if (w?.key) {
    const failing = w.state === 'failing';
    const what = failing
      ? `the watchdog cannot read the cluster (${w.failure}): ${w.message}`
      : 'the watchdog can read the cluster again';
    event(failing, w.key, what, { failure: w.failure, message: w.message });
  }
  if (s?.key) {
    const active = (s.state ?? 'active') === 'active';
    const what = active
      ? `storm: ${s.clusterSilent} of ${s.clusterTotal} nodes silent (${s.scope})`
      : 'the storm is over';
    event(active, s.key, what, { scope: s.scope, zones: s.zones.map((z) => z.zone).join(' ') });
  }
  return events;
}

/** The events `n` makes, watchdog and storm first, then nodes (firing, flapping, resolved). */
export function onCallEvents(n: Notification): OnCallEvent[] {
  if (n.kind === 'NOTICE') return [];
  const nodes = (list: readonly AlertNode[], action: OnCallEvent['action'], severity: Severity) =>
    list.flatMap((x) => nodeEvent(n, x, action, severity) ?? []);
  const opened = [
    ...nodes(n.firing, 'trigger', 'critical'),
    ...nodes(n.flapping, 'trigger', 'warning'),
  ];
  const grouped = opened.length > ON_CALL_NODE_EVENTS ? [groupEvent(n, opened)] : opened;
  return [...clusterEvents(n), ...grouped, ...nodes(n.resolved, 'resolve', 'info')];
}

/** The one incident of the node incidents `opened` opens (more than ON_CALL_NODE_EVENTS). */
function groupEvent(n: Notification, opened: readonly OnCallEvent[]): OnCallEvent {
  const names = opened.map((e) => e.source);
  const more = names.length > 5 ? ` and ${names.length - 5} more` : '';
  return {
    action: 'trigger',
    key: incidentKey('storm', n.cluster, `nodes of ${n.id}`, n.at),
    cluster: n.cluster,
    source: n.cluster,
    severity: opened.some((e) => e.severity === 'critical') ? 'critical' : 'warning',
    summary: `[${n.cluster}] ${names.length} nodes down: ${names.slice(0, 5).join(', ')}${more}`,
    at: n.at,
    details: { nodes: names.join(' ') },
    members: opened.map((e) => e.key),
  };
}

/** The resolve of a group incident of `cluster`, once the last of its nodes resolved (at `at`). */
export function groupResolved(cluster: string, key: string, at: number): OnCallEvent {
  return {
    action: 'resolve',
    key,
    cluster,
    source: cluster,
    severity: 'info',
    summary: `[${cluster}] every node of the group is back`,
    at,
    details: {},
  };
}
