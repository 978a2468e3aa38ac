/**
 * Rendering a Notification as the machine-readable document (document-schema.ts). Pure: the only
 * clock is `n.at`. Every string from the cluster is sanitised (control, bidi and invisible
 * characters removed, bounded), and the whole document fits in DOCUMENT_MAX_BYTES UTF-8 bytes:
 * nodes are listed, most urgent first, while they fit, and `nodesOmitted` says how many were left
 * out.
 */
import {
  type AlertNode,
  type NoticeInfo,
  type Notification,
  type StormInfo,
  splitResolved,
  type WatchdogInfo,
} from '../../../core/notification.js';
import { clusterSilentIn, silentIn } from '../../../core/storms.js';
import type { DocumentNode, NODE_CHANGES, NotificationDocument } from './document-schema.js';
import { DOCUMENT_SCHEMA } from './document-version.js';
import { bodyText } from './format.js';
import { headline, renderSubject } from './subject.js';
import { utf8Bytes } from './text.js';

/**
 * The most UTF-8 bytes one document takes. SNS repeats it under five protocol keys, escaped, next
 * to the email text, all within 262,144 bytes: 32,000 lists about a hundred nodes in full.
 */
export const DOCUMENT_MAX_BYTES = 32_000;
/** At most this many zones and node groups are listed (in the document and the attributes). */
export const MAX_LISTED_VALUES = 100;
/** The longest zone or node group value kept (label values are at most 63 characters). */
const VALUE_MAX_CHARS = 100;

function optionalText(text: string | null | undefined, max: number): string | null {
  if (text === null || text === undefined) return null;
  return bodyText(text, max) || null;
}

