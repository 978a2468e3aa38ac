/**
 * A simulated fleet through the real handler (`npm run bench:fleet`): FLEET_CLUSTERS clusters
 * (default 1,000) of FLEET_NODES nodes, all dispatched (`dispatch: true`): the dispatcher's run a
 * minute (anywhere in its minute, as EventBridge Scheduler fires), each cluster's check delivered
 * as its own one-message batch after its SQS delay and the pollers' 0–2 s, the routine looks and
 * re-checks likewise; dynalite holds the state and the ledger, the local SNS endpoint takes the
 * notifications, on the fake clock. A stand-in reader at the port serves every cluster's Leases
 * and Nodes from a model of kubelets renewing every 10 s (a thousand HTTPS servers would measure
 * the machine, not the watchdog). One node dies in every 50th cluster; one cluster's checks stop
 * (its API answers 503). Reports each death's detection time, the checks each cluster got (none
 * starved), invocations and DynamoDB units per cluster, into docs/BENCHMARKS.md.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { ClusterReader, ReadMode } from '../lambda/ports/index.js';
import { ClusterReadError } from '../lambda/ports/index.js';
import type { ClusterSettings } from '../lambda/settings/index.js';
import { lease, microTime, node } from '../testkit/builders.js';
import { startWatchdogHarness } from '../testkit/watchdog-harness.js';
import { benchmarksSection } from './benchmarks-section.js';
import { fleetBill } from './cost/fleet-bill.js';
import { placeFleet } from './cost/place-bill.js';
import { median, percentile } from './statistics.js';

const CLUSTERS = Number(process.env.FLEET_CLUSTERS ?? 1_000);
const NODES = Number(process.env.FLEET_NODES ?? 10);
const MINUTES = Number(process.env.FLEET_MINUTES ?? 7);
const MINUTE = 60_000;
const RENEW_MS = 10_000;
const GOAL_P95_S = 65;
const DISPATCH = { dispatch: { periodSeconds: 60 } };
/** FLEET_BILL_ONLY=1: time a few dispatcher runs and rewrite COST.md's fleet bill alone. */
const BILL_ONLY = process.env.FLEET_BILL_ONLY === '1';
const COST_MD = new URL('../docs/COST.md', import.meta.url);

const names = Array.from({ length: CLUSTERS }, (_, i) => `fleet-${String(i).padStart(4, '0')}`);
/** Every 50th cluster loses a node; the one in the middle stops being readable. */
const victims = names.filter((_, i) => i % 50 === 7);
const stopped = names[Math.floor(CLUSTERS / 2)] ?? 'fleet-0000';

/** A number in [0, 1) from a string: the same every run. */
function unit(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}

/** The kubelets of every cluster, renewing every 10 s at a phase of their own until they die. */
class StandInFleet {
  readonly deaths = new Map<string, { node: string; at: number }>();
  readonly reads = new Map<string, { check: number; look: number }>();
  unreadable = new Set<string>();

  constructor(private readonly now: () => number) {}

  /** The last renewal of `nodeName` at `at`. */
  lastRenewal(cluster: string, nodeName: string, at: number): number {
    const death = this.deaths.get(cluster);
    const until = death?.node === nodeName ? Math.min(at, death.at) : at;
    const phase = Math.floor(unit(`${cluster}/${nodeName}`) * RENEW_MS);
    return until - ((((until - phase) % RENEW_MS) + RENEW_MS) % RENEW_MS);
  }

  reader = (cluster: ClusterSettings): ClusterReader => ({
    read: async (_signal?: AbortSignal, mode: ReadMode = 'check') => {
      const counted = this.reads.get(cluster.name) ?? { check: 0, look: 0 };
      counted[mode] += 1;
      this.reads.set(cluster.name, counted);
      if (this.unreadable.has(cluster.name)) {
        throw new ClusterReadError(
          'server',
          'the API server answered 503 Service Unavailable',
          503,
        );
      }
      const now = this.now();
      const nodes = Array.from({ length: NODES }, (_, i) => `${cluster.name}-node-${i}`);
      return {
        cluster: cluster.name,
        namespace: 'kube-node-lease',
        leases: nodes.map((n) =>
          lease(n, { renewTime: microTime(this.lastRenewal(cluster.name, n, now)) }),
        ),
        nodes: nodes.map((n, i) => node(n, { zone: `eu-west-1${'abc'[i % 3]}` })),
        serverTime: now,
      };
    },
  });
}

