/**
 * `npm run bench:cost`: the variable cost of one cluster per month at the default settings, from
 * units measured in this run, times dated list prices. Rewrites docs/COST.md.
 *
 * At 100 / 1,000 / 5,000 nodes: the handler built by `createHandler` checks a simulated cluster
 * over HTTPS (test/support/watchdog-harness.ts: dynalite, the local SNS server), steady checks of
 * a healthy cluster once a minute; measured per check: DynamoDB capacity units (as dynalite
 * reports them, by DynamoDB's rules), SNS publishes, log lines and bytes, metric records. The
 * check's duration is the steady-check median of docs/BENCHMARKS.md's check section plus a relist's
 * extra once per `nodeRefreshSeconds` (`npm run bench`, a quiet run: the harness's fake clock and
 * in-process sim make its own wall time meaningless). At 100,000 nodes the sim is too slow for this machine: the snapshot's units come
 * from the state store alone (the realistic observations of bench/state-cost.ts), the rest from
 * the 5,000-node run (a healthy check logs and records the same lines whatever its size).
 *
 *   npm run bench:cost            (BENCH_COST_CHECKS=5 by default)
 */

import { readFile, writeFile } from 'node:fs/promises';
import { FOR_SERVICE_METRICS, PER_CLUSTER_METRICS } from '../lambda/metrics.js';
import { DEFAULTS } from '../lambda/settings/index.js';
import { DynamoDbStateStore } from '../lambda/state/dynamodb-store.js';
import { SNAPSHOT_MAX_AGE_MS } from '../lambda/state/observation-snapshot.js';
import { ROUTINE_LOOKS_MS } from '../lambda/watchdog.js';
import { healthyObservations, nodeNames, sampleAlerts } from '../test/state-fixtures.js';
import { countUnits } from '../test/support/capacity-units.js';
import { localClient, startLocalDynamoDb } from '../test/support/dynalite.js';
import { SCHEDULE_MS, startWatchdogHarness } from '../test/support/watchdog-harness.js';

const ROOT = new URL('..', import.meta.url).pathname;
const CHECKS = Number(process.env.BENCH_COST_CHECKS ?? 5);
const RUNS_PER_MONTH = 43_200; // 30 days of the default 1-minute schedule
/** Each scheduled run asks (through SQS) for routine looks, each a full check of its own. */
const LOOKS_PER_RUN = ROUTINE_LOOKS_MS.length;
const LOOKS_PER_MONTH = RUNS_PER_MONTH * LOOKS_PER_RUN;
const CHECKS_PER_MONTH = RUNS_PER_MONTH + LOOKS_PER_MONTH;
/**
 * Checks per whole Node list at the defaults: whole Nodes are listed once per
 * `nodeRefreshSeconds` (900 s); the checks in between read the leases and the Table of Nodes.
 */
const CHECKS_PER_RELIST =
  (DEFAULTS.nodeRefreshSeconds * 1000 * CHECKS_PER_MONTH) / (RUNS_PER_MONTH * SCHEDULE_MS);
/** A default check's duration: a steady check's, plus a relist's extra once per refresh period. */
function defaultSeconds(relist: number, steady: number): number {
  return steady + (relist - steady) / CHECKS_PER_RELIST;
}
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
 * SQS requests per look: one SendMessage; the event source mapping's ReceiveMessage and its
 * DeleteMessageBatch carry up to 5 messages (infra/rechecks.ts), but one cluster's looks are
 * 40 s apart and never share a batch: 3 for a cluster alone (the upper bound counted here),
 * down to 1 + 2/5 when looks of 5 clusters fall due together. A suspect's re-check (not in a
 * healthy cluster) costs the same.
 */
const SQS_REQUESTS_PER_LOOK = 3;

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

