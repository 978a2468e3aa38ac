/** Observing the watchdog itself: its logs and metrics. */
import type { Verdict } from '../core/model.js';

/** The few logger methods the watchdog uses (Powertools Logger satisfies it). */
export interface StructuredLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export type MetricName =
  | 'CheckSucceeded'
  | 'CheckDuration'
  | 'NodesChecked'
  | 'NodesAlerting'
  | 'ClusterReadFailures'
  | 'NotificationsSent'
  | 'NotificationsFailed'
  /** Notifications given up after being refused for good for GIVE_UP_AFTER_MS (30 min). */
  | 'NotificationsAbandoned'
  /** 1 for a check that ran degraded (Nodes unreadable, leases read), 0 for a complete one. */
  | 'DegradedChecks'
  /** Notifications the topic accepted whose EventBridge event (`eventBus`) could not be put. */
  | 'NotificationEventsFailed'
  /** On-call events (PagerDuty, Opsgenie) a tool did not take: each failed attempt, each given up. */
  | 'OnCallEventsFailed';

/** The verdicts `NodesAlerting` is emitted for (dimension `verdict`), one value each per check. */
export const NODES_ALERTING_VERDICTS = [
  'expired',
  'not-ready',
  'missing-lease',
] as const satisfies readonly Verdict[];

/** How a metric is measured (a count unless said) and its own dimensions, if any (`extra`). */
export interface MetricOptions {
  readonly unit?: 'Count' | 'Milliseconds';
  readonly extra?: Record<string, string>;
}

/** Metrics of one cluster's check; the adapter decides their dimensions (lambda/adapters/metrics/metric-names.ts). */
export interface MetricsRecorder {
  record(cluster: string, name: MetricName, value: number, options?: MetricOptions): void;
  /** A metric of the deployment as a whole, not of one cluster (no `cluster` dimension). */
  recordForService(name: ServiceMetricName, value: number, unit: 'Count'): void;
}

/** Metrics of the deployment as a whole. */
export type ServiceMetricName =
  /** How many confirmed subscriptions the notification topic has. */
  | 'ConfirmedSubscriptions'
  /** The fleet's clusters with no successful dispatched check for too long (each dispatcher run). */
  | 'ClustersOverdue';
