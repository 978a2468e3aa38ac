/**
 * `npm run bench:cost`: the variable cost of one cluster per month at the default settings, from
 * units measured in this run, times dated list prices. Rewrites docs/COST.md.
 *
 * At 100 / 1,000 / 5,000 / 100,000 nodes the handler built by `createHandler` checks a simulated
 * cluster over HTTPS (testkit/watchdog-harness.ts: dynalite, the local SNS server) as the
 * default deployment does: a scheduled run, then its routine looks (SQS-triggered, ROUTINE_LOOKS_MS),
 * each delivered as the event source mapping delivers it. Measured per scheduled check and per
 * look apart: DynamoDB capacity units (as dynalite reports them, by DynamoDB's rules), SNS
 * publishes, log lines and bytes, metric records, and each look's wall time through the handler.
 * A scheduled check's duration is the steady-check median of docs/BENCHMARKS.md's check section
 * plus a relist's extra once per `nodeRefreshSeconds` (`npm run bench`); the same run's scheduled
 * checks through the handler are shown beside it.
 *
 *   npm run bench:cost            (BENCH_COST_CHECKS=5 by default; 2 at 100,000 nodes)
 */

import { readFile, writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import {
  FOR_SERVICE_METRICS,
  PER_CLUSTER_METRICS,
} from '../lambda/adapters/metrics/emf-metrics.js';
import { DynamoDbStateStore } from '../lambda/adapters/state/dynamodb/dynamodb-store.js';
import { SNAPSHOT_MAX_AGE_MS } from '../lambda/adapters/state/dynamodb/observation-snapshot.js';
import { DEFAULTS } from '../lambda/settings/index.js';
import { ROUTINE_LOOKS_MS } from '../lambda/use-cases/invocation.js';
import { countUnits } from '../testkit/capacity-units.js';
import { localClient, startLocalDynamoDb } from '../testkit/dynalite.js';
import { healthyObservations, nodeNames, sampleAlerts } from '../testkit/state-fixtures.js';
import { type Container, SCHEDULE_MS, startWatchdogHarness } from '../testkit/watchdog-harness.js';

const ROOT = new URL('..', import.meta.url).pathname;
const CHECKS = Number(process.env.BENCH_COST_CHECKS ?? 5);
/** At 100,000 nodes each check takes tens of seconds on this machine: fewer of them. */
const BIG_CHECKS = Math.min(CHECKS, 2);
const RUNS_PER_MONTH = 43_200; // 30 days of the default 1-minute schedule
/** Each scheduled run asks (through SQS) for routine looks, each an invocation of its own. */
const LOOKS_PER_RUN = ROUTINE_LOOKS_MS.length;
const LOOKS_PER_MONTH = RUNS_PER_MONTH * LOOKS_PER_RUN;
/** Whole Node lists a month: one per `nodeRefreshSeconds` (on a scheduled run or a look). */
const RELISTS_PER_MONTH = (RUNS_PER_MONTH * SCHEDULE_MS) / (DEFAULTS.nodeRefreshSeconds * 1000);
const MEMORY_GB = 512 / 1024; // the stack's default memoryMb (lambda/settings/defaults.ts), arm64
/**
 * Lambda gives a function CPU in proportion to its memory (1,769 MB = 1 vCPU): at 512 MB about
 * 0.29 vCPU. The durations come from a 2-core machine; a check is mostly CPU (parsing lists), so
 * on the function it may take up to this many times longer (a sensitivity, not in the totals).
 */
const LAMBDA_SLOWDOWN = 3;
/** Powertools' JSON envelope around each log line (timestamp, level, service, function context). */
const LOG_ENVELOPE_BYTES = 330;
/** One EMF metric record as CloudWatch ingests it (the `_aws` metadata, dimensions, value). */
const EMF_BYTES_PER_RECORD = 260;
/**
 * SQS requests, counted as SQS bills them (a batch request is one request per 64 KB): a scheduled
 * run asks for its routine looks in one SendMessageBatch; each look is received by the event source
 * mapping (one ReceiveMessage: one cluster's looks are 40 s apart and never share a batch) and
 * deleted after the invocation (one DeleteMessageBatch). A suspect's re-check (not in a healthy
 * cluster) costs a SendMessage more. The mapping's polling of an empty queue is in the fixed costs.
 */
const SQS_REQUESTS_PER_RUN = 1;
const SQS_REQUESTS_PER_LOOK = 2;
/**
 * The event source mapping polls the queue even when it is empty: Lambda polls a standard queue
 * with long polling, starting with five concurrent pollers (AWS Compute Blog, "Understanding how
 * AWS Lambda scales with Amazon SQS standard queues"; Lambda developer guide, "Using Lambda with
 * Amazon SQS"), and a long poll waits at most 20 s (SQS developer guide, "Setting-up long polling").
 * An estimate: 5 pollers × 3 empty receives a minute, all month.
 */
const IDLE_POLLERS = 5;
const IDLE_RECEIVES_PER_MONTH = IDLE_POLLERS * 3 * 60 * 24 * 30;
/** The per-cluster dead-man's switch: its alarm (`NoSuccessfulCheck-<cluster>`), beside its metric. */
const DEAD_MAN_ALARMS = 1;

/** us-east-1 list prices, as of 2026-11-30, from aws.amazon.com/<service>/pricing. */
const PRICES = {
  lambdaGbSecondArm: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  schedulerInvocation: 1.0 / 1e6,
  sqsRequest: 0.4 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  dynamoStorageGbMonth: 0.25,
  snsPublish: 0.5 / 1e6,
  snsEmailDelivery: 2.0 / 1e5,
  logsIngestedGb: 0.5,
  customMetricMonth: 0.3,
  kmsKeyMonth: 1.0,
  alarmMonth: 0.1,
  secretMonth: 0.4,
  dashboardMonth: 3.0,
};

/** What one invocation of one kind (a scheduled check, a look) costs, on average. */
interface PerRun {
  writeUnits: number;
  readUnits: number;
  publishes: number;
  logBytes: number;
  logLines: number;
  metricRecords: number;
  /** Wall time through the handler in this run, median, seconds. */
  handlerSeconds: number;
}

interface PerCheck {
  nodes: number;
  /** A scheduled check's duration at the defaults (steady, and a relist once per refresh). */
  seconds: number;
  /** A check that lists whole Nodes (every check with `nodeRefreshSeconds` 0), BENCHMARKS.md. */
  relistSeconds: number;
  /** A steady check's median (warm node cache, `nodeRefreshSeconds`), docs/BENCHMARKS.md. */
  steadySeconds: number;
  secondsSource: string;
  /**
   * A look's duration: the steady check's, times the ratio of a look's to a scheduled check's
   * wall time, both measured through the handler in this run (side by side, under the same load).
   */
  lookSeconds: number;
  check: PerRun;
  look: PerRun;
  /** Snapshot rewrites (every SNAPSHOT_MAX_AGE_MS at least): write + delete, per scheduled run. */
  snapshotUnits: number;
  storedBytes: number;
  distinctMetrics: number;
}

/** The write units of a snapshot of `nodes` healthy observations, and its stored bytes. */
async function snapshotCost(nodes: number): Promise<{ units: number; bytes: number }> {
  const local = await startLocalDynamoDb();
  try {
    await local.createStateTable('cost');
    const client = localClient(local.endpoint, 3);
    const store = new DynamoDbStateStore({ client, tableName: 'cost' });
    const names = nodeNames(nodes);
    const at = Date.UTC(2026, 10, 30, 12, 0, 0);
    const state = {
      observations: healthyObservations(names, at, 2),
      alerts: sampleAlerts(at, []),
      outbox: [],
    };
    await store.save('c', state, 0);
    const usage = store.usage();
    client.destroy();
    return { units: usage.writeCapacityUnits, bytes: usage.bytesWritten };
  } finally {
    await local.stop();
  }
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

let looks = 0;
/** One look of `prod`, as the SQS event source mapping delivers it. */
function lookEvent() {
  return { Records: [{ messageId: `look-${++looks}`, body: '{"cluster":"prod","recheck":[]}' }] };
}

async function measure(nodes: number, checks: number): Promise<PerCheck> {
  const h = await startWatchdogHarness({
    clusters: { prod: { nodes } },
    requestTimeoutSeconds: 300,
  });
  try {
    const lambda = h.container();
    const units = countUnits(lambda.dynamodb);
    const invocation = { remainingMs: 900_000 };
    const runs: { check: Sample[]; look: Sample[] } = { check: [], look: [] };
    const sample = async (kind: 'check' | 'look', invoke: () => Promise<unknown>) => {
      const before = mark(lambda, units, h.sns.messages.length);
      const t0 = performance.now();
      await invoke();
      const seconds = (performance.now() - t0) / 1000;
      runs[kind].push(since(lambda, units, h.sns.messages.length, before, seconds));
    };
    // Warm-up: the first check lists whole Nodes; the second learns the clock offsets.
    for (let i = 0; i < 2; i++) {
      h.clock.advance(SCHEDULE_MS);
      await lambda.invoke(null, invocation);
    }
    const step = SCHEDULE_MS / (LOOKS_PER_RUN + 1);
    for (let i = 0; i < checks; i++) {
      h.clock.advance(step);
      await sample('check', () => lambda.invoke(null, invocation));
      for (let k = 0; k < LOOKS_PER_RUN; k++) {
        h.clock.advance(step);
        await sample('look', () => lambda.invoke(lookEvent(), invocation));
      }
    }
    const snapshot = await snapshotCost(nodes);
    const relist = await benchmarkedSeconds(Math.max(nodes, 1_000));
    const steady = await benchmarkedSeconds(Math.max(nodes, 1_000), STEADY_COLUMN);
    const records = lambda.metrics.records;
    const check = average(runs.check);
    const look = average(runs.look);
    return {
      nodes,
      seconds: steady,
      relistSeconds: relist,
      steadySeconds: steady,
      secondsSource: nodes < 1_000 ? 'the 1,000-node figure, an upper bound' : '',
      lookSeconds: steady * (look.handlerSeconds / check.handlerSeconds),
      check,
      look,
      snapshotUnits: (2 * snapshot.units) / (SNAPSHOT_MAX_AGE_MS / SCHEDULE_MS),
      storedBytes: snapshot.bytes,
      // Billed per cluster: the metrics with the cluster dimension (lambda/adapters/metrics/emf-metrics.ts).
      distinctMetrics: new Set(
        records
          .filter((r) => PER_CLUSTER_METRICS.has(r.name))
          .map((r) => `${r.name}|${JSON.stringify(r.extra ?? {})}`),
      ).size,
    };
  } finally {
    await h.close();
  }
}

interface Sample extends PerRun {}
interface Mark {
  write: number;
  read: number;
  publishes: number;
  log: number;
  metrics: number;
}

function mark(lambda: Container, units: { read: number; write: number }, sent: number): Mark {
  return {
    ...units,
    publishes: sent,
    log: lambda.logger.entries.length,
    metrics: lambda.metrics.records.length,
  };
}

function since(
  lambda: Container,
  units: { read: number; write: number },
  sent: number,
  before: Mark,
  seconds: number,
): Sample {
  const lines = lambda.logger.entries.slice(before.log);
  const emitted = lambda.metrics.records
    .slice(before.metrics)
    .filter((r) => PER_CLUSTER_METRICS.has(r.name) || FOR_SERVICE_METRICS.has(r.name));
  const logBytes = lines.reduce(
    (sum, e) =>
      sum +
      LOG_ENVELOPE_BYTES +
      Buffer.byteLength(JSON.stringify({ level: e.level, message: e.message, ...e.fields })),
    0,
  );
  return {
    writeUnits: units.write - before.write,
    readUnits: units.read - before.read,
    publishes: sent - before.publishes,
    logBytes: logBytes + emitted.length * EMF_BYTES_PER_RECORD,
    logLines: lines.length,
    metricRecords: emitted.length,
    handlerSeconds: seconds,
  };
}

function average(samples: readonly Sample[]): PerRun {
  const mean = (f: (s: Sample) => number) =>
    samples.reduce((sum, s) => sum + f(s), 0) / Math.max(1, samples.length);
  return {
    writeUnits: mean((s) => s.writeUnits),
    readUnits: mean((s) => s.readUnits),
    publishes: mean((s) => s.publishes),
    logBytes: mean((s) => s.logBytes),
    logLines: mean((s) => s.logLines),
    metricRecords: mean((s) => s.metricRecords),
    handlerSeconds: median(samples.map((s) => s.handlerSeconds)),
  };
}

/** Columns of BENCHMARKS.md's check table: the relist (full) check's and the steady check's medians. */
const RELIST_COLUMN = 2;
const STEADY_COLUMN = 10;

/** A full check's median from docs/BENCHMARKS.md's check section (`npm run bench`), seconds. */
async function benchmarkedSeconds(nodes: number, column = RELIST_COLUMN): Promise<number> {
  const text = await readFile(`${ROOT}docs/BENCHMARKS.md`, 'utf8');
  const label = nodes.toLocaleString('en');
  const row = text.split('\n').find((line) => line.startsWith(`| ${label} | `));
  const seconds = Number(row?.split('|')[column]?.trim().replace(/ s$/, ''));
  if (!Number.isFinite(seconds)) throw new Error(`no ${label}-node row in docs/BENCHMARKS.md`);
  return seconds;
}

interface Lines {
  [line: string]: number;
}

/**
 * The variable cost of one cluster-month: `looksPerMonth` routine looks (default the
 * deployment's), each priced as what a look measured here does; `everyCheckRelists`: the
 * `nodeRefreshSeconds` 0 variant (every scheduled check and look lists whole Nodes).
 */
function monthly(c: PerCheck, looksPerMonth = LOOKS_PER_MONTH, everyCheckRelists = false): Lines {
  const lookSeconds = everyCheckRelists ? c.relistSeconds : c.lookSeconds;
  const checkSeconds = everyCheckRelists ? c.relistSeconds : c.steadySeconds;
  // One whole Node list per refresh period, on whichever invocation falls due: its extra over
  // the cheaper of the two.
  const relistExtra = everyCheckRelists
    ? 0
    : RELISTS_PER_MONTH * (c.relistSeconds - Math.min(c.steadySeconds, lookSeconds));
  const gbSeconds =
    (RUNS_PER_MONTH * checkSeconds + looksPerMonth * lookSeconds + relistExtra) * MEMORY_GB;
  const runs = RUNS_PER_MONTH;
  return {
    'Lambda compute (GB-s)': gbSeconds * PRICES.lambdaGbSecondArm,
    'Lambda requests': PRICES.lambdaRequest * (runs + looksPerMonth),
    'EventBridge Scheduler': PRICES.schedulerInvocation * runs,
    'SQS (routine looks: send, receive, delete)':
      PRICES.sqsRequest *
      (looksPerMonth > 0 ? runs * SQS_REQUESTS_PER_RUN + looksPerMonth * SQS_REQUESTS_PER_LOOK : 0),
    // The snapshot is rewritten by age (every SNAPSHOT_MAX_AGE_MS), not per check.
    'DynamoDB writes':
      (c.check.writeUnits * runs + c.look.writeUnits * looksPerMonth + c.snapshotUnits * runs) *
      PRICES.dynamoWriteUnit,
    'DynamoDB reads':
      (c.check.readUnits * runs + c.look.readUnits * looksPerMonth) * PRICES.dynamoReadUnit,
    'DynamoDB storage': (c.storedBytes / 1e9) * PRICES.dynamoStorageGbMonth,
    'SNS publishes + email':
      (c.check.publishes * runs + c.look.publishes * looksPerMonth) *
      (PRICES.snsPublish + PRICES.snsEmailDelivery),
    'CloudWatch Logs ingestion (logs + EMF)':
      ((c.check.logBytes * runs + c.look.logBytes * looksPerMonth) / 1e9) * PRICES.logsIngestedGb,
  };
}

/** The per-cluster dead-man's switch: its metric (`CheckSucceeded`) and its alarm. */
function deadMan(c: PerCheck): number {
  return c.distinctMetrics * PRICES.customMetricMonth + DEAD_MAN_ALARMS * PRICES.alarmMonth;
}

const GOALS: Record<number, number> = { 1000: 0.5, 5000: 1, 100000: 5 };
/** BENCH_COST_SIZES=100,1000 for a quick look (the goals' rows need all four). */
const SIZES = (process.env.BENCH_COST_SIZES ?? '100,1000,5000,100000').split(',').map(Number);
const measured: PerCheck[] = [];
for (const nodes of SIZES) {
  console.error(`measuring ${nodes} nodes...`);
  const started = performance.now();
  measured.push(await measure(nodes, nodes >= 100_000 ? BIG_CHECKS : CHECKS));
  console.error(`  ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
for (const c of measured) c.seconds = c.steadySeconds;
const big = measured[measured.length - 1] as PerCheck;

const bigSteadyCpu = await benchmarkedSeconds(big.nodes, STEADY_COLUMN + 1);
const sum = (lines: Lines) => Object.values(lines).reduce((a, b) => a + b, 0);
const money = (x: number): string => (x < 0.005 && x > 0 ? '<$0.01' : `$${x.toFixed(2)}`);
const lineNames = Object.keys(monthly(big));
const out: string[] = [];
out.push(
  '| per cluster-month | ' +
    measured.map((c) => `${c.nodes.toLocaleString('en')} nodes`).join(' | ') +
    ' |',
);
out.push(`|---|${measured.map(() => '---:').join('|')}|`);
const totals = measured.map((c) => sum(monthly(c)));
for (const name of lineNames) {
  out.push(`| ${name} | ${measured.map((c) => money(monthly(c)[name] ?? 0)).join(' | ')} |`);
}
out.push(`| **variable total** (the goal) | ${totals.map((t) => `**${money(t)}**`).join(' | ')} |`);
out.push(
  `| goal | ${measured
    .map((c, i) => {
      const goal = GOALS[c.nodes];
      const total = totals[i] ?? 0;
      return goal === undefined
        ? '—'
        : total <= goal
          ? `≤ $${goal}: **met** (${money(goal - total)} to spare)`
          : `≤ $${goal}: **missed** by ${money(total - goal)} (${(total / goal).toFixed(1)}×)`;
    })
    .join(' | ')} |`,
);
out.push(
  `| dead-man's switch (\`CheckSucceeded\` metric + its alarm), fixed per cluster | ${measured
    .map((c) => money(deadMan(c)))
    .join(' | ')} |`,
);
out.push(
  `| **all-in per cluster** | ${measured
    .map((c, i) => `**${money((totals[i] ?? 0) + deadMan(c))}**`)
    .join(' | ')} |`,
);
out.push(
  `| variable, without the routine looks | ${measured
    .map((c) => money(sum(monthly(c, 0))))
    .join(' | ')} |`,
);
out.push(
  `| variable, with \`nodeRefreshSeconds\` 0 (every check and look lists whole Nodes) | ${measured
    .map((c) => money(sum(monthly(c, LOOKS_PER_MONTH, true))))
    .join(' | ')} |`,
);
out.push(
  `| biggest line | ${measured
    .map((c) => Object.entries(monthly(c)).sort((a, b) => b[1] - a[1])[0]?.[0] ?? '')
    .join(' | ')} |`,
);

const units: string[] = [];
units.push(
  '| per invocation | ' +
    measured.map((c) => `${c.nodes.toLocaleString('en')} nodes`).join(' | ') +
    ' |',
);
units.push(`|---|${measured.map(() => '---:').join('|')}|`);
const row = (name: string, f: (c: PerCheck) => string) =>
  units.push(`| ${name} | ${measured.map(f).join(' | ')} |`);
row(
  'scheduled check, s (BENCHMARKS.md: steady; relist)',
  (c) =>
    `${c.steadySeconds.toFixed(2)}; ${c.relistSeconds.toFixed(2)}${c.secondsSource ? ` (${c.secondsSource})` : ''}`,
);
row('scheduled check through the handler, this run, s (median)', (c) =>
  c.check.handlerSeconds.toFixed(2),
);
row('look through the handler, this run, s (median)', (c) => c.look.handlerSeconds.toFixed(2));
row(
  '**look, priced** (steady × look ÷ check through the handler), s',
  (c) =>
    `${c.lookSeconds.toFixed(2)} (${((100 * c.look.handlerSeconds) / c.check.handlerSeconds).toFixed(0)} % of a check)`,
);
row(
  'DynamoDB write units: check / look',
  (c) => `${c.check.writeUnits.toFixed(1)} / ${c.look.writeUnits.toFixed(1)}`,
);
row('+ snapshot rewrites per check, amortised', (c) => c.snapshotUnits.toFixed(2));
row(
  'DynamoDB read units: check / look',
  (c) => `${c.check.readUnits.toFixed(1)} / ${c.look.readUnits.toFixed(1)}`,
);
row(
  'SNS publishes: check / look',
  (c) => `${c.check.publishes.toFixed(1)} / ${c.look.publishes.toFixed(1)}`,
);
row(
  'log lines / bytes with EMF: check',
  (c) => `${c.check.logLines.toFixed(1)} / ${Math.round(c.check.logBytes)}`,
);
row(
  'log lines / bytes with EMF: look',
  (c) => `${c.look.logLines.toFixed(1)} / ${Math.round(c.look.logBytes)}`,
);
row(
  'EMF records: check / look; metrics with the cluster dimension',
  (c) =>
    `${c.check.metricRecords.toFixed(1)} / ${c.look.metricRecords.toFixed(1)}; ${c.distinctMetrics}`,
);
row('state stored (bytes)', (c) => c.storedBytes.toLocaleString('en'));

const verdicts = measured
  .map((c, i) => {
    const goal = GOALS[c.nodes];
    if (goal === undefined) return undefined;
    const total = totals[i] ?? 0;
    const biggest = Object.entries(monthly(c)).sort(([, a], [, b]) => b - a)[0] ?? ['', 0];
    return `${c.nodes.toLocaleString('en')} nodes: variable ${money(total)} against ≤ $${goal}, ${total <= goal ? '**met**' : `**missed** by ${money(total - goal)}`} (biggest line ${biggest[0]}, ${money(biggest[1])}); all-in with the dead-man's switch ${money(total + deadMan(c))}`;
  })
  .filter((v): v is string => v !== undefined);
const looksAt = (c: PerCheck) => sum(monthly(c)) - sum(monthly(c, 0));
const idleSqs = IDLE_RECEIVES_PER_MONTH * PRICES.sqsRequest;

const fixed = [
  `Per cluster: its dead-man's switch, the \`CheckSucceeded\` metric ($${PRICES.customMetricMonth.toFixed(2)} a metric-month) and the \`NoSuccessfulCheck-<cluster>\` alarm that reads it ($${PRICES.alarmMonth.toFixed(2)}): $${(PRICES.customMetricMonth + PRICES.alarmMonth).toFixed(2)} (in the table's all-in row)`,
  `KMS key (SNS topic encryption): $${PRICES.kmsKeyMonth.toFixed(2)}`,
  `CloudWatch alarms of the deployment: $${PRICES.alarmMonth.toFixed(2)} each (standard resolution)`,
  `Secrets Manager: $${PRICES.secretMonth.toFixed(2)} per secret (a token-mode cluster's token)`,
  `CloudWatch dashboard: $${PRICES.dashboardMonth.toFixed(2)} (the first three per account are free)`,
  `CloudWatch custom metrics of the whole deployment ({service} only, lambda/adapters/metrics/emf-metrics.ts): up to ${FOR_SERVICE_METRICS.size + 1} × $${PRICES.customMetricMonth.toFixed(2)} = $${((FOR_SERVICE_METRICS.size + 1) * PRICES.customMetricMonth).toFixed(2)} (${[...FOR_SERVICE_METRICS].join(', ')}, ConfirmedSubscriptions; a metric is billed only in a month it is written: NotificationsAbandoned and ConfirmedSubscriptions are written every check, the other failure counts only when such a failure happens)`,
  `SQS, the event source mapping polling the empty look queue: Lambda long-polls a standard queue with ${IDLE_POLLERS} pollers to start with ([AWS Compute Blog](https://aws.amazon.com/blogs/compute/understanding-how-aws-lambda-scales-when-subscribed-to-amazon-sqs-queues/); [Lambda developer guide](https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html)), each long poll waiting at most 20 s ([SQS developer guide](https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/best-practices-setting-up-long-polling.html)): an estimate of ${IDLE_RECEIVES_PER_MONTH.toLocaleString('en')} empty receives a month (${IDLE_POLLERS} × 3 a minute), ${money(idleSqs)}, whatever the number of clusters`,
];

const doc = `# What the watchdog costs

<!-- Generated by \`npm run bench:cost\` (bench/cost.ts); do not edit by hand. -->

Cost of **one cluster** per month at the default settings: a scheduled run every minute
(${RUNS_PER_MONTH.toLocaleString('en')} in 30 days), each asking through SQS (one \`SendMessageBatch\`) for ${LOOKS_PER_RUN} routine looks
(\`ROUTINE_LOOKS_MS\` in lambda/use-cases/invocation.ts): ${LOOKS_PER_MONTH.toLocaleString('en')} looks a month, each an SQS-triggered
invocation that lists the Leases alone (and GETs a node that may page), and saves and logs in
full only what changed; the function on **arm64 with 512 MB** (\`memoryMb\`, the stack's default),
a healthy cluster in steady state (no alert, nothing published, no suspect re-check). One
deployment that checks several clusters in one invocation shares the Lambda request and the
Scheduler invocation between them; the rest is per cluster.

Prices: AWS list prices for **us-east-1 as of 2026-11-30**, from the services' pricing pages
(aws.amazon.com/lambda/pricing, /eventbridge/pricing, /sqs/pricing, /dynamodb/pricing/on-demand,
/sns/pricing, /cloudwatch/pricing, /kms/pricing, /secrets-manager/pricing), free tiers ignored:
Lambda arm64 $${PRICES.lambdaGbSecondArm} per GB-s and $0.20 per million requests; EventBridge
Scheduler $1.00 per million invocations; SQS $0.40 per million requests (a batch request counts
as one per 64 KB); DynamoDB on-demand $0.625 per million write request units, $0.125 per million
read request units, $0.25 per GB-month; SNS $0.50 per million publishes, $2.00 per 100,000 email
deliveries; CloudWatch Logs $0.50 per GB ingested, custom metrics $0.30 per metric-month, alarms
$0.10 each.

## Per cluster-month

${out.join('\n')}

**What the goal is judged on.** Issue 9 §4 sets the goal on the variable cost per cluster-month,
whose units it names (Lambda, Scheduler, SQS, DynamoDB, SNS), with alarms among the fixed costs
apart; CloudWatch Logs ingestion grows with the checks, so it stays in the variable cost here
(conservatively). The per-cluster \`CheckSucceeded\` metric ($0.30) exists only as the input of that
cluster's dead-man's switch alarm ($0.10): the two are one fixed line of $0.40 per cluster,
whatever its size or its checks, shown apart and added in the all-in row. Nothing is left out.

## Goals

${verdicts.map((v) => `- ${v}.`).join('\n')}

The routine looks (${LOOKS_PER_MONTH.toLocaleString('en')} a month) now cost what they do: ${measured.map((c) => `${money(looksAt(c))} at ${c.nodes.toLocaleString('en')} nodes`).join(', ')}.
They write nothing and log one short line, but a look must still read the whole lease list (any
lease may be the one that stopped), and at scale the lease list is most of a steady check (the
Table of Nodes is small beside it: 53.7 of 75.3 MB decoded at 100,000 nodes, BENCHMARKS.md's
API-cost table), so a look costs ${measured.map((c) => `${((100 * c.lookSeconds) / c.steadySeconds).toFixed(0)} %`).join(' / ')} of a steady check here. Where a goal is
missed, Lambda compute is the gap: what would close it is a cheaper read of the lease list (its
decoding and parsing are a look), which lowers the scheduled checks and the looks together; at
${big.nodes.toLocaleString('en')} nodes the scheduled checks alone come to ${money(sum(monthly(big, 0)))}${(GOALS[big.nodes] ?? Number.POSITIVE_INFINITY) < sum(monthly(big, 0)) ? ', over the goal by themselves' : ' and the looks to the rest'}: a ${big.steadySeconds.toFixed(1)} s steady check (BENCHMARKS.md,
wall time with the simulated API server on the same 2 cores, of which ${bigSteadyCpu.toFixed(1)} s its own CPU) and a ${big.relistSeconds.toFixed(0)} s relist every
${DEFAULTS.nodeRefreshSeconds} s at 512 MB; the ways to a faster check are in BENCHMARKS.md ("Why a full check of
100,000 nodes misses").

## Measured per invocation

${units.join('\n')}

How: every size is measured in this run through the handler against the simulated cluster over
HTTPS, dynalite and the local SNS server: after 2 scheduled checks (a relist, then a steady one),
${CHECKS} rounds (${BIG_CHECKS} at 100,000 nodes) of a scheduled check and its ${LOOKS_PER_RUN} looks ${SCHEDULE_MS / 1000 / (LOOKS_PER_RUN + 1)} s apart on the fake clock;
DynamoDB units as dynalite reports them by DynamoDB's rules. **A look's duration** is measured
beside a scheduled check's, through the handler in this run (medians of wall time, the simulated
API server in the same process and on the same 2 cores, both under the same load): the look is
priced at that fraction of the scheduled check's benchmarked time (a shared machine's load moves
both wall times together, their ratio far less). **A scheduled check's** is, as before, the
steady-check median of [BENCHMARKS.md](BENCHMARKS.md)'s check section (\`npm run bench\`; 100
nodes are not benchmarked there: the 1,000-node figure), with the relist's extra over the cheaper
of a look and a steady check once per \`nodeRefreshSeconds\` (${DEFAULTS.nodeRefreshSeconds} s: ${RELISTS_PER_MONTH.toLocaleString('en')} a month, on a scheduled
run or a look, whichever falls due); the same run's scheduled checks through the handler are shown
beside it. **Sensitivity:** at 512 MB the function gets about 0.29 vCPU, and a check is mostly CPU
(parsing lists), so on Lambda it may take up to ${LAMBDA_SLOWDOWN}× as long: the Lambda compute line up to
${LAMBDA_SLOWDOWN}× (at 100,000 nodes the function needs about 1,024 MB anyway, see BENCHMARKS.md). At 100,000
nodes the snapshot comes from the state store alone (bench/state-cost.ts's observations). Logs:
Powertools' envelope is counted as ${LOG_ENVELOPE_BYTES} bytes a line and an EMF record as ${EMF_BYTES_PER_RECORD} bytes
(estimates); EMF records and billed metrics count only what lambda/adapters/metrics/emf-metrics.ts writes as metrics.
SQS: ${SQS_REQUESTS_PER_RUN} request a scheduled run (the \`SendMessageBatch\` of its looks) and ${SQS_REQUESTS_PER_LOOK} a look (the
mapping's \`ReceiveMessage\` that returns it and its \`DeleteMessageBatch\`; one cluster's looks are
${SCHEDULE_MS / 1000 / (LOOKS_PER_RUN + 1)}-40 s apart and never share a batch); the mapping's polling of the empty queue is a fixed
cost below. DynamoDB: a scheduled check writes the head item alone; a look that changes nothing
that must survive (no alert, outbox, suspect or lease set moved) writes nothing; the observation
snapshot is rewritten (and the old one deleted) at least every ${SNAPSHOT_MAX_AGE_MS / 3_600_000} hours, amortised above
(docs/STATE.md). An incident adds a few writes and a publish per notification (SNS + an email
each, $0.0000205): cents at most.

## Fixed costs (per deployment, unless it says per cluster)

${fixed.map((f) => `- ${f}`).join('\n')}
`;
await writeFile(`${ROOT}docs/COST.md`, doc);
console.log(out.join('\n'));
console.log();
console.log(units.join('\n'));