async function main(): Promise<void> {
  const write = await benchmarksSection('## A fleet of 1,000 clusters');
  let clock = () => 0;
  const fleet = new StandInFleet(() => clock());
  const h = await startWatchdogHarness({
    clusters: {},
    unreachableClusters: names,
    settings: { dispatch: true },
    withLooks: true,
    withDispatch: true,
    readers: fleet.reader,
  });
  clock = h.clock.now;
  const looks = h.looks as NonNullable<typeof h.looks>;
  looks.polling = () => Math.floor(Math.random() * 2_000);
  const container = h.container();
  const units = countUnits(container.dynamodb);
  const invoke = (event: Parameters<typeof container.invoke>[0]) => container.invoke(event);
  const start = h.clock.now();
  const started = performance.now();
  const dispatcherSeconds: number[] = [];
  const dispatch = async () => {
    const t = performance.now();
    await invoke(DISPATCH);
    dispatcherSeconds.push((performance.now() - t) / 1000);
  };
  for (let k = 0; k < (BILL_ONLY ? 3 : MINUTES); k++) {
    if (k === 2) scheduleDeaths(fleet, start + 2 * MINUTE);
    if (k === 2) fleet.unreadable.add(stopped);
    const at = start + k * MINUTE + Math.floor(unit(`run-${k}`) * MINUTE);
    if (BILL_ONLY) h.clock.advanceTo(at);
    else await looks.runUntil(at, invoke);
    await dispatch();
  }
  const date = new Date().toISOString().slice(0, 10);
  const cost = await readFile(COST_MD, 'utf8');
  await writeFile(COST_MD, placeFleet(cost, fleetBill(cost, median(dispatcherSeconds), date)));
  if (!BILL_ONLY) {
    await looks.runUntil(start + MINUTES * MINUTE, invoke);
    const wallSeconds = (performance.now() - started) / 1000;
    const facts = { start, dispatcherRuns: dispatcherSeconds.length, wallSeconds };
    const report = reportOf(h, fleet, looks, units, facts);
    for (const line of report) console.log(line);
    await write(report);
  }
  console.log(
    `dispatcher run: median ${median(dispatcherSeconds).toFixed(2)} s of ${dispatcherSeconds.length}`,
  );
  await h.close();
}

/** One node of each victim dies within the third minute, each at its own moment. */
function scheduleDeaths(fleet: StandInFleet, from: number): void {
  victims.forEach((cluster, i) => {
    fleet.deaths.set(cluster, {
      node: `${cluster}-node-3`,
      at: from + Math.floor(unit(cluster) * MINUTE) + i,
    });
  });
}

/** DynamoDB's consumed units, as it reports them to the client, summed by kind. */
function countUnits(client: { middlewareStack: { add: (...args: never[]) => void } }) {
  const units = { read: 0, write: 0, requests: 0 };
  const middleware =
    (next: (args: unknown) => Promise<{ output: unknown }>) => async (args: unknown) => {
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const all = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as {
        CapacityUnits?: number;
        ReadCapacityUnits?: number;
        WriteCapacityUnits?: number;
      }[];
      const input = JSON.stringify((args as { input?: unknown }).input ?? {});
      const writing = /"(Item|RequestItems)"/.test(input);
      for (const c of all) units[writing ? 'write' : 'read'] += c.CapacityUnits ?? 0;
      units.requests += 1;
      return result;
    };
  (client.middlewareStack.add as (m: unknown, o: unknown) => void)(middleware, {
    step: 'initialize',
    name: 'fleetUnits',
  });
  return units;
}

