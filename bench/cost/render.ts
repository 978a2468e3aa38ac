/**
 * docs/COST.md from measured numbers: the cluster-month table, the goals, the units per
 * invocation and the fixed costs. Pure: the same measurements render the same file, whatever
 * machine measured them (`npm run bench:cost` measures, then calls it).
 */
import { FOR_SERVICE_METRICS } from '../../lambda/adapters/metrics/metric-names.js';
import { memoryMbFor } from '../../lambda/settings/function-memory.js';
import { ROUTINE_LOOKS_MS } from '../../lambda/use-cases/look-requests.js';
import {
  EMF_BYTES_PER_RECORD,
  GOALS,
  IDLE_POLLERS,
  IDLE_RECEIVES_PER_MONTH,
  JITTERED_READS_PER_RUN,
  LOG_ENVELOPE_BYTES,
  LOOKS_ASKED_PER_RUN,
  LOOKS_PER_MONTH,
  LOOKS_PER_RUN,
  MB_PER_VCPU,
  MEMORY_MB,
  RELISTS_PER_MONTH,
  RUNS_PER_MONTH,
  SQS_REQUESTS_PER_LOOK,
  SQS_REQUESTS_PER_RUN,
  SUPERSEDED_PER_MONTH,
  VCPU_SHARE,
} from '../../testkit/cost-deployment.js';
import { billedSeconds, deadMan, monthly, type PerCheck, sum } from '../../testkit/cost-monthly.js';
import { PRICES } from '../../testkit/cost-prices.js';
import { SCHEDULE_MS } from '../../testkit/watchdog-harness.js';

/** What the page is rendered from: one measurement per cluster size, smallest first. */
export interface CostMeasurements {
  readonly measured: readonly PerCheck[];
  /** Rounds of a scheduled check and its looks per size, and at 100,000 nodes. */
  readonly checks: number;
  readonly bigChecks: number;
}

export interface RenderedCost {
  /** docs/COST.md. */
  readonly doc: string;
  /** The two tables, as the bench prints them. */
  readonly perMonth: readonly string[];
  readonly perInvocation: readonly string[];
}

const money = (x: number): string => (x < 0.005 && x > 0 ? '<$0.01' : `$${x.toFixed(2)}`);
const nodesLabel = (c: PerCheck) => c.nodes.toLocaleString('en');
const biggestLine = (c: PerCheck) =>
  Object.entries(monthly(c)).sort(([, a], [, b]) => b - a)[0] ?? ['', 0];

export function renderCost(m: CostMeasurements): RenderedCost {
  const big = m.measured[m.measured.length - 1] as PerCheck;
  const perMonth = perMonthTable(m.measured, big);
  const perInvocation = perInvocationTable(m.measured);
  const doc = [
    intro(),
    perMonthSection(perMonth),
    goalsSection(big),
    perInvocationSection(perInvocation, m.checks, m.bigChecks),
    fixedSection(),
  ].join('\n\n');
  return { doc, perMonth, perInvocation };
}

/** A row of cells, one per size, under `name`. */
function row(
  name: string,
  measured: readonly PerCheck[],
  cell: (c: PerCheck, i: number) => string,
) {
  return `| ${name} | ${measured.map(cell).join(' | ')} |`;
}

function header(title: string, measured: readonly PerCheck[]): string[] {
  return [
    `| ${title} | ${measured.map((c) => `${nodesLabel(c)} nodes`).join(' | ')} |`,
    `|---|${measured.map(() => '---:').join('|')}|`,
  ];
}

function goalCell(c: PerCheck, total: number): string {
  const goal = GOALS[c.nodes];
  return goal === undefined
    ? '—'
    : total <= goal
      ? `≤ $${goal}: **met** (${money(goal - total)} to spare)`
      : `≤ $${goal}: **missed** by ${money(total - goal)} (${(total / goal).toFixed(1)}×)`;
}

/** Money per cluster-month, by line, with the totals, the goals and the variants. */
function perMonthTable(measured: readonly PerCheck[], big: PerCheck): string[] {
  const totals = measured.map((c) => sum(monthly(c)));
  const total = (i: number) => totals[i] ?? 0;
  return [
    ...header('per cluster-month', measured),
    ...Object.keys(monthly(big)).map((name) =>
      row(name, measured, (c) => money(monthly(c)[name] ?? 0)),
    ),
    row('**variable total** (the goal)', measured, (_, i) => `**${money(total(i))}**`),
    row('goal', measured, (c, i) => goalCell(c, total(i))),
    row(
      "dead-man's switch (`CheckSucceeded` metric + its alarm), fixed per cluster",
      measured,
      (c) => money(deadMan(c)),
    ),
    row(
      "**with its dead-man's switch**",
      measured,
      (c, i) => `**${money(total(i) + deadMan(c))}**`,
    ),
    row('variable, without the routine looks', measured, (c) => money(sum(monthly(c, 0)))),
    row(
      'variable, with `nodeRefreshSeconds` 0 (every check and look lists whole Nodes)',
      measured,
      (c) => money(sum(monthly(c, LOOKS_PER_MONTH, true))),
    ),
    row('biggest line', measured, (c) => biggestLine(c)[0]),
  ];
}