interface PerCheck {
  nodes: number;
  seconds: number;
  /** A check that lists whole Nodes (every check with `nodeRefreshSeconds` 0), BENCHMARKS.md. */
  relistSeconds: number;
  /** A steady check's median (warm node cache, `nodeRefreshSeconds`), docs/BENCHMARKS.md. */
  steadySeconds: number;
  secondsSource: string;
  writeUnits: number;
  readUnits: number;
  /** Snapshot rewrites (every SNAPSHOT_MAX_AGE_MS at least): write + delete, per check. */
  snapshotUnits: number;
  storedBytes: number;
  publishes: number;
  logBytes: number;
  logLines: number;
  metricRecords: number;
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

async function measure(nodes: number): Promise<PerCheck> {
  const h = await startWatchdogHarness({
    clusters: { prod: { nodes } },
    requestTimeoutSeconds: 60,
  });
  try {
    const lambda = h.container();
    const units = countUnits(lambda.dynamodb);
    const check = async () => {
      h.clock.advance(SCHEDULE_MS);
      await lambda.invoke();
    };
    for (let i = 0; i < 3; i++) await check();
    const before = {
      ...units,
      publishes: h.sns.messages.length,
      log: lambda.logger.entries.length,
      metrics: lambda.metrics.records.length,
    };
    for (let i = 0; i < CHECKS; i++) await check();
    const lines = lambda.logger.entries.slice(before.log);
    const records = lambda.metrics.records.slice(before.metrics);
    // What the Powertools adapter writes as EMF: the rest is only in the log line.
    const emitted = records.filter(
      (r) => PER_CLUSTER_METRICS.has(r.name) || FOR_SERVICE_METRICS.has(r.name),
    );
    const logBytes = lines.reduce(
      (sum, e) =>
        sum +
        LOG_ENVELOPE_BYTES +
        Buffer.byteLength(JSON.stringify({ level: e.level, message: e.message, ...e.fields })),
      0,
    );
    const snapshot = await snapshotCost(nodes);
    const relist = await benchmarkedSeconds(Math.max(nodes, 1_000));
    const steady = await benchmarkedSeconds(Math.max(nodes, 1_000), STEADY_COLUMN);
    return {
      nodes,
      seconds: defaultSeconds(relist, steady),
      relistSeconds: relist,
      steadySeconds: steady,
      secondsSource: nodes < 1_000 ? 'the 1,000-node figure, an upper bound' : '',
      writeUnits: (units.write - before.write) / CHECKS,
      readUnits: (units.read - before.read) / CHECKS,
      snapshotUnits: (2 * snapshot.units) / (SNAPSHOT_MAX_AGE_MS / SCHEDULE_MS),
      storedBytes: snapshot.bytes,
      publishes: (h.sns.messages.length - before.publishes) / CHECKS,
      logBytes: (logBytes + emitted.length * EMF_BYTES_PER_RECORD) / CHECKS,
      logLines: lines.length / CHECKS,
      metricRecords: emitted.length / CHECKS,
      // Billed per cluster: the metrics with the cluster dimension (lambda/metrics.ts).
      distinctMetrics: new Set(
        emitted
          .filter((r) => PER_CLUSTER_METRICS.has(r.name))
          .map((r) => `${r.name}|${JSON.stringify(r.extra ?? {})}`),
      ).size,
    };
  } finally {
    await h.close();
  }
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

/** The 100,000-node row (estimated, last in \`measured\`). */
function big100(): PerCheck {
  return measured[measured.length - 1] as PerCheck;
}

function monthly(c: PerCheck, looksPerMonth = LOOKS_PER_MONTH): Lines {
  // Every check (scheduled run or routine look) costs the same compute, request, units and logs.
  const n = RUNS_PER_MONTH + looksPerMonth;
  return {
    'Lambda compute (GB-s)': c.seconds * MEMORY_GB * PRICES.lambdaGbSecondArm * n,
    'Lambda requests': PRICES.lambdaRequest * n,
    'EventBridge Scheduler': PRICES.schedulerInvocation * RUNS_PER_MONTH,
    'SQS routine looks': SQS_REQUESTS_PER_LOOK * PRICES.sqsRequest * looksPerMonth,
    // The snapshot is rewritten by age (every SNAPSHOT_MAX_AGE_MS), not per check.
    'DynamoDB writes':
      (c.writeUnits * n + c.snapshotUnits * RUNS_PER_MONTH) * PRICES.dynamoWriteUnit,
    'DynamoDB reads': c.readUnits * PRICES.dynamoReadUnit * n,
    'DynamoDB storage': (c.storedBytes / 1e9) * PRICES.dynamoStorageGbMonth,
    'SNS publishes + email': c.publishes * (PRICES.snsPublish + PRICES.snsEmailDelivery) * n,
    'CloudWatch Logs ingestion (logs + EMF)': (c.logBytes / 1e9) * PRICES.logsIngestedGb * n,
    'CloudWatch custom metrics': c.distinctMetrics * PRICES.customMetricMonth,
  };
}

const GOALS: Record<number, number> = { 1000: 0.5, 5000: 1, 100000: 5 };
const SIZES = [100, 1_000, 5_000];
const measured: PerCheck[] = [];
for (const nodes of SIZES) {
  console.error(`measuring ${nodes} nodes...`);
  measured.push(await measure(nodes));
}
const big = measured[measured.length - 1] as PerCheck;
const bigSnapshot = await snapshotCost(100_000);
const bigSeconds = await benchmarkedSeconds(100_000);
const bigSteady = await benchmarkedSeconds(100_000, STEADY_COLUMN);
measured.push({
  ...big,
  nodes: 100_000,
  seconds: defaultSeconds(bigSeconds, bigSteady),
  relistSeconds: bigSeconds,
  steadySeconds: bigSteady,
  secondsSource: '',
  snapshotUnits: (2 * bigSnapshot.units) / (SNAPSHOT_MAX_AGE_MS / SCHEDULE_MS),
  storedBytes: bigSnapshot.bytes,
});

const money = (x: number): string => (x < 0.005 && x > 0 ? '<$0.01' : `$${x.toFixed(2)}`);
const lineNames = Object.keys(monthly(big));
const out: string[] = [];
out.push(
  '| per cluster-month | ' +
    measured.map((c) => `${c.nodes.toLocaleString('en')} nodes`).join(' | ') +
    ' |',
);
out.push(`|---|${measured.map(() => '---:').join('|')}|`);
const totals = measured.map((c) => Object.values(monthly(c)).reduce((a, b) => a + b, 0));
for (const name of lineNames) {
  out.push(`| ${name} | ${measured.map((c) => money(monthly(c)[name] ?? 0)).join(' | ')} |`);
}
out.push(`| **total** | ${totals.map((t) => `**${money(t)}**`).join(' | ')} |`);
out.push(
  `| total without the routine looks | ${measured
    .map((c) => money(Object.values(monthly(c, 0)).reduce((a, b) => a + b, 0)))
    .join(' | ')} |`,
);
out.push(
  `| total with \`nodeRefreshSeconds\` 0 (every check lists whole Nodes) | ${measured
    .map((c) =>
      money(Object.values(monthly({ ...c, seconds: c.relistSeconds })).reduce((a, b) => a + b, 0)),
    )
    .join(' | ')} |`,
);
out.push(
  `| goal | ${measured
    .map((c, i) => {
      const goal = GOALS[c.nodes];
      const total = totals[i] ?? 0;
      return goal === undefined
        ? '—'
        : total <= goal
          ? `≤ $${goal}: met (${money(goal - total)} to spare)`
          : `≤ $${goal}: **missed** by ${money(total - goal)} (${(total / goal).toFixed(1)}×)`;
    })
    .join(' | ')} |`,
);
out.push(
  `| biggest line | ${measured
    .map((c) => {
      const lines = Object.entries(monthly(c)).sort((a, b) => b[1] - a[1]);
      return lines[0]?.[0] ?? '';
    })
    .join(' | ')} |`,
);
const units: string[] = [];
units.push(
  '| per check | ' +
    measured.map((c) => `${c.nodes.toLocaleString('en')} nodes`).join(' | ') +
    ' |',
);
units.push(`|---|${measured.map(() => '---:').join('|')}|`);
const row = (name: string, f: (c: PerCheck) => string) =>
  units.push(`| ${name} | ${measured.map(f).join(' | ')} |`);
row(
  'check duration (s, BENCHMARKS.md)',
  (c) =>
    `${c.seconds.toFixed(2)} (steady ${c.steadySeconds.toFixed(2)}, relist ${c.relistSeconds.toFixed(2)}${c.secondsSource ? `; ${c.secondsSource}` : ''})`,
);
row('DynamoDB write units (steady)', (c) => c.writeUnits.toFixed(1));
row('+ snapshot rewrites, amortised', (c) => c.snapshotUnits.toFixed(2));
row('DynamoDB read units', (c) => c.readUnits.toFixed(1));
row('SNS publishes', (c) => c.publishes.toFixed(1));
row('log lines / bytes (with EMF)', (c) => `${c.logLines.toFixed(1)} / ${Math.round(c.logBytes)}`);
row(
  'EMF records / metrics with the cluster dimension',
  (c) => `${c.metricRecords.toFixed(1)} / ${c.distinctMetrics}`,
);
row('state stored (bytes)', (c) => c.storedBytes.toLocaleString('en'));

const sum = (lines: Lines) => Object.values(lines).reduce((a, b) => a + b, 0);
const withoutLooks = measured.map((c) => sum(monthly(c, 0)));
const verdicts = measured
  .map((c, i) => {
    const goal = GOALS[c.nodes];
    if (goal === undefined) return undefined;
    const total = totals[i] ?? 0;
    const bare = withoutLooks[i] ?? 0;
    const biggest = Object.entries(monthly(c)).sort(([, a], [, b]) => b - a)[0] ?? ['', 0];
    return `${c.nodes.toLocaleString('en')} nodes: ${money(total)} against ≤ $${goal}, ${total <= goal ? '**met**' : `**missed** by ${money(total - goal)}`} (biggest line ${biggest[0]}, ${money(biggest[1])}); with the scheduled runs alone (no routine looks) ${money(bare)}, ${bare <= goal ? 'met' : `still missed by ${money(bare - goal)}`}`;
  })
  .filter((v): v is string => v !== undefined);
const metricsLine = monthly(big)['CloudWatch custom metrics'] ?? 0;
const looksAt = (c: PerCheck) => sum(monthly(c)) - sum(monthly(c, 0));

const fixed = [
  `KMS key (SNS topic encryption): $${PRICES.kmsKeyMonth.toFixed(2)}`,
  `CloudWatch alarms: $${PRICES.alarmMonth.toFixed(2)} each (standard resolution)`,
  `Secrets Manager: $${PRICES.secretMonth.toFixed(2)} per secret (a token-mode cluster's token)`,
  `CloudWatch dashboard: $${PRICES.dashboardMonth.toFixed(2)} (the first three per account are free)`,
  `CloudWatch custom metrics of the whole deployment ({service} only, lambda/metrics.ts): up to ${FOR_SERVICE_METRICS.size + 1} × $${PRICES.customMetricMonth.toFixed(2)} = $${((FOR_SERVICE_METRICS.size + 1) * PRICES.customMetricMonth).toFixed(2)} (${[...FOR_SERVICE_METRICS].join(', ')}, ConfirmedSubscriptions; a metric is billed only in a month it is written: NotificationsAbandoned and ConfirmedSubscriptions are written every check, the other failure counts only when such a failure happens)`,
  'SQS: the event source mapping polls the re-check queue even when it is empty (long polls, a few pollers): an estimate of well under a million requests, under $0.40',
];

const doc = `# What the watchdog costs

<!-- Generated by \`npm run bench:cost\` (bench/cost.ts); do not edit by hand. -->

Variable cost of **one cluster** per month at the default settings: a scheduled run every minute
(${RUNS_PER_MONTH.toLocaleString('en')} in 30 days), each asking through SQS for ${LOOKS_PER_RUN} routine looks
(\`ROUTINE_LOOKS_MS\` in lambda/watchdog.ts), each a full check of its own: ${CHECKS_PER_MONTH.toLocaleString('en')}
checks a month; the function on **arm64 with 512 MB** (\`memoryMb\`, the stack's default), a
healthy cluster in steady state (no alert, nothing published, no suspect re-check). One
deployment that checks several clusters in one invocation shares the Lambda request and the
Scheduler invocation between them; the rest is per cluster.

Prices: AWS list prices for **us-east-1 as of 2026-11-30**, from the services' pricing pages
(aws.amazon.com/lambda/pricing, /eventbridge/pricing, /sqs/pricing, /dynamodb/pricing/on-demand,
/sns/pricing, /cloudwatch/pricing, /kms/pricing, /secrets-manager/pricing), free tiers ignored:
Lambda arm64 $${PRICES.lambdaGbSecondArm} per GB-s and $0.20 per million requests; EventBridge
Scheduler $1.00 per million invocations; SQS $0.40 per million requests; DynamoDB on-demand $0.625
per million write request units, $0.125 per million read request units, $0.25 per GB-month; SNS
$0.50 per million publishes, $2.00 per 100,000 email deliveries; CloudWatch Logs $0.50 per GB
ingested, custom metrics $0.30 per metric-month.

## Per cluster-month

${out.join('\n')}

## Goals

${verdicts.map((v) => `- ${v}.`).join('\n')}

Custom metrics: only \`CheckSucceeded\` keeps the cluster as a dimension (each cluster's
dead-man's switch alarm reads it): ${big.distinctMetrics} billed metric-month per cluster,
${money(metricsLine)}. The other figures of a check (nodes by verdict, duration, notifications sent
and failed, degraded) are fields of its \`cluster checked\` log line, queried per cluster by the
dashboard's Logs Insights widgets and billed as the log bytes above; the failures an alarm or a
dashboard total needs are metrics of the whole deployment ({service} only, in the fixed costs
below). Before this, a check recorded 9 metrics with the cluster as a dimension: $2.70 per cluster
whatever its size, which alone missed every goal.

The routine looks triple the checks: at 1,000 nodes they add ${money(looksAt(measured[1] as PerCheck))} a month, at
5,000 nodes ${money(looksAt(measured[2] as PerCheck))}, at 100,000 nodes ${money(looksAt(big100()))} (Lambda compute mostly: a look
is a check like a scheduled run's). What would close the gap
(not built here): routine looks that read only the lease list (a suspect's silence is in its
lease; Nodes are read by the scheduled run), or fewer looks on a deployment that does not need
the one-minute detection floor. At 100,000 nodes Lambda compute is the biggest line even without
the looks: a ${big100().seconds.toFixed(1)} s check at 512 MB on average (a ${big100().relistSeconds.toFixed(0)} s relist every ${DEFAULTS.nodeRefreshSeconds} s); the ways to a faster check are in BENCHMARKS.md
("Why a full check of 100,000 nodes misses").

## Measured per check

${units.join('\n')}

How: 100 / 1,000 / 5,000 nodes are measured in this run through the handler against the simulated
cluster over HTTPS, dynalite and the local SNS server (${CHECKS} steady checks after 3); DynamoDB
units as dynalite reports them by DynamoDB's rules. A check's duration is, at the defaults, the
steady-check median of [BENCHMARKS.md](BENCHMARKS.md)'s check section plus the relist's extra
once per \`nodeRefreshSeconds\` (${DEFAULTS.nodeRefreshSeconds} s: one check in ${CHECKS_PER_RELIST.toFixed(0)}) (\`npm run bench\`; 100 nodes are not
benchmarked there: the 1,000-node figure), measured on a 2-core machine: wall time, with the
simulated API server competing for the same cores (the table's CPU column is far lower), so these
figures are pessimistic for the function itself, and they moved with that table (the previous
COST.md used 0.29 s at 1,000 nodes, now 1.10 s). **Sensitivity:** at 512 MB
the function gets about 0.29 vCPU, and a check is mostly CPU (parsing lists), so on Lambda it may
take up to ${LAMBDA_SLOWDOWN}× as long: the Lambda compute line up to ${LAMBDA_SLOWDOWN}× (at
100,000 nodes the function needs about 1,024 MB anyway, see BENCHMARKS.md). At 100,000 nodes the
snapshot comes from the state store alone, and log lines, metrics, publishes and steady units from
the 5,000-node run (a healthy check logs and records the same lines whatever its size). Logs: Powertools' envelope is counted as
${LOG_ENVELOPE_BYTES} bytes a line and an EMF record as ${EMF_BYTES_PER_RECORD} bytes (estimates);
EMF records and billed metrics count only what lambda/metrics.ts writes as metrics (per cluster:
distinct name and dimension sets with the cluster dimension; CloudWatch bills metric-months, not
puts). SQS: ${SQS_REQUESTS_PER_LOOK} requests a routine look (send, receive, delete: the mapping's batches
of up to 5 never hold two looks of one cluster, 40 s apart; with many clusters due together a look
costs down to 1 + 2/5); a look is one SQS-triggered Lambda invocation, and costs the DynamoDB
units and log bytes of a check (the snapshot rewrite goes by age, not by check).
DynamoDB: a steady check writes the head item alone; the observation snapshot is rewritten (and the
old one deleted) at least every ${SNAPSHOT_MAX_AGE_MS / 3_600_000} hours, amortised above
(docs/STATE.md). An incident adds a few snapshot writes and a publish per notification (SNS + an
email each, $0.0000205): cents at most.

## Fixed costs (per deployment, not per cluster)

${fixed.map((f) => `- ${f}`).join('\n')}
`;
await writeFile(`${ROOT}docs/COST.md`, doc);
console.log(out.join('\n'));
console.log();
console.log(units.join('\n'));
