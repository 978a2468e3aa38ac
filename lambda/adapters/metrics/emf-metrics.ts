/**
 * The watchdog's metrics as CloudWatch embedded-metric-format lines, through Powertools Metrics:
 * which are written, and with which dimensions, is in metric-names.ts.
 */

import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricsRecorder } from '../../ports/index.js';
import { FOR_SERVICE_METRICS, PER_CLUSTER_METRICS } from './metric-names.js';

export function powertoolsMetrics(metrics: Metrics): MetricsRecorder {
  return {
    record(cluster, name, value, { unit = 'Count', extra } = {}) {
      // Not a metric: the check's log line carries it (a metric-month per cluster saved).
      if (!PER_CLUSTER_METRICS.has(name) && !FOR_SERVICE_METRICS.has(name)) return;
      const single = metrics.singleMetric();
      if (PER_CLUSTER_METRICS.has(name)) single.addDimension('cluster', cluster);
      // Otherwise the default dimensions, {service}, and its own (OnCallEventsFailed's receiver).
      for (const [key, v] of Object.entries(extra ?? {})) single.addDimension(key, v);
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