interface RunFacts {
  readonly start: number;
  readonly dispatcherRuns: number;
  readonly wallSeconds: number;
}

function reportOf(
  h: Awaited<ReturnType<typeof startWatchdogHarness>>,
  fleet: StandInFleet,
  looks: NonNullable<Awaited<ReturnType<typeof startWatchdogHarness>>['looks']>,
  units: { read: number; write: number; requests: number },
  facts: RunFacts,
): string[] {
  const detections = victims.map((cluster) => {
    const death = fleet.deaths.get(cluster);
    if (!death) return Number.NaN;
    const last = fleet.lastRenewal(cluster, death.node, death.at);
    const firing = h.messages('FIRING').find((m) => m.message.includes(death.node));
    return firing ? (firing.receivedAt - last) / 1000 : Number.POSITIVE_INFINITY;
  });
  const paged = detections.filter(Number.isFinite);
  const checks = names.map((name) => looks.checks.filter((c) => c.cluster === name).length);
  const reads = names.map((name) => fleet.reads.get(name) ?? { check: 0, look: 0 });
  const lookCounts = reads.map((r) => r.look);
  const clusterMinutes = CLUSTERS * MINUTES;
  const invocations = looks.checks.length + looks.delivered.length + facts.dispatcherRuns;
  const notices = h.messages('NOTICE').filter((m) => (m.subject ?? '').includes('checks stopped'));
  const perMonth = (x: number) =>
    ((x / clusterMinutes) * 43_200).toLocaleString('en-US', { maximumFractionDigits: 0 });
  const p95 = percentile(paged, 95);
  const date = new Date().toISOString().slice(0, 10);
  return [
    `## A fleet of 1,000 clusters (${date})`,
    '',
    `${CLUSTERS} clusters of ${NODES} nodes, all dispatched, ${MINUTES} simulated minutes through the real handler (\`npm run bench:fleet\`, bench/fleet.ts): the dispatcher's run once a minute at a random moment in its minute, each cluster's check its own SQS message and invocation, the routine looks and re-checks as usual, SQS's whole-second delays and 0–2 s of pollers; dynalite, the local SNS endpoint, a stand-in reader at the port (kubelets renewing every 10 s). One node dies in each of ${victims.length} clusters; the checks of ${stopped} stop (its API answers 503) from the third minute. ${facts.wallSeconds.toFixed(0)} s of wall time on this machine.`,
    '',
    '| what | measured | goal |',
    '|---|---:|---|',
    `| deaths paged | ${paged.length} of ${victims.length} | all |`,
    `| detection (last renewal → FIRING): min / p50 / p95 / max | ${fmt(Math.min(...paged))} / ${fmt(percentile(paged, 50))} / ${fmt(p95)} / ${fmt(Math.max(...paged))} | p95 ≤ ${GOAL_P95_S} s: ${p95 <= GOAL_P95_S ? '**met**' : '**missed**'} |`,
    `| dispatched checks per cluster (min / max) | ${Math.min(...checks)} / ${Math.max(...checks)} | ${MINUTES} each: none starved |`,
    `| looks that read the cluster, per cluster (min / max) | ${Math.min(...lookCounts)} / ${Math.max(...lookCounts)} | one to three a dispatched check (three asked; those after the next check read nothing) |`,
    `| the stopped cluster named by a NOTICE | ${notices.length > 0 ? `${((notices[0]?.receivedAt ?? 0) - facts.start - 2 * MINUTE) / 1000} s after its checks stopped` : 'no'} | ≤ 600 s |`,
    `| invocations per cluster-minute (checks + looks + the dispatcher's share) | ${(invocations / clusterMinutes).toFixed(2)} | |`,
    `| DynamoDB per cluster-month: write units / read units / requests | ${perMonth(units.write)} / ${perMonth(units.read)} / ${perMonth(units.requests)} | |`,
    '',
  ];
}

function fmt(seconds: number): string {
  return Number.isFinite(seconds) ? `${seconds.toFixed(1)} s` : '–';
}

await main();
