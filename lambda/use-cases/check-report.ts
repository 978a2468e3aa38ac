/**
 * What one check's outcome tells the operators (invocation.ts runs the check, then reports it):
 * its metrics — CheckDuration, NotificationsSent, NotificationsFailed, NotificationsAbandoned,
 * ClusterReadFailures, NodesChecked, DegradedChecks, NodesAlerting — and its log lines, among them
 * the dashboard's `cluster checked` and one per node to look at (logChecked). CheckSucceeded, the dead-man's switch, is left to
 * the caller: a check counts as successful only once what follows it is done too.
 */

import { type NodeVerdict, VERDICTS } from '../core/model.js';
import type { Notification } from '../core/notification.js';
import { verdictCount, verdictsOf } from '../core/verdict-list.js';
import {
  type MetricsRecorder,
  NODES_ALERTING_VERDICTS,
  type Notifier,
  type StructuredLogger,
} from '../ports/index.js';
import type { CycleOutcome } from './check-cycle.js';
import type { Abandoned, Delivery } from './outbox-publishing.js';

/** Where a check is reported. */
export interface CheckReporting {
  readonly logger: StructuredLogger;
  readonly metrics: MetricsRecorder;
  /** Names an abandoned notification by its subject, when it can. */
  readonly notifier: Pick<Notifier, 'subjectOf'>;
  /** The watchdog's clock, epoch ms: the check's duration. */
  readonly clock: () => number;
}

/** Reports the outcome of a check of cluster `name` that started at `started` (epoch ms). */
export function reportCheck(
  to: CheckReporting,
  name: string,
  outcome: CycleOutcome,
  started: number,
): void {
  const { logger, metrics, clock } = to;
  metrics.record(name, 'CheckDuration', clock() - started, { unit: 'Milliseconds' });
  if (outcome.status === 'busy') {
    logger.info('another run is checking this cluster; backed off', {
      cluster: name,
      reason: outcome.reason,
    });
    return;
  }
  reportDelivery(to, name, outcome);
  const keptAside = [
    [outcome.reset, 'state was unreadable: reset to empty, the unreadable copy kept'],
    [outcome.silencesSetAside, 'silences could not be honoured: set aside, the copy kept'],
  ] as const;
  for (const [aside, message] of keptAside) {
    if (aside) logger.error(message, { cluster: name, reason: aside.reason, copy: aside.copy });
  }
  if (outcome.status === 'unreadable' && outcome.deleted) {
    logger.info('cannot read the cluster, which is deleted: not paged', {
      cluster: name,
      failure: outcome.error.failure,
    });
    return;
  }
  if (outcome.status === 'unreadable') {
    logger.error('cannot read the cluster', {
      cluster: name,
      failure: outcome.error.failure,
      error: outcome.error.message,
    });
    metrics.record(name, 'ClusterReadFailures', 1);
    return;
  }
  reportEvaluation(to, name, outcome, started);
}

/** The notifications a check published, kept for the next check, or gave up. */
function reportDelivery(to: CheckReporting, name: string, delivery: Delivery): void {
  const { logger, metrics } = to;
  for (const n of delivery.published) {
    logger.info('notification published', {
      cluster: name,
      kind: n.kind,
      id: n.id,
      firing: n.firing.length,
      resolved: n.resolved.length,
    });
  }
  metrics.record(name, 'NotificationsSent', delivery.published.length);
  const { publishError } = delivery;
  if (publishError !== undefined && delivery.pending.length > 0) {
    const message = publishError instanceof Error ? publishError.message : String(publishError);
    logger.error('notification not published; kept for the next check', {
      cluster: name,
      pending: delivery.pending.length,
      error: message,
    });
    metrics.record(name, 'NotificationsFailed', delivery.pending.length);
  }
  reportAbandoned(to, name, delivery.abandoned);
}

