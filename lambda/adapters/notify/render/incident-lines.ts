/**
 * The email footer's incident keys (core/incident-keys.ts): one short line per node the
 * notification names, and one for the watchdog's or the storm's incident, so that a person can
 * find the same incident in PagerDuty, Opsgenie or a ticket. Bounded: at most
 * FOOTER_KEYS_LISTED lines, then a count (every key is in the JSON document).
 */
import type { Notification } from '../../../core/notification.js';
import { bodyText, fmt, plural } from './format.js';

/** The most incident lines an email's footer lists. */
export const FOOTER_KEYS_LISTED = 20;

/** `incident lw-node-…  ip-10-0-1-5` lines, watchdog and storm first; empty when none has a key. */
export function incidentLines(n: Notification): string[] {
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
