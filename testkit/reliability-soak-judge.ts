/**
 * The simulated week's ground truth (the outages, stalls and API outages the fault schedule
 * made) against what the watchdog sent (reliability-soak.ts): the counts of docs/RELIABILITY.md,
 * alarms during stalls, and the gaps between one outage's notices.
 */
import type { AlertNode, Notification } from '../lambda/core/notification.js';
import { DEFAULT_ALERT_POLICY, DEFAULT_POLICY } from '../lambda/settings/index.js';
import type { Outage } from './reliability-fault-schedule.js';
import type { Sent } from './reliability-soak-parts.js';
import type { Counts } from './reliability-tally.js';

const MINUTE = 60_000;
const GRACE_MS = DEFAULT_POLICY.gracePeriodSeconds * 1000;
/** An outage this long is certainly seen by a check, even with one failed read inside it. */
const SURELY_SEEN_MS = GRACE_MS + 3 * MINUTE;

type Span = { readonly start: number; readonly end: number };

export interface Judgement {
  readonly counts: Counts;
  /** FIRING or STORM notifications naming a node not really down, during or right after a stall. */
  readonly stallAlarms: number;
  readonly reminders: {
    readonly intervalSeconds: number;
    readonly count: number;
    readonly minGapSeconds: number;
    readonly maxGapSeconds: number;
  };
}

const names = (list: readonly AlertNode[]) => list.map((n) => n.name);
const pages = (n: Notification) => n.kind === 'FIRING' || n.kind === 'STORM';

/** The ground truth against what was sent. */
export function judge(
  sent: readonly Sent[],
  outages: readonly Outage[],
  stalls: readonly Span[],
  apiOutages: readonly Span[],
): Judgement {
  const outageAt = (node: string, at: number) =>
    outages.find((o) => o.node === node && o.start <= at && at < o.end);
  const { duplicated, falseAlarms } = doublesAndFalseAlarms(sent, outageAt);
  const { silent, unexpected } = watchdogPages(sent, apiOutages);
  // Stalls: no FIRING or STORM in the check during or right after one.
  const stallAlarms = sent.filter(
    ({ at, notification }) =>
      pages(notification) &&
      stalls.some((s) => at >= s.start && at <= s.end + MINUTE) &&
      names(notification.firing).some((name) => !outageAt(name, at)),
  ).length;
  const { count, gaps } = reminderGaps(sent, outages);
  return {
    counts: { lost: lost(sent, outages), duplicated, falseAlarms, unexpected, silent, resent: 0 },
    stallAlarms,
    reminders: {
      intervalSeconds: DEFAULT_ALERT_POLICY.reminderIntervalSeconds,
      count,
      minGapSeconds: gaps.length > 0 ? Math.min(...gaps) : 0,
      maxGapSeconds: gaps.length > 0 ? Math.max(...gaps) : 0,
    },
  };
}

/**
 * Each notification once; FIRING and STORM name only nodes really down; a FIRING names a node
 * once per outage.
 */
function doublesAndFalseAlarms(
  sent: readonly Sent[],
  outageAt: (node: string, at: number) => Outage | undefined,
): { duplicated: number; falseAlarms: number } {
  let duplicated = 0;
  let falseAlarms = 0;
  const ids = new Set<string>();
  for (const { notification } of sent) {
    if (ids.has(notification.id)) duplicated++;
    ids.add(notification.id);
  }
  const fired = new Map<Outage, number>();
  for (const { at, notification } of sent) {
    if (!pages(notification)) continue;
    if (notification.storm?.state === 'ended') continue;
    for (const name of names(notification.firing)) {
      const outage = outageAt(name, at);
      if (!outage) falseAlarms++;
      else if (notification.kind === 'FIRING') fired.set(outage, (fired.get(outage) ?? 0) + 1);
    }
  }
  for (const times of fired.values()) duplicated += Math.max(0, times - 1);
  return { duplicated, falseAlarms };
}

/** Outages long enough that were not told (firing or flapping), while they lasted or just after. */
function lost(sent: readonly Sent[], outages: readonly Outage[]): number {
  return outages.filter(
    (outage) =>
      outage.end - outage.start >= SURELY_SEEN_MS &&
      !sent.some(
        ({ at, notification }) =>
          at >= outage.start &&
          at <= outage.end + 2 * MINUTE &&
          [...notification.firing, ...notification.flapping].some((n) => n.name === outage.node),
      ),
  ).length;
}

/** The API outages page (`silent`: those that did not); nothing else does (`unexpected`). */
function watchdogPages(
  sent: readonly Sent[],
  apiOutages: readonly Span[],
): { silent: number; unexpected: number } {
  const watchdogs = sent.filter(
    ({ notification }) =>
      notification.kind === 'WATCHDOG' && notification.watchdog?.state === 'failing',
  );
  const during = (at: number, api: Span) => at >= api.start && at <= api.end + MINUTE;
  return {
    silent: apiOutages.filter((api) => !watchdogs.some(({ at }) => during(at, api))).length,
    unexpected: watchdogs.filter(({ at }) => !apiOutages.some((api) => during(at, api))).length,
  };
}

/** Reminders, and the gaps between one outage's notices (its FIRING or STORM, then its REMINDERs). */
function reminderGaps(
  sent: readonly Sent[],
  outages: readonly Outage[],
): { count: number; gaps: number[] } {
  const gaps: number[] = [];
  let count = 0;
  for (const outage of outages) {
    const during = sent.filter(({ at }) => at >= outage.start && at < outage.end);
    const times = during
      .filter(
        ({ notification }) =>
          (notification.kind !== 'FLAPPING' && names(notification.firing).includes(outage.node)) ||
          names(notification.reminders).includes(outage.node),
      )
      .map(({ at }) => at);
    count += during.filter(({ notification }) =>
      names(notification.reminders).includes(outage.node),
    ).length;
    for (let k = 1; k < times.length; k++) {
      gaps.push(((times[k] as number) - (times[k - 1] as number)) / 1000);
    }
  }
  return { count, gaps };
}
