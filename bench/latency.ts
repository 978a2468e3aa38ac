/**
 * Detection latency, in failure-detector terms: detection time (from a node's last lease renewal
 * to SNS accepting the FIRING that names it: p50/p95/max) and mistakes (FIRING/STORM naming no
 * dead node, any WATCHDOG), on the default deployment: a 1-minute EventBridge Scheduler schedule,
 * grace 50 s, the watchdog's own looks (re-checks of suspects, routine looks 32, 64 and 96 s after
 * each run, those after the next run superseded) delivered as SQS and Lambda deliver them (whole-second delays, then the event source
 * mapping's pollers). Real parts (the simulated cluster over HTTPS, DynamoDB through dynalite, the
 * local SNS endpoint, the real handler) on one simulated clock; the cost of each check is not
 * counted in the latency (bench/run.ts measures it). A second table says where each row's time
 * past the grace went (bench/latency-runs.ts).
 *
 *   node --import tsx bench/latency.ts [deaths per row]
 */
import { MINUTE } from '../testkit/schedule-runs.js';
import { random } from '../testkit/state-fixtures.js';
import { benchmarksSection } from './benchmarks-section.js';
import {
  type Death,
  deaths,
  type OutageRow,
  type Row,
  stalls,
  zoneOutages,
} from './latency-runs.js';
import { percentile } from './statistics.js';

const COUNT = Number(process.argv[2] ?? 40);
const writeSection = await benchmarksSection('## Detection latency');

const onTime = () => 0;
const jitter = random(5);
const anywhere = () => Math.floor(jitter() * MINUTE);
const skewed = (nodes: readonly string[]) =>
  new Map(nodes.map((n, i) => [n, i % 5 === 0 ? 600_000 : i % 5 === 1 ? -600_000 : 0]));

const rows: Row[] = [
  await deaths('random deaths, runs on the minute', COUNT, { offset: onTime }),
  await deaths("random deaths, the Scheduler's jitter (runs anywhere in their minute)", COUNT, {
    offset: anywhere,
  }),
  await deaths(
    'random deaths, kubelet clocks stepping ±10 min (2 in 5 nodes), jittered runs',
    COUNT,
    { offset: anywhere, skews: skewed },
  ),
  await deaths(
    'random deaths, a cold container taking over before the page, jittered runs',
    COUNT,
    {
      offset: anywhere,
      coldTakeover: true,
    },
  ),
  await deaths(
    'deaths that overlap (3 nodes of 3 zones in one minute), two warm containers serving at random, jittered runs',
    COUNT,
    { offset: anywhere, overlap: 3, twoWarm: true },
  ),
  await stalls(Math.max(5, Math.round(COUNT / 2)), anywhere),
  await deaths(
    'the looks stopped (event source mapping disabled): the schedule alone, jittered runs',
    Math.max(5, Math.round(COUNT / 4)),
    { offset: anywhere, mappingDisabled: true },
  ),
];

const OUTAGES = Math.max(5, Math.round(COUNT / 2));
const outages: OutageRow[] = [
  await zoneOutages("3 of a zone's 4 nodes stopping in the same second, jittered runs", OUTAGES, {
    zoneSize: 4,
    dying: 3,
    offset: anywhere,
  }),
  await zoneOutages("16 of a zone's 20 nodes stopping in the same second, jittered runs", OUTAGES, {
    zoneSize: 20,
    dying: 16,
    offset: anywhere,
  }),
];

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const latencyLine = ({ row, deaths: d, mistakes, stalls: n }: Row) => {
  const l = d.map((x) => x.latency);
  const cells =
    l.length === 0
      ? ['–', '–', '–', '–']
      : [Math.min(...l), percentile(l, 50), percentile(l, 95), Math.max(...l)].map(s);
  return `| ${row} | ${l.length || `${n} stalls`} | ${cells.join(' | ')} | ${mistakes} |`;
};
/** Mean and max of one part of the time, over a row's deaths. */
const part = (d: readonly Death[], of: (x: Death) => number) => {
  const v = d.map(of);
  return `${s(v.reduce((a, b) => a + b, 0) / v.length)} / ${s(Math.max(...v))}`;
};
const pagedBy = (d: readonly Death[]) =>
  (['re-check', 'routine look', 'scheduled run'] as const)
    .map((k) => `${d.filter((x) => x.pagedBy === k).length}`)
    .join(' / ');
const partsLine = ({ row, deaths: d }: Row) =>
  `| ${row} | ${pagedBy(d)} | ${part(d, (x) => x.gap)} | ${part(d, (x) => x.wait)} | ${part(d, (x) => x.rounding)} | ${part(d, (x) => x.polling)} | ${part(d, (x) => x.latency - 50_000)} |`;

const outageLine = ({ row, latencies: l, firstPaged, mistakes }: OutageRow) =>
  `| ${row} | ${l.length} | ${[Math.min(...l), percentile(l, 50), percentile(l, 95), Math.max(...l)].map(s).join(' | ')} | ${firstPaged} | ${mistakes} |`;

const latencies = rows.map(latencyLine);
const outageLines = outages.map(outageLine);
const parts = rows.filter((r) => r.deaths.length > 0).map(partsLine);
/** Where the time past the grace went, per death (mean / max): printed, not written to the doc. */
const partsHeader =
  '| row | paged by re-check / routine look / scheduled run | gap (first missed renewal to the first look) | wait (grace to the paging look) | SQS rounding | polling | past the grace |';
for (const line of [...latencies, partsHeader, ...parts, ...outageLines]) {
  process.stdout.write(`${line}\n`);
}

await writeSection([
  `## Detection latency (${new Date().toISOString().slice(0, 10)})`,
  '',
  "`npm run bench:latency` (bench/latency.ts), simulated time on real parts. Detection time: from a node's last lease renewal (true clock) to SNS accepting the FIRING that names it; a mistake is a FIRING or STORM naming no dead node, or any WATCHDOG. The default deployment: a 1-minute schedule, grace 50 s, suspects re-checked at their deadline and routine looks 32, 64 and 96 s after each run, through SQS (whole-second delays) and its pollers (modelled as 0-2 s; AWS states no bound). 40 nodes, each death at a random moment.",
  '',
  '| row | deaths | min | p50 | p95 | max | mistakes (false FIRING/STORM, WATCHDOG) |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...latencies,
  '',
  'Zone outages: in each run, nodes of one zone stop in the same second at a random moment, each kubelet at its own phase of the 10-s renew cycle, so their leases cross the grace period seconds apart; they come back 4 minutes later (4 zones of 4 nodes, or of 20, taking turns: a node dying again within 15 minutes would be flapping). Detection time: from the earliest last renewal of the run to SNS accepting the STORM. Goal: one STORM per outage, no FIRING of its nodes before it, within grace + one renew interval + 5 s (65 s).',
  '',
  '| row | runs (STORMs) | min | p50 | p95 | max | runs with a FIRING first (or no STORM) | mistakes |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  ...outageLines,
  '',
]);
