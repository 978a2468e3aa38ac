/**
 * The watchdog's metrics as CloudWatch embedded-metric-format lines, through Powertools Metrics.
 * Every metric carries the dimensions `service` and `cluster` (and `verdict` for NodesAlerting):
 * the stack's dead-man's-switch alarm reads `CheckSucceeded` with exactly {service, cluster}.
 */

import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { WatchdogMetrics } from './ports.js';

export const METRICS_NAMESPACE = 'LeaseWatchdog';
export const SERVICE_NAME = 'lease-watchdog';

export function powertoolsMetrics(metrics: Metrics): WatchdogMetrics {
  return {
    record(cluster, name, value, unit, extra) {
      // One EMF line per value: each metric has its own cluster dimension.
      const single = metrics.singleMetric();
      single.addDimension('cluster', cluster);
      for (const [key, v] of Object.entries(extra ?? {})) single.addDimension(key, v);
      single.addMetric(
        name,
        unit === 'Milliseconds' ? MetricUnit.Milliseconds : MetricUnit.Count,
        value,
      );
    },
  };
}