function isoTime(ms: number | undefined): string | null {
  if (ms === undefined || !Number.isFinite(ms)) return null;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export type Change = (typeof NODE_CHANGES)[number];

function documentNode(x: AlertNode, change: Change): DocumentNode {
  return {
    name: bodyText(x.name, 253) || '(unnamed)',
    change,
    verdict: x.verdict,
    zone: optionalText(x.zone, VALUE_MAX_CHARS),
    instance: optionalText(x.instance, 100),
    nodeGroup: optionalText(x.nodeGroup, VALUE_MAX_CHARS),
    instanceType: optionalText(x.instanceType, 100),
    capacityType: optionalText(x.capacityType, 40),
    renewTime: optionalText(x.renewTime, 64),
    silentForSeconds:
      x.silentForSeconds !== null && Number.isFinite(x.silentForSeconds)
        ? x.silentForSeconds
        : null,
    since: isoTime(x.since),
    reason: bodyText(x.reason, 500),
    resolution: optionalText(x.resolution, 40),
    ...(x.key ? { incidentKey: bodyText(x.key, 64) } : {}),
  };
}

/** The node lists in the order the document (and the chat) lists them, with their change. */
export function changeLists(n: Notification): [Change, readonly AlertNode[]][] {
  const { ended, silenced } = splitResolved(n.resolved);
  return [
    ['firing', n.firing],
    ['flapping', n.flapping],
    ['reminder', n.reminders],
    ['resolved', ended],
    ['silenced', silenced],
  ];
}

function distinct(values: readonly (string | null | undefined)[]): string[] {
  // Raw values first (a 100,000-node list has a handful of zones), each sanitised once.
  const clean = [...new Set(values)].map((value) =>
    value ? bodyText(value, VALUE_MAX_CHARS) : '',
  );
  return [...new Set(clean.filter(Boolean))].sort().slice(0, MAX_LISTED_VALUES);
}

/** The distinct zones of the nodes and of the storm, sorted, at most MAX_LISTED_VALUES. */
export function zonesOf(n: Notification): string[] {
  const zones = changeLists(n).flatMap(([, nodes]) => nodes.map((x) => x.zone));
  return distinct([...zones, ...(n.storm?.zones ?? []).map((z) => z.zone)]);
}

/** The distinct node groups of the nodes, sorted, at most MAX_LISTED_VALUES. */
export function nodeGroupsOf(n: Notification): string[] {
  return distinct(changeLists(n).flatMap(([, nodes]) => nodes.map((x) => x.nodeGroup)));
}

/** The document of a notification; `runbookUrl`: the cluster's, when its settings give one. */
export function renderDocument(
  n: Notification,
  context: { readonly runbookUrl?: string | undefined } = {},
): NotificationDocument {
  const { ended, silenced } = splitResolved(n.resolved);
  const total = n.firing.length + n.flapping.length + n.reminders.length + n.resolved.length;
  const head: NotificationDocument = {
    schema: DOCUMENT_SCHEMA,
    id: bodyText(n.id, 200),
    kind: n.kind,
    severity: n.severity,
    cluster: bodyText(n.cluster, 200) || '(unnamed)',
    subject: renderSubject(n),
    summary: bodyText(headline(n), 300),
    checkedAt: isoTime(n.at) ?? new Date(0).toISOString(),
    zones: zonesOf(n),
    nodeGroups: nodeGroupsOf(n),
    counts: {
      firing: n.firing.length,
      flapping: n.flapping.length,
      reminder: n.reminders.length,
      resolved: ended.length,
      silenced: silenced.length,
    },
    nodes: [],
    nodesOmitted: total,
  };
  const runbookUrl = context.runbookUrl ? bodyText(context.runbookUrl, 1000) : '';
  if (runbookUrl) head.runbookUrl = runbookUrl;
  if (n.storm) head.storm = stormPart(n.storm);
  if (n.notice) head.notice = noticePart(n.notice);
  if (n.watchdog) head.watchdog = watchdogPart(n.watchdog);
  if (n.missedFiring) {
    head.missedFiring = {
      nodes: n.missedFiring.nodes.slice(0, MAX_LISTED_VALUES).map((name) => bodyText(name, 253)),
      firedAt: isoTime(n.missedFiring.at) ?? new Date(0).toISOString(),
    };
  }
  // Room for the listed nodes: what is left once the rest is written (with the largest count).
  const nodes = fittingNodes(n, DOCUMENT_MAX_BYTES - utf8Bytes(JSON.stringify(head)));
  return { ...head, nodes, nodesOmitted: total - nodes.length };
}

function stormPart(storm: StormInfo): NonNullable<NotificationDocument['storm']> {
  return {
    state: storm.state ?? 'active',
    scope: storm.scope,
    zones: storm.zones.slice(0, MAX_LISTED_VALUES).map((z) => ({
      zone: bodyText(z.zone, VALUE_MAX_CHARS),
      total: z.total,
      silent: silentIn(z),
    })),
    nodeGroups: (storm.nodeGroups ?? []).slice(0, MAX_LISTED_VALUES).map((g) => ({
      nodeGroup: bodyText(g.nodeGroup, VALUE_MAX_CHARS),
      total: g.total,
      silent: silentIn(g),
    })),
    clusterTotal: storm.clusterTotal,
    clusterSilent: clusterSilentIn(storm),
    ...(storm.key ? { incidentKey: bodyText(storm.key, 64) } : {}),
  };
}

function noticePart(notice: NoticeInfo): NonNullable<NotificationDocument['notice']> {
  if (notice.topic === 'discovery') {
    return {
      topic: notice.topic,
      change: notice.change,
      message: bodyText(notice.message, 1000),
      ...(notice.advice ? { advice: bodyText(notice.advice, 1000) } : {}),
    };
  }
  if (notice.topic === 'checks-overdue') {
    return {
      topic: notice.topic,
      state: notice.state,
      message: bodyText(notice.message, 1000),
      clusters: notice.clusters.map((name) => bodyText(name, 100)),
      overdue: notice.overdue,
    };
  }
  return notice.topic === 'degraded'
    ? {
        topic: notice.topic,
        state: notice.state,
        message: bodyText(notice.message, 1000),
        since: isoTime(notice.since) ?? new Date(0).toISOString(),
      }
    : {
        topic: notice.topic,
        message: bodyText(notice.message, 1000),
        copy: bodyText(notice.copy, 1000),
      };
}

function watchdogPart(watchdog: WatchdogInfo): NonNullable<NotificationDocument['watchdog']> {
  return {
    state: watchdog.state,
    failure: bodyText(watchdog.failure, 40) || 'unknown',
    message: bodyText(watchdog.message, 1000),
    since: isoTime(watchdog.since) ?? new Date(0).toISOString(),
    ...(watchdog.key ? { incidentKey: bodyText(watchdog.key, 64) } : {}),
  };
}

/** The nodes, most urgent list first, while they fit in `budget` bytes. */
function fittingNodes(n: Notification, budget: number): DocumentNode[] {
  let left = budget;
  const nodes: DocumentNode[] = [];
  for (const [change, list] of changeLists(n)) {
    for (const x of list) {
      const node = documentNode(x, change);
      const cost = utf8Bytes(JSON.stringify(node)) + 1;
      if (cost > left) return nodes;
      left -= cost;
      nodes.push(node);
    }
  }
  return nodes;
}
