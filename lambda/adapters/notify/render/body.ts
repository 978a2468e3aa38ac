/**
 * The plain-text email body: fixed-width friendly text, at most `maxBytes` UTF-8 bytes (default
 * 250,000: SNS takes 262,144 bytes for the whole payload, subject and attributes included). The
 * head (cluster, time, summary, storm and watchdog explanations) and the tail (what happens next,
 * where to look further) always appear; node lists are shortened to fit and end with
 * "… and 1,234 more nodes".
 */
import type { AlertNode, MissedFiring, Notification } from '../../../core/notification.js';
import { DEFAULTS } from '../../../settings/defaults.js';
import {
  type AwsPlace,
  awsLines,
  type KubeAccess,
  kubectlFor,
  lookFurther,
  nextInKubernetes,
  stormLines,
  watchdogLines,
} from './advice.js';
import { evidenceLines } from './evidence-lines.js';
import { bodyText, fmt, labelled, plural, utc, WIDTH } from './format.js';
import { nodeSections, type Section } from './node-sections.js';
import { noticeLines } from './notice-lines.js';
import { headline } from './subject.js';
import { utf8Bytes } from './text.js';

/** SNS accepts 262,144 bytes per publish (message, subject and attributes together). */
export const BODY_MAX_BYTES = 250_000;

/** What the body needs to know besides the notification: how the cluster is set up. */
export interface RenderContext {
  /** The namespace of the cluster's node Leases, for the kubectl hints (default kube-node-lease). */
  readonly namespace?: string | undefined;
  /** How to reach the cluster with kubectl (its context, or the EKS cluster), when known. */
  readonly kube?: KubeAccess | undefined;
  /** The most UTF-8 bytes the body may take (default BODY_MAX_BYTES). */
  readonly maxBytes?: number | undefined;
  /** Where an `eks` cluster lives in AWS (others: the region is read from the nodes' zones). */
  readonly aws?: AwsPlace | undefined;
  /** The team's runbook for a dead node of this cluster (an https URL from the settings). */
  readonly runbookUrl?: string | undefined;
}

/** The notification id as people quote it: 8 characters (the full id is the dedupe id). */
function shortId(id: string): string {
  return bodyText(id, 200).slice(0, 8) || '(none)';
}

export function renderBody(n: Notification, context: RenderContext = {}): string {
  const maxBytes = context.maxBytes ?? BODY_MAX_BYTES;
  const namespace = bodyText(context.namespace ?? '', 63) || DEFAULTS.namespace;
  const cluster = bodyText(n.cluster, 200) || '(unnamed)';
  const kube = kubectlFor(context.kube, n.cluster);
  const head: string[] = [
    `lease-watchdog: ${n.kind} for cluster ${cluster}`,
    '',
    ...labelled('Cluster', cluster),
    ...labelled('Checked', utc(n.at)),
    ...labelled('Summary', `${headline(n).replace(/^[A-Z ]+: /, '')}.`),
    ...awsLines([...n.firing, ...n.reminders, ...n.flapping, ...n.resolved], context.aws),
    ...(context.runbookUrl ? labelled('Runbook', bodyText(context.runbookUrl, 1000)) : []),
    '',
  ];
  if (n.missedFiring) head.push(...missedLines(n.missedFiring), '');
  if (n.watchdog) head.push(...watchdogLines(n, namespace, kube.kubectl), '');
  if (n.notice) head.push(...noticeLines(n.notice, n.at, namespace, kube.kubectl), '');
  if (n.storm) head.push(...stormLines(n.storm, kube.kubectl), '');

  const tail: string[] = [];
  const evidence = evidenceLines(n.evidence, n.at);
  if (evidence.length > 0) tail.push(...evidence, '');
  const down = [...n.firing, ...n.reminders, ...n.flapping];
  tail.push(...whatHappensNext(n, down));
  // Of the notices, only degraded checks are about the cluster; the others (the watchdog's own
  // state, silences set aside, discovery, the fleet) say nothing of nodes: no kubectl.
  if (!n.notice || n.notice.topic === 'degraded') {
    tail.push(...lookFurther(down[0] ?? n.resolved[0], namespace, kube, context.aws), '');
  }
  tail.push(`-- lease-watchdog, notification ${shortId(n.id)}`, ...incidentLines(n));

  return fitBody(head, nodeSections(n), tail, maxBytes);
}

/**
 * What Kubernetes does next with the silent nodes, said once per incident: in full where an
 * incident opens (a FIRING, a storm), as a one-line pointer in its REMINDERs and FLAPPING notices
 * (the eviction story is the same as in the FIRING), not at all once it is over.
 */
