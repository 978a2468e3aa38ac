/** What a check's outcome writes to the log: the line the dashboard reads, and the nodes to look at. */

import type { Evaluation, NodeVerdict } from '../core/model.js';
import { VERDICTS } from '../core/model.js';
import { verdictCount, verdictsOf } from '../core/verdict-list.js';
import type { StructuredLogger } from '../ports/index.js';
import type { CycleOutcome } from './check-cycle.js';

/** Node lines per check at most: a zone outage must not flood the log. */
const MAX_NODE_LOG_LINES = 100;

/** The `cluster checked` line (the dashboard's figures) and one line per node not healthy. */
export function logChecked(
  logger: StructuredLogger,
  name: string,
  outcome: CycleOutcome & { status: 'checked' },
  evaluation: Evaluation,
  alerting: number,
  durationMs: number,
): void {
  logger.info('cluster checked', {
    cluster: name,
    // The per-cluster figures the dashboard queries (no metric-month per cluster for them).
    nodes: verdictCount(evaluation),
    ...Object.fromEntries(VERDICTS.map((v) => [v, evaluation.summary[v]])),
    suppressedBy: evaluation.suppressedBy,
    alerting,
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
