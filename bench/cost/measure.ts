/**
 * What `npm run bench:cost` measures and reads, per cluster size: the handler built by
 * `createHandler` checks a simulated cluster over HTTPS (testkit/watchdog-harness.ts: dynalite, the
 * local SNS server) as the default deployment does, a scheduled run and then its routine looks,
 * each counted apart (DynamoDB capacity units as dynalite reports them, SNS publishes, log lines
 * and bytes, metric records, wall time through the handler); the snapshot a state store writes;
 * and the check medians of docs/BENCHMARKS.md's check section (`npm run bench`).
 */
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import {
  FOR_SERVICE_METRICS,
  PER_CLUSTER_METRICS,
} from '../../lambda/adapters/metrics/metric-names.js';
import { DynamoDbStateStore } from '../../lambda/adapters/state/dynamodb/dynamodb-store.js';
import { SNAPSHOT_MAX_AGE_MS } from '../../lambda/adapters/state/dynamodb/observation-snapshot.js';
import { countUnits } from '../../testkit/capacity-units.js';
import {
  EMF_BYTES_PER_RECORD,
  LOG_ENVELOPE_BYTES,
  LOOKS_PER_RUN,
} from '../../testkit/cost-deployment.js';
import type { PerCheck, PerRun } from '../../testkit/cost-monthly.js';
import { localClient, startLocalDynamoDb } from '../../testkit/dynalite.js';
import { healthyObservations, nodeNames, sampleAlerts } from '../../testkit/state-fixtures.js';
import {
  type Container,
  SCHEDULE_MS,
  startWatchdogHarness,
} from '../../testkit/watchdog-harness.js';
import { median } from '../statistics.js';

const ROOT = new URL('../..', import.meta.url).pathname;

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

let looks = 0;
/** One routine look of `prod` asked for by the run started at `run`, as the mapping delivers it. */
function lookEvent(run: number) {
  const body = JSON.stringify({ cluster: 'prod', look: { suspects: [], run } });
  return { Records: [{ messageId: `look-${++looks}`, body }] };
}

/** `checks` rounds of a scheduled check and its looks on a cluster of `nodes`, measured. */
export async function measure(nodes: number, checks: number): Promise<PerCheck> {
  // With the looks' queue (in process): a scheduled run asks for its looks, as deployed.
  const h = await startWatchdogHarness({
    clusters: { prod: { nodes } },
    requestTimeoutSeconds: 300,
    withLooks: true,
  });
  try {
    const lambda = h.container();
    const units = countUnits(lambda.dynamodb);
    const invocation = { remainingMs: 900_000 };
    const runs: Record<'check' | 'look' | 'superseded', Sample[]> = {
      check: [],
      look: [],
      superseded: [],
    };
    const sample = async (kind: keyof typeof runs, invoke: () => Promise<unknown>) => {
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
    let previous = h.clock.now() - step;
    for (let i = 0; i < checks; i++) {
      h.clock.advance(step);
      const run = h.clock.now();
      await sample('check', () => lambda.invoke(null, invocation));
      // A look of the run before, due after this one: superseded, it reads nothing.
      await sample('superseded', () => lambda.invoke(lookEvent(previous), invocation));
      previous = run;
      for (let k = 0; k < LOOKS_PER_RUN; k++) {
        h.clock.advance(step);
        await sample('look', () => lambda.invoke(lookEvent(run), invocation));
      }
    }
    const measured = { check: average(runs.check), look: average(runs.look) };
    return await perCheck(nodes, measured, average(runs.superseded), lambda);
  } finally {
    await h.close();
  }
}

/** The measured runs, with what comes from elsewhere: the snapshot, BENCHMARKS.md's medians. */
async function perCheck(
  nodes: number,
  { check, look }: { check: PerRun; look: PerRun },
  superseded: PerRun,
  lambda: Container,
): Promise<PerCheck> {
  const snapshot = await snapshotCost(nodes);
  const row = Math.max(nodes, 1_000);
  const records = lambda.metrics.records;
  return {
    nodes,
    relistCpuSeconds: await benchmarkedSeconds(row, RELIST_COLUMN + 2),
    steadyCpuSeconds: await benchmarkedSeconds(row, STEADY_COLUMN + 1),
    floorCpuSeconds: await benchmarkedSeconds(row, RELIST_COLUMN + 3, 1),
    lookShare: look.handlerSeconds / check.handlerSeconds,
    supersededShare: superseded.handlerSeconds / check.handlerSeconds,
    check,
    look,
    superseded,
    snapshotUnits: (2 * snapshot.units) / (SNAPSHOT_MAX_AGE_MS / SCHEDULE_MS),
    storedBytes: snapshot.bytes,
    // Billed per cluster: the metrics with the cluster dimension (lambda/adapters/metrics/metric-names.ts).
    distinctMetrics: new Set(
      records
        .filter((r) => PER_CLUSTER_METRICS.has(r.name))
        .map((r) => `${r.name}|${JSON.stringify(r.extra ?? {})}`),
    ).size,
  };
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

/**
 * Columns of BENCHMARKS.md's check table: the relist (full) check's and the steady check's wall
 * medians; each one's own CPU is two columns (relist) or one column (steady) to the right.
 */
const RELIST_COLUMN = 2;
const STEADY_COLUMN = 10;

/** A median of docs/BENCHMARKS.md's check section (`npm run bench`), by column, seconds. */
async function benchmarkedSeconds(nodes: number, column: number, part = 0): Promise<number> {
  const text = await readFile(`${ROOT}docs/BENCHMARKS.md`, 'utf8');
  const label = nodes.toLocaleString('en');
  const row = text.split('\n').find((line) => line.startsWith(`| ${label} | `));
  // A cell of two figures ("wall / CPU") gives the one asked for.
  const cell = row?.split('|')[column]?.split('/')[part];
  const seconds = Number(cell?.trim().replace(/ s$/, ''));
  if (!Number.isFinite(seconds)) throw new Error(`no ${label}-node row in docs/BENCHMARKS.md`);
  return seconds;
}
