/**
 * The watchdog's metric names and dimensions, apart from Powertools: the metrics adapter writes
 * them (emf-metrics.ts), the stack's alarms and dashboard read them (infra/), without loading it.
 * CloudWatch bills each metric name × dimension set as a metric-month ($0.30), so a metric with
 * the `cluster` dimension costs $0.30 per cluster whatever its size. Only `PER_CLUSTER_METRICS`
 * keep it: `CheckSucceeded` with exactly {service, cluster}, which each cluster's dead-man's
 * switch alarm reads. `FOR_SERVICE_METRICS` are written with {service} alone (deployment-wide
 * alarms and dashboard totals: one metric-month per deployment, not per cluster), as are the
 * metrics of the whole deployment (`recordForService`). The others are not written as metrics:
 * the check's log line carries them per cluster (lambda/use-cases/check-report.ts, `cluster checked`), which the
 * dashboard queries with Logs Insights (infra/dashboard.ts).
 */
import type { MetricName } from '../../ports/index.js';

export type { MetricName, ServiceMetricName } from '../../ports/index.js';
export { NODES_ALERTING_VERDICTS } from '../../ports/index.js';

export const METRICS_NAMESPACE = 'LeaseWatchdog';
export const SERVICE_NAME = 'lease-watchdog';

/**
 * The dimensions of a metric of the whole deployment (and of the metrics in
 * FOR_SERVICE_METRICS): what the stack's deployment-wide alarms read.
 */
export const SERVICE_DIMENSIONS: Readonly<Record<string, string>> = Object.freeze({
  service: SERVICE_NAME,
});

/** The metrics written with {service, cluster}: what a per-cluster alarm reads. */
export const PER_CLUSTER_METRICS: ReadonlySet<MetricName> = new Set(['CheckSucceeded']);

/**
 * The metrics written with {service} alone, summed over clusters: what a deployment-wide alarm
 * reads (NotificationsAbandoned) and the failures the dashboard totals.
 */
export const FOR_SERVICE_METRICS: ReadonlySet<MetricName> = new Set([
  'NotificationsAbandoned',
  'ClusterReadFailures',
  'NotificationsFailed',
  'NotificationEventsFailed',
  'OnCallEventsFailed',
]);
