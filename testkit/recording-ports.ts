/**
 * Fakes at the telemetry ports for end-to-end tests: metrics and a logger that record every call,
 * in order, so a test asserts on what the watchdog reported instead of parsing its output.
 */
import type {
  MetricName,
  MetricOptions,
  MetricsRecorder,
  ServiceMetricName,
  StructuredLogger,
} from '../lambda/ports/index.js';

export interface RecordedMetric {
  readonly cluster: string;
  readonly name: MetricName;
  readonly value: number;
  readonly unit: string;
  readonly extra?: Record<string, string> | undefined;
}

/** Metrics at the port: every record, in order. */
export class RecordingMetrics implements MetricsRecorder {
  readonly records: RecordedMetric[] = [];
  /** Optional observer (e.g. to log the order of events across parts). */
  onRecord: ((metric: RecordedMetric) => void) | undefined;

  record(
    cluster: string,
    name: MetricName,
    value: number,
    { unit = 'Count', extra }: MetricOptions = {},
  ): void {
    const metric = { cluster, name, value, unit, extra };
    this.records.push(metric);
    this.onRecord?.(metric);
  }

  /** Records of one metric (for one cluster, when given). */
  of(name: MetricName, cluster?: string): RecordedMetric[] {
    return this.records.filter((m) => m.name === name && (!cluster || m.cluster === cluster));
  }

  /** How many records of `name` were made since `mark` (an index from `mark()`). */
  countSince(mark: number, name: MetricName, cluster?: string): number {
    return this.records
      .slice(mark)
      .filter((m) => m.name === name && (!cluster || m.cluster === cluster)).length;
  }

  mark(): number {
    return this.records.length;
  }

  /** Metrics of the whole deployment (`recordForService`), in order. */
  readonly service: { name: ServiceMetricName; value: number; unit: string }[] = [];

  recordForService(name: ServiceMetricName, value: number, unit: 'Count'): void {
    this.service.push({ name, value, unit });
  }
}

export interface LogEntry {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

/** A logger at the port: every entry, in order. */
export class RecordingLogger implements StructuredLogger {
  readonly entries: LogEntry[] = [];
  info(message: string, fields: Record<string, unknown> = {}): void {
    this.entries.push({ level: 'info', message, fields });
  }
  warn(message: string, fields: Record<string, unknown> = {}): void {
    this.entries.push({ level: 'warn', message, fields });
  }
  error(message: string, fields: Record<string, unknown> = {}): void {
    this.entries.push({ level: 'error', message, fields });
  }
}