/** The units each invocation was measured at, per size. */
function perInvocationTable(measured: readonly PerCheck[]): string[] {
  const r = (name: string, cell: (c: PerCheck) => string) => row(name, measured, cell);
  return [
    ...header('per invocation', measured),
    r(
      `**billed at ${MEMORY_MB} MB** (BENCHMARKS.md's own CPU ÷ ${VCPU_SHARE.toFixed(2)} vCPU), s: steady; relist`,
      (c) =>
        `${billedSeconds(c.steadyCpuSeconds).toFixed(2)}; ${billedSeconds(c.relistCpuSeconds).toFixed(2)}`,
    ),
    r('scheduled check through the handler, this run, s (median)', (c) =>
      c.check.handlerSeconds.toFixed(2),
    ),
    r('look through the handler, this run, s (median)', (c) => c.look.handlerSeconds.toFixed(2)),
    r(
      '**look, billed** (steady billed × look ÷ check through the handler), s',
      (c) =>
        `${(billedSeconds(c.steadyCpuSeconds) * c.lookShare).toFixed(2)} (${(100 * c.lookShare).toFixed(0)} % of a check)`,
    ),
    r(
      'DynamoDB write units: check / look',
      (c) => `${c.check.writeUnits.toFixed(1)} / ${c.look.writeUnits.toFixed(1)}`,
    ),
    r('+ snapshot rewrites per check, amortised', (c) => c.snapshotUnits.toFixed(2)),
    r(
      'DynamoDB read units: check / look',
      (c) => `${c.check.readUnits.toFixed(1)} / ${c.look.readUnits.toFixed(1)}`,
    ),
    r(
      'SNS publishes: check / look',
      (c) => `${c.check.publishes.toFixed(1)} / ${c.look.publishes.toFixed(1)}`,
    ),
    r(
      'log lines / bytes with EMF: check',
      (c) => `${c.check.logLines.toFixed(1)} / ${Math.round(c.check.logBytes)}`,
    ),
    r(
      'log lines / bytes with EMF: look',
      (c) => `${c.look.logLines.toFixed(1)} / ${Math.round(c.look.logBytes)}`,
    ),
    r(
      'superseded look (reads nothing): through the handler, ms (median); DynamoDB units; log lines / bytes',
      (c) =>
        `${(1000 * c.superseded.handlerSeconds).toFixed(1)}; ${(c.superseded.readUnits + c.superseded.writeUnits).toFixed(1)}; ${c.superseded.logLines.toFixed(1)} / ${Math.round(c.superseded.logBytes)}`,
    ),
    r(
      'EMF records: check / look; metrics with the cluster dimension',
      (c) =>
        `${c.check.metricRecords.toFixed(1)} / ${c.look.metricRecords.toFixed(1)}; ${c.distinctMetrics}`,
    ),
    r('state stored (bytes)', (c) => c.storedBytes.toLocaleString('en')),
  ];
}

function intro(): string {
  return `# What the watchdog costs

<!-- Generated by \`npm run bench:cost\` (bench/cost.ts); do not edit by hand. -->

Cost of **one cluster** per month at the default settings: a scheduled run every minute
(${RUNS_PER_MONTH.toLocaleString('en')} in 30 days), each asking through SQS (one \`SendMessageBatch\`) for ${LOOKS_ASKED_PER_RUN} routine looks,
${ROUTINE_LOOKS_MS.map((ms) => ms / 1000).join(', ')} s after it. On a punctual schedule ${LOOKS_PER_RUN === 1 ? 'the first reads' : `the first ${LOOKS_PER_RUN} read`}: ${LOOKS_PER_MONTH.toLocaleString('en')} looks a month
that list the Leases and save and log only what changed. The others come after the next run and
read nothing: ${SUPERSEDED_PER_MONTH.toLocaleString('en')} invocations a month (with the Scheduler's jitter, about ${JITTERED_READS_PER_RUN.toFixed(2)} of
the ${LOOKS_ASKED_PER_RUN} read). The function on **arm64 with 512 MB** (\`memoryMb\`, the default), a healthy cluster in
steady state (no alert, nothing published, no suspect re-check).

Prices: AWS list prices for **us-east-1 as of 2026-11-30**, from the services' pricing pages, free
tiers ignored:
Lambda arm64 $${PRICES.lambdaGbSecondArm} per GB-s and $0.20 per million requests; EventBridge
Scheduler $1.00 per million invocations; SQS $0.40 per million requests (a batch request counts
as one per 64 KB); DynamoDB on-demand $0.625 per million write request units, $0.125 per million
read request units, $0.25 per GB-month; SNS $0.50 per million publishes, $2.00 per 100,000 email
deliveries; CloudWatch Logs $0.50 per GB ingested, custom metrics $0.30 per metric-month, alarms
$0.10 each.`;
}

function perMonthSection(table: readonly string[]): string {
  return `## Per cluster-month

${table.join('\n')}`;
}

