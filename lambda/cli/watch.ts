/**
 * `lease-watchdog watch`: the check cycle on an interval, printing each change of verdict as it
 * happens and every notification (to the terminal, or published to SNS with --sns-topic-arn).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type CycleOutcome, runCheckCycle } from '../check-cycle.js';
import { isAlerting, type NodeVerdict, type Verdict } from '../core/model.js';
import type { WatchOptions } from './args.js';
import type { WatchParts } from './compose.js';
import { EXIT_ALERTING, EXIT_ERROR, EXIT_OK, type Io, timeOfDay } from './io.js';
import { renderSummary, toJson } from './report.js';
import { printableJson, sanitize, sanitizeLines, shownName } from './sanitize.js';

/** Lines describing verdicts that changed since the previous check (all non-healthy ones at first). */
function changes(
  previous: Map<string, Verdict> | undefined,
  nodes: readonly NodeVerdict[],
  at: number,
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
  for (const [name, before] of previous ?? []) {
    if (!seen.has(name))
      lines.push(`${timeOfDay(at)}   ${shownName(name)}  ${before} → gone (no Node and no Lease)`);
  }
  return lines;
}

export async function watch(options: WatchOptions, parts: WatchParts, io: Io): Promise<number> {
  const { cluster, cycle, held } = parts;
  if (options.output === 'table') {
    io.stdout(
      `watching ${sanitize(cluster)} every ${options.intervalSeconds}s (grace ${options.gracePeriodSeconds}s)` +
        `${options.checks ? `, ${options.checks} checks` : ''}; Ctrl-C stops`,
    );
  }
  let previous: Map<string, Verdict> | undefined;
  let status = EXIT_OK;
  for (let i = 0; options.checks === undefined || i < options.checks; i++) {
    if (i > 0) {
      try {
        await sleep(options.intervalSeconds * 1000, undefined, { signal: io.signal });
      } catch {
        break; // interrupted
      }
    }
    if (io.signal.aborted) break;
    let outcome: CycleOutcome;
    try {
      outcome = await runCheckCycle(cluster, cycle, io.signal);
    } catch (error) {
      if (io.signal.aborted) break;
      throw error;
    }
    status = report(outcome, options, io, previous);
    for (const text of held.splice(0)) io.stdout(sanitizeLines(text));
    if (outcome.status === 'checked') {
      previous = new Map(outcome.evaluation.nodes.map((n) => [n.name, n.verdict]));
    }
  }
  return status;
}

function report(
  outcome: CycleOutcome,
  options: WatchOptions,
  io: Io,
  previous: Map<string, Verdict> | undefined,
) {
  const at = io.now();
  if (outcome.status === 'busy') {
    io.stderr(`lease-watchdog: ${sanitize(outcome.reason)}; skipped this check`);
    return EXIT_OK;
  }
  if (outcome.publishError) {
    const message =
      outcome.publishError instanceof Error
        ? outcome.publishError.message
        : String(outcome.publishError);
    io.stderr(
      `lease-watchdog: could not publish a notification (${outcome.pending.length} kept, retried next check): ${sanitize(message)}`,
    );
  }
  if (outcome.status === 'unreadable') {
    io.stderr(
      `lease-watchdog: ${timeOfDay(at)} cannot read the cluster: ${sanitize(outcome.error.message)}`,
    );
    if (options.output === 'json')
      io.stdout(
        printableJson(
          JSON.stringify({ checkedAt: new Date(at).toISOString(), error: outcome.error.message }),
        ),
      );
    return EXIT_ERROR;
  }
  const { evaluation } = outcome;
  if (options.output === 'json') {
    io.stdout(printableJson(JSON.stringify(toJson(evaluation))));
  } else {
    for (const line of changes(previous, evaluation.nodes, evaluation.checkedAt)) io.stdout(line);
    if (previous === undefined)
      io.stdout(`${timeOfDay(evaluation.checkedAt)}   ${renderSummary(evaluation)}`);
  }
  if (evaluation.degraded)
    io.stderr(`lease-watchdog: warning: degraded check: ${sanitize(evaluation.degraded)}`);
  return evaluation.nodes.some((n) => isAlerting(n.verdict)) ? EXIT_ALERTING : EXIT_OK;
}