/** Notifications given up (refused for good for GIVE_UP_AFTER_MS): logged one by one, counted. */
function reportAbandoned(to: CheckReporting, cluster: string, abandoned: readonly Abandoned[]) {
  const { logger, metrics, notifier } = to;
  for (const { notification, error, refusedForMs } of abandoned) {
    logger.error('notification abandoned: the notifier refused it for good', {
      cluster,
      kind: notification.kind,
      id: notification.id,
      subject: subjectOf(notifier, notification),
      refusedForSeconds: Math.round(refusedForMs / 1000),
      error: error instanceof Error ? error.message : String(error),
    });
  }
  // Written only when one was given up: the alarm treats a missing datapoint as fine, and a
  // metric CloudWatch never receives in a month is not billed ($0.30 saved, docs/COST.md).
  if (abandoned.length > 0) metrics.record(cluster, 'NotificationsAbandoned', abandoned.length);
}

/**
 * The subject of a given-up notification for its log line; its kind when the notifier cannot even
 * render it (the reason it was given up, maybe): the report must not fail where the delivery did.
 */
function subjectOf(notifier: CheckReporting['notifier'], notification: Notification): string {
  try {
    return notifier.subjectOf?.(notification) ?? notification.kind;
  } catch {
    return String(notification.kind);
  }
}

/** What the cluster looked like: the node metrics, and the check's log lines. */
function reportEvaluation(
  to: CheckReporting,
  name: string,
  outcome: CycleOutcome & { status: 'checked' },
  started: number,
): void {
  const { logger, metrics, clock } = to;
  const { evaluation } = outcome;
  const alerting = alertingCount(outcome);
  metrics.record(name, 'NodesChecked', verdictCount(evaluation));
  metrics.record(name, 'DegradedChecks', evaluation.degraded === undefined ? 0 : 1);
  for (const verdict of NODES_ALERTING_VERDICTS) {
    metrics.record(name, 'NodesAlerting', evaluation.summary[verdict], { extra: { verdict } });
  }
  if (outcome.saved === false) {
    // A look that changed nothing: a short line (the scheduled checks log the full one, which
    // the dashboard queries; what a look changes, it logs in full).
    logger.info('cluster looked at: unchanged', {
      cluster: name,
      nodes: verdictCount(evaluation),
      alerting,
      durationMs: clock() - started,
    });
  } else {
    logChecked(logger, name, outcome, clock() - started);
  }
}

/** Nodes that page in a checked outcome (expired, not-ready, missing-lease); 0 otherwise. */
export function alertingCount(outcome: CycleOutcome): number {
  if (outcome.status !== 'checked') return 0;
  const s = outcome.evaluation.summary;
  return s.expired + s['not-ready'] + s['missing-lease'];
}

/** Node lines per check at most: a zone outage must not flood the log. */
const MAX_NODE_LOG_LINES = 100;

/** The `cluster checked` line (the dashboard's figures) and one line per node not healthy. */
function logChecked(
  logger: StructuredLogger,
  name: string,
  outcome: CycleOutcome & { status: 'checked' },
  durationMs: number,
): void {
  const { evaluation } = outcome;
  logger.info('cluster checked', {
    cluster: name,
    // The per-cluster figures the dashboard queries (no metric-month per cluster for them).
    nodes: verdictCount(evaluation),
    ...Object.fromEntries(VERDICTS.map((v) => [v, evaluation.summary[v]])),
    suppressedBy: evaluation.suppressedBy,
    alerting: alertingCount(outcome),
    notificationsSent: outcome.published.length,
    notificationsFailed: outcome.publishError === undefined ? 0 : outcome.pending.length,
    degraded: evaluation.degraded,
    suspect: evaluation.suspect,
    durationMs,
  });
  // One line per node that is not healthy, capped: a zone outage must not flood the log.
  const notable: NodeVerdict[] = [];
  for (const n of verdictsOf(evaluation)) {
    if (n.verdict !== 'healthy' && n.verdict !== 'orphaned-lease') notable.push(n);
  }
  if (notable.length > MAX_NODE_LOG_LINES) {
    logger.info('more nodes are not healthy than are logged one by one', {
      cluster: name,
      notHealthy: notable.length,
      logged: MAX_NODE_LOG_LINES,
    });
  }
  for (const node of notable.slice(0, MAX_NODE_LOG_LINES)) {
    logger.info('node verdict', {
      cluster: name,
      node: node.name,
      verdict: node.verdict,
      silentForSeconds: node.silentForSeconds,
      reason: node.reason,
    });
  }
}
