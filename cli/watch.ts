/**
 * `lease-watchdog watch`: the check cycle on an interval, printing each change of verdict as it
 * happens and every notification (to the terminal, or published to SNS with --sns-topic-arn).
 *
 * Between two ticks of the interval it also looks when a check asks to: a check that finds
 * suspects (leases that missed a renewal, not yet confirmed) names the moments looks can confirm
 * them (`evaluation.rechecks`, core/renewal-clock.ts: never sooner than a second after that
 * check), and `watch` looks then — in-process, as the Lambda does through SQS — so a dead
 * node is paged at its deadline rather than at the next tick. A re-check does not move the ticks,
 * and does not count in `--checks`: the one the last check asks for still comes before `watch`
 * stops.
 */
import { setTimeout } from 'node:timers/promises';
import {
  type Evaluation,
  isAlerting,
  type NodeVerdict,
  type Recheck,
  type Verdict,
} from '../lambda/core/model.js';
import { type CycleOutcome, runCheckCycle } from '../lambda/use-cases/check-cycle.js';
import type { WatchOptions } from './args.js';
import type { WatchParts } from './compose-watch.js';
import { EXIT_ALERTING, EXIT_ERROR, EXIT_OK, type Io, timeOfDay } from './io.js';
import { renderSummary, toJson } from './report.js';
import { printableJson, sanitize, shownName } from './sanitize.js';
import { toYaml } from './yaml.js';

/** Lines describing verdicts that changed since the previous check (all non-healthy ones at first). */
function changes(
  previous: Map<string, Verdict> | undefined,
  nodes: readonly NodeVerdict[],
  at: number,
  selected: boolean,
): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const n of nodes) {
    seen.add(n.name);
    const before = previous?.get(n.name);
    if (before === n.verdict || (before === undefined && n.verdict === 'healthy')) continue;
    const arrow = before === undefined ? n.verdict : `${before} → ${n.verdict}`;
    const mark = isAlerting(n.verdict) ? '!' : ' ';
    lines.push(`${timeOfDay(at)} ${mark} ${shownName(n.name)}  ${arrow}  (${sanitize(n.reason)})`);
  }
  // With a selector, a node also leaves the check when its labels stop matching.
  const gone = selected ? 'no selected Node' : 'no Node and no Lease';
  for (const [name, before] of previous ?? []) {
    if (!seen.has(name))
      lines.push(`${timeOfDay(at)}   ${shownName(name)}  ${before} → gone (${gone})`);
  }
  return lines;
}

export async function watch(options: WatchOptions, parts: WatchParts, io: Io): Promise<number> {
  const { cluster, cycle, held } = parts;
  if (options.output === 'table' || options.output === 'wide') {
    io.stdout(
      `watching ${sanitize(cluster)} every ${options.intervalSeconds}s (grace ${options.gracePeriodSeconds}s)` +
        `${options.checks ? `, ${options.checks} check${options.checks === 1 ? '' : 's'}` : ''}; Ctrl-C stops`,
    );
  }
  let previous: Map<string, Verdict> | undefined;
  let status = EXIT_OK;
  let unsent = 0;
  // The next tick of the interval (the first check is at once), and a re-check asked for.
  let tick = io.now();
  let rechecks: readonly Recheck[] = [];
  // After the last of `--checks`, the re-check it asked for still comes (it does not count): the
  // second look a first sight was promised, a suspect's confirmation. That one look, then stop.
  let closing = false;
  for (let i = 0; ; ) {
    if (options.checks !== undefined && i >= options.checks) {
      if (rechecks.length === 0 || closing) break;
      closing = true;
    }
    const due = rechecks[0];
    const early = closing || (due !== undefined && due.at < tick);
    try {
      await sleepUntil(early ? (due as Recheck).at : tick, io);
    } catch {
      break; // interrupted
    }
    if (io.signal.aborted) break;
    let outcome: CycleOutcome;
    try {
      outcome = await runCheckCycle(cluster, cycle, io.signal);
    } catch (error) {
      if (io.signal.aborted) break;
      throw error;
    }
    if (!early) {
      i++;
      // As before: the interval runs from the end of a tick's check.
      tick = io.now() + options.intervalSeconds * 1000;
    }
    rechecks = nextRechecks(rechecks, outcome, io.now());
    const last =
      options.checks !== undefined && i === options.checks && (closing || rechecks.length === 0);
    status = report(outcome, io, { options, previous, last });
    if (outcome.status !== 'busy') unsent = outcome.pending.length;
    // Each line of a notification sanitised; the block keeps its line breaks.
    for (const text of held.splice(0)) io.stdout(text.split('\n').map(sanitize).join('\n'));
    if (outcome.status === 'checked') {
      previous = new Map(outcome.evaluation.nodes.map((n) => [n.name, n.verdict]));
    }
  }
  return unsent > 0 ? leftUnsent(unsent, options, io, status) : status;
}

/**
 * Waits until `at` on the watchdog's clock (at once when it has passed): one sleep, rounded up to
 * the next millisecond, so a re-check is not earlier than the moment its check named. Rejects when
 * interrupted.
 */
