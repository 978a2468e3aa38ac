/**
 * The evidence of a FIRING in the email: per node, EC2's word on its instance and its last
 * Events, as read when the FIRING was made; then one line per source that could not be read.
 * Every string from EC2 or the cluster is sanitised and bounded here.
 */
import { parseTimestamp } from '../../../core/lease.js';
import type {
  Evidence,
  InstanceEvidence,
  NodeEventEvidence,
  NodeEvidence,
} from '../../../core/notification.js';
import { bodyText, fmt, labelled, moment, nodeName, titled, wrap } from './format.js';

export function evidenceLines(evidence: Evidence | undefined, at: number): string[] {
  if (!evidence || (evidence.nodes.length === 0 && evidence.unread.length === 0)) return [];
  const lines = [...titled('EVIDENCE AT ALERT TIME')];
  evidence.nodes.forEach((x, i) => {
    lines.push(...(i > 0 ? [''] : []), ...nodeLines(x, at));
  });
  if (evidence.nodes.length > 0 && evidence.unread.length > 0) lines.push('');
  for (const line of evidence.unread) lines.push(...wrap(bodyText(line, 300)));
  return lines;
}

function nodeLines(x: NodeEvidence, at: number): string[] {
  const lines = [nodeName(x.node)];
  if (x.instance) lines.push(...instanceLines(x.instance));
  if (x.events) {
    const events = x.events.map((e) => eventText(e, at));
    lines.push(
      ...labelled('  events', ...(events.length > 0 ? events : ['(none in the last hour)'])),
    );
  }
  return lines;
}

const NOT_FOUND =
  "not found by EC2 (terminated over an hour ago, or in another account than the function's)";

function instanceLines(i: InstanceEvidence): string[] {
  const state = i.state === 'not found' ? NOT_FOUND : bodyText(i.state, 40);
  const reason = i.stateReason ? ` (${bodyText(i.stateReason, 200)})` : '';
  const lines = labelled(
    '  EC2',
    `${bodyText(i.instanceId, 20)} in ${bodyText(i.region, 40)}: ${state}${reason}`,
  );
  // A stopped instance has no status checks ('not-applicable'): nothing to say.
  const checked = [i.systemStatus, i.instanceStatus].some((s) => s && s !== 'not-applicable');
  if (checked) {
    lines.push(
      ...labelled(
        '  status checks',
        `system ${bodyText(i.systemStatus ?? 'unknown', 30)}, instance ${bodyText(i.instanceStatus ?? 'unknown', 30)}`,
      ),
    );
  }
  lines.push(...labelled('  scheduled', ...i.scheduledEvents.map((e) => bodyText(e, 200))));
  return lines;
}

function eventText(e: NodeEventEvidence, at: number): string {
  const ms = e.lastSeen === null ? undefined : parseTimestamp(e.lastSeen);
  const when = ms === undefined ? '(time unknown)' : moment(ms, at);
  const count = e.count > 1 ? ` (x${fmt(e.count)})` : '';
  const head = `${bodyText(e.type, 20) || 'Normal'} ${bodyText(e.reason, 100) || '(no reason)'}${count}`;
  const message = bodyText(e.message, 300);
  return `${when} ${head}${message ? `: ${message}` : ''}`;
}
