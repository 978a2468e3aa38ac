/**
 * The watchdog's metrics as CloudWatch embedded-metric-format lines, through Powertools Metrics.
 * Every metric carries the dimensions `service` and `cluster` (and `verdict` for NodesAlerting):
 * the stack's dead-man's switch alarm reads `CheckSucceeded` with exactly {service, cluster}.
 * Metrics of the deployment as a whole (`recordForService`) carry `service` only, and the
 * metrics in `ALSO_FOR_SERVICE` are emitted with both dimension sets in one line, so that one
 * alarm watches every cluster whatever their number.
 */

import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricName, WatchdogMetrics } from './ports.js';

/** The names the function emits, for the stack's alarms to be checked against. */
export type { MetricName, ServiceMetricName } from './ports.js';
export { NODES_ALERTING_VERDICTS } from './ports.js';

export const METRICS_NAMESPACE = 'LeaseWatchdog';
export const SERVICE_NAME = 'lease-watchdog';

/**
 * The dimensions of a metric of the whole deployment (and of the service-wide copy of the
 * metrics in ALSO_FOR_SERVICE): what the stack's deployment-wide alarms read.
 */
export const SERVICE_DIMENSIONS: Readonly<Record<string, string>> = Object.freeze({
  service: SERVICE_NAME,
});

/**
 * Per-cluster metrics that CloudWatch also aggregates over all clusters: the same datapoint with
 * a second dimension set, {service} alone (one EMF line, no second value to keep in step).
 */
export const ALSO_FOR_SERVICE: ReadonlySet<MetricName> = new Set(['NotificationsAbandoned']);

export function powertoolsMetrics(metrics: Metrics): WatchdogMetrics {
  return {
    record(cluster, name, value, unit, extra) {
      // One EMF line per value: each metric has its own cluster dimension.
      const single = metrics.singleMetric();
      single.addDimension('cluster', cluster);
      for (const [key, v] of Object.entries(extra ?? {})) single.addDimension(key, v);
      // An empty set adds the default dimensions alone: {service}.
      if (ALSO_FOR_SERVICE.has(name)) single.addDimensions({});
      single.addMetric(
        name,
        unit === 'Milliseconds' ? MetricUnit.Milliseconds : MetricUnit.Count,
        value,
      );
    },
    recordForService(name, value) {
      // The default dimensions only: {service}.
      metrics.singleMetric().addMetric(name, MetricUnit.Count, value);
    },
  };
}
