/**
 * A Notification as an Amazon Q Developer in chat applications (formerly AWS Chatbot) custom
 * notification: the event a Slack or Microsoft Teams channel shows when it reads it from an SNS
 * topic (`version` "1.0", `source` "custom", `content` with title, description, next steps and
 * keywords, `metadata`). Pure: the only clock is `n.at`.
 *
 * Chat markdown turns `<...>` into links and mentions (`<!channel>`) and backticks into code, so
 * untrusted text (reasons, messages from the API server) loses those characters; every field is
 * bounded well within what the chat applications show.
 */
import type { AlertNode, Notification, Severity } from '../../../core/notification.js';
import { kubectlFor, lookFurther } from './advice.js';
import type { RenderContext } from './body.js';
import { type Change, changeLists } from './document.js';
import { bodyText, fmt, plural, zoneName } from './format.js';
import { headline, stormPhrase } from './subject.js';
import { asciiText, squeeze, truncate } from './text.js';

export const CHAT_TITLE_MAX_CHARS = 250;
export const CHAT_DESCRIPTION_MAX_CHARS = 3_000;
/** Nodes described one by one; the rest are counted. */
export const CHAT_MAX_NODES = 10;
const NEXT_STEP_MAX_CHARS = 400;

/** The cluster's lease namespace and kubectl access, for the next steps, and the link to show. */
export type ChatContext = Pick<RenderContext, 'namespace' | 'kube'> & {
  /** An https URL to show (a runbook, a dashboard): `chatNotifications.link`. */
  readonly link?: string | undefined;
};

const MARK: Readonly<Record<Severity, string>> = {
  critical: '🔴',
  warning: '🟠',
  info: '🟢',
};

/** Untrusted text for chat markdown: safe, bounded, without link, mention and code markup. */
export function chatText(text: string, max: number): string {
  return bodyText(text.replace(/[<>`]/g, "'"), max);
}

function nodeLine(x: AlertNode): string {
  const where = [
    zoneName(x.zone),
    x.nodeGroup ? `node group ${chatText(x.nodeGroup, 63)}` : '',
    x.instance ? chatText(x.instance, 40) : '',
    x.instanceType ? chatText(x.instanceType, 40) : '',
    x.capacityType ? chatText(x.capacityType, 20) : '',
  ].filter(Boolean);
  const what = x.resolution ? `${x.resolution}` : x.verdict;
  return `• *${chatText(x.name, 253) || '(unnamed)'}* — ${what} (${where.join(', ')}): ${chatText(x.reason, 300)}`;
}

const LABELS: Readonly<Record<Change, string>> = {
  firing: 'Down',
  flapping: 'Flapping',
  reminder: 'Still down',
  resolved: 'Resolved',
  silenced: 'Silenced (not recovered)',
};

function nodeLines(n: Notification): string[] {
  const lines: string[] = [];
  let shown = 0;
  for (const [change, nodes] of changeLists(n)) {
    if (nodes.length === 0) continue;
    lines.push(`*${LABELS[change]} (${fmt(nodes.length)}):*`);
    const room = Math.max(0, CHAT_MAX_NODES - shown);
    for (const x of nodes.slice(0, room)) lines.push(nodeLine(x));
    shown += Math.min(room, nodes.length);
    const more = nodes.length - Math.min(room, nodes.length);
    if (more > 0) lines.push(`… and ${fmt(more)} more ${plural(more, 'node')}`);
  }
  return lines;
}

function contextLines(n: Notification): string[] {
  const lines: string[] = [];
  const w = n.watchdog;
  if (w) {
    lines.push(
      w.state === 'failing'
        ? `The watchdog cannot read this cluster (${chatText(w.failure, 40)}): ${chatText(w.message, 500)}. Until reads work again, node failures go unnoticed.`
        : `The watchdog can read this cluster again (it had failed: ${chatText(w.failure, 40)}).`,
    );
  }
  const notice = n.notice;
  if (notice?.topic === 'discovery' || notice?.topic === 'checks-overdue') {
    lines.push(chatText(notice.message, 500));
  }
  if (notice?.topic === 'discovery' && notice.advice) {
    lines.push(`To run: \`${chatText(notice.advice, 900)}\``);
  }
  const storm = n.storm;
  if (storm) {
    lines.push(
      storm.state === 'ended'
        ? 'The storm reported earlier is over.'
        : `Storm: ${chatText(stormPhrase(storm), 300)}. When that many nodes stop heart-beating together, suspect the network or the control plane, not the nodes.`,
    );
  }
  return lines;
}

/** The kubectl commands the email advises, as inline code, and the link. */
function nextSteps(n: Notification, context: ChatContext): string[] {
  const example = n.firing[0] ?? n.flapping[0] ?? n.reminders[0] ?? n.resolved[0];
  const namespace = context.namespace ?? 'kube-node-lease';
  const commands = lookFurther(
    example,
    namespace,
    kubectlFor(context.kube, chatText(n.cluster, 253)),
  )
    .slice(1)
    .map((line) => `\`${truncate(line.trim().replace(/`/g, "'"), NEXT_STEP_MAX_CHARS - 2)}\``);
  if (n.watchdog?.state === 'failing') {
    commands.unshift('Check the RBAC (deploy/rbac.yaml), the credentials and the network path');
  }
  if (context.link) commands.push(`Runbook: ${context.link}`);
  return commands;
}

