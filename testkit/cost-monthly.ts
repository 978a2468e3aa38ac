/**
 * A cluster-month in money: the measured units of a scheduled check and of a look, times what the
 * default deployment runs in a month (cost-deployment.ts), times the price list (cost-prices.ts). Lambda
 * bills duration, and a check is mostly CPU (decoding and parsing lists): an invocation is billed
 * its own CPU at the function's share of a vCPU (`VCPU_SHARE`), not the wall time of this machine,
 * whose cores are whole. Shared by `npm run bench:cost` (bench/cost/) and the tests of its pricing.
 */
import {
  DEAD_MAN_ALARMS,
  LOOKS_PER_MONTH,
  MEMORY_GB,
  RELISTS_PER_MONTH,
  RUNS_PER_MONTH,
  SQS_REQUESTS_PER_LOOK,
  SQS_REQUESTS_PER_RUN,
  SUPERSEDED_PER_MONTH,
  VCPU_SHARE,
} from './cost-deployment.js';
import { PRICES } from './cost-prices.js';

/** What one invocation of one kind (a scheduled check, a look) costs, on average. */
export interface PerRun {
  writeUnits: number;
  readUnits: number;
  publishes: number;
  logBytes: number;
  logLines: number;
  metricRecords: number;
  /** Wall time through the handler in this run, median, seconds. */
  handlerSeconds: number;
}

export interface PerCheck {
  nodes: number;
  /**
   * A check that lists whole Nodes (every check with `nodeRefreshSeconds` 0): its own CPU (all its
   * threads), BENCHMARKS.md's median; what Lambda bills (monthly.ts).
   */
  relistCpuSeconds: number;
  /** A steady check's (warm node cache, `nodeRefreshSeconds`) own CPU, the same way. */
  steadyCpuSeconds: number;
  /**
   * `JSON.parse` of the same relist's pages alone, its CPU, BENCHMARKS.md: the measuring host's
   * speed at the time, which moves every CPU figure here (not billed).
   */
  floorCpuSeconds: number;
  /**
   * A look's cost as a fraction of a steady check's: the ratio of a look's to a scheduled check's
   * wall time, both measured through the handler in this run (side by side, under the same load).
   */
  lookShare: number;
  /** A superseded look's (one that reads nothing) the same way. */
  supersededShare: number;
  check: PerRun;
  look: PerRun;
  superseded: PerRun;
  /** Snapshot rewrites (every SNAPSHOT_MAX_AGE_MS at least): write + delete, per scheduled run. */
  snapshotUnits: number;
  storedBytes: number;
  distinctMetrics: number;
}

/** Dollars a month, by line of the bill. */
export interface Lines {
  [line: string]: number;
}

export const sum = (lines: Lines) => Object.values(lines).reduce((a, b) => a + b, 0);

/**
 * The duration Lambda bills for `cpuSeconds` of the function's own CPU: CPU-bound, at its share of
 * a vCPU. A lower bound: the time it waits for the API server is not in it (the simulated server
 * here shares the cores and cannot stand in for an EKS control plane's).
 */
export const billedSeconds = (cpuSeconds: number): number => cpuSeconds / VCPU_SHARE;

/**
 * The variable cost of one cluster-month: `looksPerMonth` routine looks that read (default the
 * deployment's), each priced as what a look measured here does, and the superseded ones (none
 * when no look reads: no routine looks at all), each as a superseded look does; `everyCheckRelists`: the
 * `nodeRefreshSeconds` 0 variant (every scheduled check and look lists whole Nodes).
 */
export function monthly(
  c: PerCheck,
  looksPerMonth = LOOKS_PER_MONTH,
  everyCheckRelists = false,
): Lines {
  const relist = billedSeconds(c.relistCpuSeconds);
  const steady = billedSeconds(c.steadyCpuSeconds);
  const lookSeconds = everyCheckRelists ? relist : steady * c.lookShare;
  const checkSeconds = everyCheckRelists ? relist : steady;
  // One whole Node list per refresh period, on whichever invocation falls due: its extra over
  // the cheaper of the two.
  const relistExtra = everyCheckRelists
    ? 0
    : RELISTS_PER_MONTH * (relist - Math.min(steady, lookSeconds));
  // Without routine looks, none superseded either.
  const superseded = looksPerMonth > 0 ? SUPERSEDED_PER_MONTH : 0;
  const supersededSeconds = steady * c.supersededShare;
  const gbSeconds =
    (RUNS_PER_MONTH * checkSeconds +
      looksPerMonth * lookSeconds +
      superseded * supersededSeconds +
      relistExtra) *
    MEMORY_GB;
  const runs = RUNS_PER_MONTH;
  const delivered = looksPerMonth + superseded;
  /** A month of one measured quantity: the scheduled checks', the looks' and the superseded looks'. */
  const perMonth = (what: keyof PerRun) =>
    c.check[what] * runs + c.look[what] * looksPerMonth + c.superseded[what] * superseded;
  return {
    'Lambda compute (GB-s)': gbSeconds * PRICES.lambdaGbSecondArm,
    'Lambda requests': PRICES.lambdaRequest * (runs + delivered),
    'EventBridge Scheduler': PRICES.schedulerInvocation * runs,
    'SQS (routine looks: send, receive, delete)':
      PRICES.sqsRequest *
      (looksPerMonth > 0 ? runs * SQS_REQUESTS_PER_RUN + delivered * SQS_REQUESTS_PER_LOOK : 0),
    // The snapshot is rewritten by age (every SNAPSHOT_MAX_AGE_MS), not per check.
    'DynamoDB writes': (perMonth('writeUnits') + c.snapshotUnits * runs) * PRICES.dynamoWriteUnit,
    'DynamoDB reads': perMonth('readUnits') * PRICES.dynamoReadUnit,
    'DynamoDB storage': (c.storedBytes / 1e9) * PRICES.dynamoStorageGbMonth,
    'SNS publishes + email': perMonth('publishes') * (PRICES.snsPublish + PRICES.snsEmailDelivery),
    'CloudWatch Logs ingestion (logs + EMF)': (perMonth('logBytes') / 1e9) * PRICES.logsIngestedGb,
  };
}

/** The per-cluster dead-man's switch: its metric (`CheckSucceeded`) and its alarm. */
export function deadMan(c: PerCheck): number {
  return c.distinctMetrics * PRICES.customMetricMonth + DEAD_MAN_ALARMS * PRICES.alarmMonth;
}