function goalsSection(big: PerCheck): string {
  return `## How CPU is billed

**The CPU share.** Lambda allocates CPU in proportion to memory: "At 1,769 MB, a function has
the equivalent of one vCPU (one vCPU-second of credits per second)"
([Lambda developer guide, configuring function memory](https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html)).
The default ${MEMORY_MB} MB function gets ${MEMORY_MB} / ${MB_PER_VCPU.toLocaleString('en')} = ${VCPU_SHARE.toFixed(2)} of a vCPU, so a check, mostly CPU,
takes ${(1 / VCPU_SHARE).toFixed(1)}× its own CPU time there: that is the duration priced above. A CPU-second costs
the same at any memory up to ${MB_PER_VCPU.toLocaleString('en')} MB, so the ${memoryMbFor(100_000).toLocaleString('en')} MB that \`largestClusterNodes\` sizes a
100,000-node function to does not change the compute line. The billed time is a lower bound:
waiting for the API server is not in it.${cpuToCloseTheGoal(big)}

CPU figures are this shared host's (BENCHMARKS.md), whose speed changes by the hour: compare the
floor, \`JSON.parse\` of the ${nodesLabel(big)}-node relist's pages (${big.floorCpuSeconds.toFixed(2)} s of CPU here), between two runs
before their Lambda compute lines.`;
}

/**
 * Where the largest size misses its goal: the CPU its checks and looks would have to come down to
 * (Lambda compute scales with it; the other lines do not), as a steady check's own CPU.
 */
function cpuToCloseTheGoal(big: PerCheck): string {
  const goal = GOALS[big.nodes];
  const lines = monthly(big);
  const total = sum(lines);
  if (goal === undefined || total <= goal) return '';
  const compute = lines['Lambda compute (GB-s)'] ?? 0;
  const factor = (goal - (total - compute)) / compute;
  return ` Meeting ≤ $${goal} needs ${(100 * (1 - factor)).toFixed(0)} % less CPU in the checks, the looks and the relists together: a steady check of ≤ ${(big.steadyCpuSeconds * factor).toFixed(2)} s of its own CPU, with the looks and relists cut alike.`;
}

function perInvocationSection(table: readonly string[], checks: number, bigChecks: number): string {
  const lookGap = SCHEDULE_MS / 1000 / (LOOKS_PER_RUN + 1);
  return `## Measured per invocation

${table.join('\n')}

How: each size through the handler against the simulated cluster over HTTPS, dynalite and the
local SNS server: 2 scheduled checks (a relist, then a steady one), then ${checks} rounds (${bigChecks} at 100,000 nodes)
of a scheduled check, a superseded look and its ${LOOKS_PER_RUN} look${LOOKS_PER_RUN === 1 ? '' : 's'} ${lookGap} s apart on the fake clock. **A scheduled
check** is billed at the steady check's own CPU in [BENCHMARKS.md](BENCHMARKS.md) (100 nodes: the
1,000-node figure) ÷ the vCPU share, plus a relist's extra once per \`nodeRefreshSeconds\` (${RELISTS_PER_MONTH.toLocaleString('en')} a
month). **A look** is priced at its wall time's fraction of a scheduled check's, both in this run.
Logs: ${LOG_ENVELOPE_BYTES} bytes of envelope a line and ${EMF_BYTES_PER_RECORD} an EMF record (estimates). SQS: ${SQS_REQUESTS_PER_RUN} request a
scheduled run and ${SQS_REQUESTS_PER_LOOK} a look. Snapshot rewrites ([STATE.md](STATE.md)) are amortised above. An
incident adds a few writes and a publish per notification: cents at most.`;
}

/** What a deployment pays whatever its clusters, beyond the bill's lines. */
function fixedSection(): string {
  const dollars = (x: number) => `$${x.toFixed(2)}`;
  const serviceMetrics = FOR_SERVICE_METRICS.size + 1;
  const fixed = [
    `CloudWatch custom metrics of the whole deployment ({service} only): up to ${serviceMetrics} × ${dollars(PRICES.customMetricMonth)} = ${dollars(serviceMetrics * PRICES.customMetricMonth)} (${[...FOR_SERVICE_METRICS].join(', ')}, ConfirmedSubscriptions), each billed only in a month it is written: ConfirmedSubscriptions every check, the failure counts only when such a failure happens`,
    `SQS, the event source mapping polling the empty look queue: Lambda long-polls a standard queue with ${IDLE_POLLERS} pollers to start with ([AWS Compute Blog](https://aws.amazon.com/blogs/compute/understanding-how-aws-lambda-scales-when-subscribed-to-amazon-sqs-queues/)), each poll waiting at most 20 s ([SQS developer guide](https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/best-practices-setting-up-long-polling.html)): an estimate of ${IDLE_RECEIVES_PER_MONTH.toLocaleString('en')} empty receives a month (${IDLE_POLLERS} × 3 a minute), ${money(IDLE_RECEIVES_PER_MONTH * PRICES.sqsRequest)}, whatever the number of clusters`,
  ];
  return `## Fixed costs

The KMS key, alarms, dashboard and secrets are in the bill above; besides them:

${fixed.map((f) => `- ${f}`).join('\n')}
`;
}