/** Fits the lines into `max` characters, whole lines first; the last one says what was cut. */
function fitLines(lines: readonly string[], max: number): string {
  let out = '';
  for (const line of lines) {
    const next = out ? `${out}\n${line}` : line;
    if (next.length > max - 2) return `${out}\n…`;
    out = next;
  }
  return out;
}

/** The first `max` distinct non-empty values of `pick` over the lists (never a full pass over 100,000 nodes). */
function firstDistinct(
  lists: readonly (readonly AlertNode[])[],
  pick: (x: AlertNode) => string | null | undefined,
  max: number,
): string[] {
  const seen = new Set<string>();
  let looked = 0;
  for (const nodes of lists) {
    for (const x of nodes) {
      if (seen.size >= max || looked++ > 1_000) return [...seen];
      const value = pick(x);
      if (value) seen.add(value);
    }
  }
  return [...seen];
}

/**
 * The incident keys (core/incident-keys.ts) of the notification, for `additionalContext`: the
 * watchdog's or the storm's, then the first CHAT_MAX_NODES nodes', space-separated. Absent when none.
 */
function incidentContext(n: Notification): { incidentKeys?: string } {
  const keys = [n.watchdog?.key, n.storm?.key];
  const listed = [n.firing, n.flapping, n.reminders, n.resolved];
  keys.push(...firstDistinct(listed, (x) => x.key, CHAT_MAX_NODES));
  const clean = keys.filter((k): k is string => Boolean(k)).map((k) => asciiText(k).slice(0, 64));
  return clean.length === 0 ? {} : { incidentKeys: clean.join(' ') };
}

/** The custom notification of `n`. */
export function renderChatNotification(n: Notification, context: ChatContext = {}) {
  const cluster = chatText(n.cluster, 100) || '(unnamed)';
  const head = chatText(headline(n), 200);
  const description = fitLines(
    [`*Cluster:* ${cluster}`, ...contextLines(n), ...nodeLines(n)],
    CHAT_DESCRIPTION_MAX_CHARS,
  );
  const zones = firstDistinct([n.firing, n.reminders, n.flapping], (x) => x.zone, 3);
  const instances = firstDistinct(
    [n.firing, n.flapping, n.reminders, n.resolved],
    (x) => x.instance,
    10,
  )
    .map((i) => chatText(i, 40))
    .filter(Boolean);
  return {
    version: '1.0' as const,
    source: 'custom' as const,
    id: bodyText(n.id, 200),
    content: {
      textType: 'client-markdown' as const,
      title: truncate(`${MARK[n.severity] ?? ''} [${cluster}] ${head}`, CHAT_TITLE_MAX_CHARS),
      description,
      nextSteps: nextSteps(n, context),
      // Cleaning can leave nothing of a hostile zone: the format wants no empty keyword.
      keywords: [n.kind, n.severity, cluster, ...zones.map((z) => chatText(z, 63))]
        .map((k) => truncate(k, 75))
        .filter(Boolean)
        .slice(0, 6),
    },
    metadata: {
      summary: truncate(squeeze(asciiText(`[${cluster}] ${head}`)), 200),
      eventType: n.kind,
      relatedResources: instances,
      additionalContext: {
        cluster,
        kind: n.kind,
        severity: n.severity,
        notificationId: bodyText(n.id, 200),
        ...incidentContext(n),
      },
    },
  };
}

/** The custom notification's event, as a channel reads it from the chat topic. */
export type ChatNotification = ReturnType<typeof renderChatNotification>;