async function sleepUntil(at: number, io: Io): Promise<void> {
  const wait = Math.ceil(at - io.now());
  // Without `Io.sleep`, real time.
  if (wait > 0)
    await (io.sleep?.(wait, io.signal) ?? setTimeout(wait, null, { signal: io.signal }));
}

/**
 * Notifications still unsent when `watch` ends: with --state-file they wait in that file for the
 * next run; without one nothing keeps them, so they are lost and the exit status says so.
 */
function leftUnsent(count: number, options: WatchOptions, io: Io, status: number): number {
  const what = `${count} notification${count === 1 ? '' : 's'} not published`;
  if (options.stateFile !== undefined) {
    io.stderr(
      `lease-watchdog: ${what}; kept in ${options.stateFile} for the next run with this --state-file`,
    );
    return status;
  }
  io.stderr(
    `lease-watchdog: ${what} and lost: without --state-file nothing keeps ${count === 1 ? 'it' : 'them'}`,
  );
  return EXIT_ERROR;
}

/** What a check found, said; `previous`: the verdicts of the check before; `last`: no check follows. */
function report(
  outcome: CycleOutcome,
  io: Io,
  at: { options: WatchOptions; previous: Map<string, Verdict> | undefined; last: boolean },
) {
  const { options, previous, last } = at;
  const now = io.now();
  if (outcome.status === 'busy') {
    io.stderr(`lease-watchdog: ${sanitize(outcome.reason)}; skipped this check`);
    return EXIT_OK;
  }
  if (outcome.publishError !== undefined && outcome.pending.length > 0) {
    const retried = last ? '' : ` (${outcome.pending.length} kept, retried next check)`;
    io.stderr(
      `lease-watchdog: could not publish a notification${retried}: ${errorLine(outcome.publishError)}`,
    );
  }
  for (const { notification, error, refusedForMs } of outcome.abandoned) {
    io.stderr(
      `lease-watchdog: gave up a ${notification.kind} notification refused for ${Math.round(refusedForMs / 1000)} s: ${errorLine(error)}`,
    );
  }
  if (outcome.status === 'unreadable') {
    io.stderr(
      `lease-watchdog: ${timeOfDay(now)} cannot read the cluster: ${sanitize(outcome.error.message)}`,
    );
    const failed = { checkedAt: new Date(now).toISOString(), error: outcome.error.message };
    if (options.output === 'json') io.stdout(printableJson(JSON.stringify(failed)));
    if (options.output === 'yaml') io.stdout(`---\n${toYaml(failed)}`);
    return EXIT_ERROR;
  }
  const { evaluation } = outcome;
  if (options.output === 'json') {
    io.stdout(printableJson(JSON.stringify(toJson(evaluation))));
  } else if (options.output === 'yaml') {
    // One document per check, as `kubectl get -w -o yaml` separates them.
    io.stdout(`---\n${toYaml(toJson(evaluation))}`);
  } else {
    const selected = options.selector !== undefined;
    for (const line of changes(previous, evaluation.nodes, evaluation.checkedAt, selected))
      io.stdout(line);
    if (previous === undefined) {
      io.stdout(`${timeOfDay(evaluation.checkedAt)}   ${renderSummary(evaluation)}`);
      const held = heldLine(evaluation);
      if (held !== undefined) io.stdout(held);
    }
  }
  if (evaluation.degraded)
    io.stderr(`lease-watchdog: warning: degraded check: ${sanitize(evaluation.degraded)}`);
  if (evaluation.suspect)
    io.stderr(`lease-watchdog: warning: suspect answer: ${sanitize(evaluation.suspect)}`);
  return evaluation.nodes.some((n) => isAlerting(n.verdict)) ? EXIT_ALERTING : EXIT_OK;
}

/**
 * The re-checks to wait for after a check, earliest first: those it asks for, and those asked for
 * before it that are still ahead and still for a suspect (a tick that came between a suspect's
 * finding and its re-check is too soon to confirm it, and only the look that found it asks). A
 * check that failed or was skipped leaves them to the tick.
 */
function nextRechecks(
  pending: readonly Recheck[],
  outcome: CycleOutcome,
  now: number,
): readonly Recheck[] {
  if (outcome.status !== 'checked') return [];
  const { observations } = outcome.evaluation;
  const suspect = (lease: string) => observations.get(lease)?.suspectSince !== undefined;
  const waiting = pending.filter((r) => r.at > now && r.leases.some(suspect));
  return [...waiting, ...outcome.rechecks].sort((a, b) => a.at - b.at);
}

/**
 * Nodes found expired at first sight are paged once a look of ours confirms the silence (the
 * kubelet's clock alone pages nothing): says so, and when that look comes.
 */
function heldLine(evaluation: Evaluation): string | undefined {
  const held = evaluation.nodes.filter((n) => n.newlySeen && n.verdict === 'expired').length;
  if (held === 0) return undefined;
  const first = evaluation.rechecks?.[0];
  const when = first ? ` at ${timeOfDay(first.at)}` : ' at the next check';
  const nodes = held === 1 ? '1 node' : `${held} nodes`;
  return `${timeOfDay(evaluation.checkedAt)}   ${nodes} expired on first sight: paged once a second look confirms the silence${when}`;
}

function errorLine(error: unknown): string {
  return sanitize(error instanceof Error ? error.message : String(error));
}
