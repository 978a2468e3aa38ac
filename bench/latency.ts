/**
 * Detection latency, in failure-detector terms: detection time (from a node's last lease renewal
 * to SNS accepting the FIRING that names it: p50/p95/max) and mistakes (FIRING/STORM naming no
 * dead node), on the default deployment: a 1-minute EventBridge Scheduler schedule, grace 50 s,
 * the watchdog's own looks (re-checks of suspects, routine looks 40 and 80 s after each run)
 * delivered as SQS delivers them (whole-second delays). Real parts (the simulated cluster over
 * HTTPS, DynamoDB through dynalite, the local SNS endpoint, the real handler) on one simulated
 * clock; the cost of each check is not counted in the latency (bench/run.ts measures it).
 *
 *   node --import tsx bench/latency.ts [deaths per row]
 */
import { MINUTE, renewTimeOf, runSchedule } from '../testkit/schedule-runs.js';
import { random } from '../testkit/state-fixtures.js';
import { type Harness, kindOf, startWatchdogHarness } from '../testkit/watchdog-harness.js';
import { benchmarksSection } from './benchmarks-section.js';

const DEATHS = Number(process.argv[2] ?? 40);
const writeSection = await benchmarksSection('## Detection latency');

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

interface Row {
  readonly row: string;
  readonly deaths: number;
  readonly latencies: number[];
  mistakes: number;
}

/** FIRING/STORM messages since `from` that name none of `dead`. */
function mistakesIn(h: Harness, from: number, dead: readonly string[]): number {
  return h
    .messages()
    .slice(from)
    .filter((m) => ['FIRING', 'STORM'].includes(kindOf(m) ?? ''))
    .filter((m) => !dead.some((n) => m.message.includes(n))).length;
}

async function deaths(
  row: string,
  offset: (minute: number) => number,
  skews: (nodes: readonly string[]) => Map<string, number>,
): Promise<Row> {
  const h = await startWatchdogHarness({
    clusters: { prod: { nodes: 40, seed: 11 } },
    withLooks: true,
  });
  const rand = random(7);
  const result: Row = { row, deaths: DEATHS, latencies: [], mistakes: 0 };
  try {
    const target = h.target('prod');
    const skew = skews(target.nodes);
    let t = h.clock.now();
    await runSchedule(h, t, t + 5 * MINUTE, offset);
    t += 5 * MINUTE;
    // The clocks step once the watchdog knows the nodes (between two renewals), and stay off.
    for (const [node, ms] of skew) target.sim.setClockSkew(node, ms);
    await runSchedule(h, t, t + 2 * MINUTE, offset);
    t += 2 * MINUTE;
    for (let i = 0; i < DEATHS; i++) {
      // A different node each time, dying at a random moment of a minute.
      const victim = target.nodes[(i * 7) % target.nodes.length] as string;
      let lastRenewal = Number.NaN;
      h.clock.at(t + Math.floor(rand() * MINUTE), () => {
        target.sim.stopKubelet(victim);
        lastRenewal = renewTimeOf(h, 'prod', victim) - (skew.get(victim) ?? 0);
      });
      const seen = h.messages().length;
      await runSchedule(h, t, t + 4 * MINUTE, offset);
      t += 4 * MINUTE;
      const fired = h
        .messages()
        .slice(seen)
        .find((m) => kindOf(m) === 'FIRING' && m.message.includes(victim));
      if (fired === undefined) throw new Error(`${row}: no FIRING for ${victim}`);
      result.latencies.push(fired.receivedAt - lastRenewal);
      result.mistakes += mistakesIn(h, seen, [victim]);
      // It comes back; the watchdog sees it recover before the next death.
      target.sim.startKubelet(victim);
      await runSchedule(h, t, t + 2 * MINUTE, offset);
      t += 2 * MINUTE;
    }
  } finally {
    await h.close();
  }
  return result;
}

/** API stalls of 45 s (lists answer 503, no kubelet renews; they renew 1–8 s after it ends). */
async function stalls(count: number, offset: (minute: number) => number): Promise<Row> {
  const h = await startWatchdogHarness({
    clusters: { prod: { nodes: 40, seed: 11 } },
    withLooks: true,
  });
  const rand = random(13);
  const result: Row = {
    row: `${count} API stalls of 45 s, nothing dies`,
    deaths: 0,
    latencies: [],
    mistakes: 0,
  };
  try {
    const target = h.target('prod');
    let t = h.clock.now();
    await runSchedule(h, t, t + 5 * MINUTE, offset);
    t += 5 * MINUTE;
    for (let i = 0; i < count; i++) {
      const start = t + Math.floor(rand() * MINUTE);
      h.clock.at(start, () => {
        target.server.setFault({ kind: 'status', status: 503, message: 'stalled' });
        for (const n of target.nodes) target.sim.stopKubelet(n);
      });
      h.clock.at(start + 45_000, () => target.server.setFault(null));
      for (const n of target.nodes) {
        h.clock.at(start + 45_000 + 1_000 + Math.floor(rand() * 7_000), () =>
          target.sim.startKubelet(n),
        );
      }
      const seen = h.messages().length;
      await runSchedule(h, t, t + 4 * MINUTE, offset);
      t += 4 * MINUTE;
      result.mistakes += mistakesIn(h, seen, []);
    }
  } finally {
    await h.close();
  }
  return result;
}

const onTime = () => 0;
const jitter = random(5);
const anywhere = () => Math.floor(jitter() * MINUTE);
const none = () => new Map<string, number>();
const skewed = (nodes: readonly string[]) =>
  new Map(nodes.map((n, i) => [n, i % 5 === 0 ? 600_000 : i % 5 === 1 ? -600_000 : 0]));

const rows = [
  await deaths('random deaths, runs on the minute', onTime, none),
  await deaths(
    "random deaths, the Scheduler's jitter (runs anywhere in their minute)",
    anywhere,
    none,
  ),
  await deaths(
    'random deaths, kubelet clocks stepping ±10 min (2 in 5 nodes), jittered runs',
    anywhere,
    skewed,
  ),
  await stalls(Math.max(5, Math.round(DEATHS / 2)), anywhere),
];

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const lines = rows.map((r) =>
  r.latencies.length === 0
    ? `| ${r.row} | ${r.deaths} | – | – | – | – | ${r.mistakes} |`
    : `| ${r.row} | ${r.deaths} | ${s(Math.min(...r.latencies))} | ${s(percentile(r.latencies, 50))} | ${s(percentile(r.latencies, 95))} | ${s(Math.max(...r.latencies))} | ${r.mistakes} |`,
);
for (const line of lines) process.stdout.write(`${line}\n`);

await writeSection([
  `## Detection latency (${new Date().toISOString().slice(0, 10)})`,
  '',
  "Detection time: from a node's last lease renewal (on the true clock) to SNS accepting the FIRING that names it; mistakes: FIRING or STORM naming no dead node. The default deployment: a 1-minute schedule, grace 50 s, the watchdog's own looks (a suspect re-checked at its deadline, routine looks 40 and 80 s after each run) delivered with SQS's whole-second delays. 40 nodes; each death at a random moment. Simulated time on real parts (`bench/latency.ts`, `npm run bench:latency`). Goal: p95 ≤ 65 s, max ≤ 75 s, no mistakes.",
  '',
  '| row | deaths | min | p50 | p95 | max | mistakes (false FIRING/STORM) |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...lines,
  '',
]);
