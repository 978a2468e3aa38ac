/**
 * The fleet's dispatcher: what one `{ "dispatch": { "periodSeconds": N } }` invocation (its one
 * schedule, every period) does. It sends every dispatched cluster's check on its own (the
 * `CheckDispatch` port: SQS, whose event source mapping runs each in an invocation of its own, so
 * one slow or unreachable cluster never delays another), each at a fixed offset of its own within
 * the first SPREAD_SECONDS (the load spread, the gaps between one cluster's checks unchanged).
 *
 * Then the fleet-wide dead-man's switch: from the ledger of each cluster's last successful
 * dispatched check, the clusters with none for DEAD_MAN_PERIODS periods (settings/defaults.ts) are overdue; their count
 * is the `ClustersOverdue` metric (one metric and one alarm for the whole fleet), and a NOTICE
 * names the clusters whose checks stopped, once, and another those checked again.
 *
 * Dispatched: the listed clusters when `dispatch` is set, and every discovered cluster (the
 * directory's) that no listed cluster's name shadows.
 */
import { createHash } from 'node:crypto';
import type { Notification } from '../core/notification.js';
import { checksOverdueNotice } from '../core/watchdog-alerts.js';
import type {
  CheckDispatch,
  CheckLedger,
  ClusterDirectory,
  LedgerView,
  MetricsRecorder,
  Notifier,
  StructuredLogger,
} from '../ports/index.js';
import { DEAD_MAN_PERIODS } from '../settings/defaults.js';
import type { WatchdogSettings } from '../settings/index.js';

/** The checks of one run start within this many seconds of it (each cluster at its own offset). */
export const SPREAD_SECONDS = 10;

export interface DispatchDeps {
  readonly settings: WatchdogSettings;
  readonly directory?: ClusterDirectory | undefined;
  readonly checks: CheckDispatch;
  readonly ledger: CheckLedger;
  readonly notifier: Notifier;
  readonly metrics: MetricsRecorder;
  readonly logger: StructuredLogger;
  readonly clock: () => number;
}

export interface DispatchReport {
  /** The clusters whose checks were sent. */
  readonly dispatched: number;
  /** The clusters whose check SQS did not take. */
  readonly refused: readonly string[];
  /** The clusters overdue now, sorted. */
  readonly overdue: readonly string[];
}

export class DispatchError extends Error {
  override readonly name = 'WatchdogError';
}

/** The clusters the dispatcher checks: the listed ones (with `dispatch`), then the discovered. */
export function dispatchedClusters(
  settings: WatchdogSettings,
  discovered: readonly { readonly name: string }[],
): string[] {
  const listed = new Set(settings.clusters.map((c) => c.name));
  const own = settings.dispatch ? [...listed] : [];
  return [...own, ...discovered.map((c) => c.name).filter((name) => !listed.has(name))];
}

/** Whether `cluster`'s checks are the dispatcher's (so the fleet-wide switch watches it). */
export function isDispatched(settings: WatchdogSettings, cluster: string): boolean {
  return settings.dispatch || !settings.clusters.some((c) => c.name === cluster);
}

/** A cluster's offset within the spread, whole seconds: the same every run. */
export function spreadDelaySeconds(cluster: string, periodSeconds: number): number {
  const spread = Math.max(1, Math.min(SPREAD_SECONDS, periodSeconds));
  return createHash('sha256').update(cluster).digest().readUInt32BE(0) % spread;
}

/** One dispatcher run. Throws WatchdogError when checks could not all be sent. */
export async function dispatchChecks(
  deps: DispatchDeps,
  periodSeconds: number,
  signal?: AbortSignal,
): Promise<DispatchReport> {
  const { logger } = deps;
  let discovered: readonly { readonly name: string }[] = [];
  let directoryError: string | undefined;
  try {
    discovered = (await deps.directory?.discovered()) ?? [];
  } catch (error) {
    directoryError = error instanceof Error ? error.message : String(error);
    logger.error('discovered clusters unknown: only the listed ones are dispatched', {
      error: directoryError,
    });
  }
  const clusters = dispatchedClusters(deps.settings, discovered);
  const checks = clusters.map((cluster) => ({
    cluster,
    delaySeconds: spreadDelaySeconds(cluster, periodSeconds),
  }));
  const refused = checks.length > 0 ? await deps.checks.send(checks, signal) : [];
  const afterMs = periodSeconds * 1000 * DEAD_MAN_PERIODS;
  const overdue = await fleetSwitch(deps, clusters, afterMs, signal);
  logger.info('fleet dispatched', {
    clusters: clusters.length,
    refused: refused.length,
    overdue: overdue.length,
  });
  const problems = [
    refused.length > 0
      ? `SQS did not take the checks of ${refused.length} clusters (${refused.slice(0, 10).join(', ')})`
      : '',
    directoryError === undefined ? '' : `the discovered clusters are unknown: ${directoryError}`,
  ].filter(Boolean);
  if (problems.length > 0) throw new DispatchError(problems.join('; '));
  return { dispatched: clusters.length, refused, overdue };
}

/**
 * The fleet-wide dead-man's switch: reads the ledger, starts the grace of clusters it does not
 * know, publishes `ClustersOverdue`, and the NOTICEs of what changed: one for the clusters newly
 * overdue, one for those checked again (a cluster no longer dispatched is dropped silently); then
 * what was announced is recorded. A NOTICE not published is not recorded: the next run tries
 * again. Returns the overdue.
 */
async function fleetSwitch(
  deps: DispatchDeps,
  clusters: readonly string[],
  afterMs: number,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const now = deps.clock();
  const view = await deps.ledger.read(signal);
  const unknown = clusters.filter((name) => !view.clusters.has(name));
  if (unknown.length > 0) await deps.ledger.begin(unknown, now, signal);
  const overdue = clusters.filter((name) => isOverdue(view, name, now, afterMs)).sort();
  deps.metrics.recordForService('ClustersOverdue', overdue.length, 'Count');
  const { announced } = view;
  const at = deps.clock();
  const before = new Set(announced.filter((name) => clusters.includes(name)));
  const changes = {
    started: overdue.filter((name) => !before.has(name)),
    ended: [...before].filter((name) => !overdue.includes(name)),
  };
  const next = new Set(before);
  for (const state of ['started', 'ended'] as const) {
    const changed = changes[state];
    if (changed.length === 0) continue;
    const notice = checksOverdueNotice(state, changed, { overdue: overdue.length, afterMs }, at);
    if (!(await published(deps, notice, signal))) continue;
    for (const name of changed) state === 'started' ? next.add(name) : next.delete(name);
  }
  const same = next.size === announced.length && announced.every((name) => next.has(name));
  if (!same) await deps.ledger.announce([...next].sort(), at, signal);
  return overdue;
}

function isOverdue(view: LedgerView, cluster: string, now: number, afterMs: number): boolean {
  const entry = view.clusters.get(cluster);
  if (entry === undefined) return false;
  return now - Math.max(entry.checkedAt ?? entry.since, entry.since) > afterMs;
}

async function published(
  deps: DispatchDeps,
  notice: Notification,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  try {
    await deps.notifier.publish(notice, signal);
    deps.logger.warn('fleet notice published', {
      state: notice.notice?.topic === 'checks-overdue' ? notice.notice.state : undefined,
      clusters: notice.notice?.topic === 'checks-overdue' ? notice.notice.clusters.length : 0,
    });
    return true;
  } catch (error) {
    deps.logger.error('fleet notice not published; the next dispatcher run tries again', {
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
}