function whatHappensNext(n: Notification, down: readonly AlertNode[]): string[] {
  const stormActive = n.storm !== undefined && n.storm.state !== 'ended';
  if (n.firing.length > 0 || (stormActive && n.watchdog?.state !== 'resolved')) {
    return [...nextInKubernetes(n, down), ''];
  }
  return down.length > 0
    ? ["What happens next in Kubernetes: see this incident's FIRING.", '']
    : [];
}

/** The most nodes a never-sent FIRING's line names (then "and N more"). */
const MISSED_LISTED = 20;

/**
 * An earlier FIRING that was given up unsent while its nodes are still down: the page those
 * nodes never got, said before anything else.
 */
function missedLines(missed: MissedFiring): string[] {
  const names = missed.nodes.slice(0, MISSED_LISTED).map((name) => bodyText(name, 253));
  const more = missed.nodes.length - names.length;
  return labelled(
    'Never sent',
    `the FIRING of ${utc(missed.at)}: SNS refused it until it was given up. Still down:`,
    `${names.join(', ')}${more > 0 ? ` and ${fmt(more)} more` : ''}`,
  );
}

/** The most incident lines an email's footer lists. */
const FOOTER_KEYS_LISTED = 20;

/**
 * The footer's incident keys (core/incident-keys.ts): one short line per node the notification
 * names, and one for the watchdog's or the storm's incident, so that a person can find the same
 * incident in PagerDuty, Opsgenie or a ticket. Bounded: at most FOOTER_KEYS_LISTED lines, then a
 * count (every key is in the JSON document). Watchdog and storm first; empty when none has a key.
 */
function incidentLines(n: Notification): string[] {
  const lines: string[] = [];
  if (n.watchdog?.key) lines.push(`incident ${bodyText(n.watchdog.key, 64)}  (watchdog)`);
  if (n.storm?.key) lines.push(`incident ${bodyText(n.storm.key, 64)}  (storm)`);
  let more = 0;
  for (const list of [n.firing, n.flapping, n.reminders, n.resolved]) {
    for (const x of list) {
      // A storm's nodes share its incident: its own line says it.
      if (!x.key || x.key === n.storm?.key) continue;
      if (lines.length >= FOOTER_KEYS_LISTED) more++;
      else lines.push(`incident ${bodyText(x.key, 64)}  ${bodyText(x.name, 253) || '(unnamed)'}`);
    }
  }
  if (more > 0) lines.push(`… and ${fmt(more)} more ${plural(more, 'incident')}`);
  return lines;
}

/**
 * Joins head, node sections and tail within `maxBytes`: the head and tail always appear; node
 * entries are added while they fit, and each section that could not list everything ends with
 * "… and N more nodes".
 */
function fitBody(head: string[], sections: readonly Section[], tail: string[], maxBytes: number) {
  const out: string[] = [...head];
  const fixed = utf8Bytes(`${head.join('\n')}\n${tail.join('\n')}`) + 1;
  // Room kept for every section's heading, intro and "… and N more" line.
  const sectionCost = (s: Section): number =>
    utf8Bytes(`${s.heading}\n${'-'.repeat(s.heading.length)}\n${s.intro.join('\n')}\n`) + 80;
  let budget = maxBytes - fixed - sections.reduce((sum, s) => sum + sectionCost(s), 0);

  for (const s of sections) {
    out.push(s.heading, '-'.repeat(Math.min(s.heading.length, WIDTH)), ...s.intro);
    if (s.intro.length > 0) out.push('');
    let shown = 0;
    let spaced = false;
    for (const entry of s.entries) {
      const cost = utf8Bytes(entry.text) + (entry.spaced ? 2 : 1);
      if (cost > budget) break;
      budget -= cost;
      out.push(entry.text);
      if (entry.spaced) out.push('');
      spaced = entry.spaced === true;
      shown += entry.nodes;
    }
    const more = s.total - shown;
    if (more > 0) {
      out.push(`… and ${fmt(more)} more ${plural(more, 'node')} (not listed: message size limit)`);
      spaced = false;
    }
    if (!spaced) out.push('');
  }
  out.push(...tail);
  return capBytes(out.join('\n'), maxBytes);
}

/** Last resort when even the fixed parts exceed the limit: cut at a code point boundary. */
function capBytes(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  const marker = '\n… (truncated: message size limit)';
  const room = Math.max(0, maxBytes - utf8Bytes(marker));
  const { read } = new TextEncoder().encodeInto(text, new Uint8Array(room));
  return text.slice(0, read) + marker;
}
