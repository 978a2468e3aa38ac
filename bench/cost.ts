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
 * A scheduled check's billed duration is the own CPU of the steady-check median of
 * docs/BENCHMARKS.md's check section at the 512 MB function's share of a vCPU
 * (testkit/cost-monthly.ts), plus a relist's extra once per `nodeRefreshSeconds` (`npm run bench`);
 * the same run's scheduled checks through the handler are shown beside it.
 *
 * The parts: what is measured (cost/measure.ts), what the deployment runs in a month and the
 * estimates (testkit/cost-deployment.ts), the price list (testkit/cost-prices.ts), the month in
 * money (testkit/cost-monthly.ts) and the page (cost/render.ts, pure).
 *
 *   npm run bench:cost            (BENCH_COST_CHECKS=5 by default; 2 at 100,000 nodes)
 */

import { readFile, writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import type { PerCheck } from '../testkit/cost-monthly.js';
import { measure } from './cost/measure.js';
import { billOf, fleetOf, placeBill, placeFleet } from './cost/place-bill.js';
import { renderCost } from './cost/render.js';

const ROOT = new URL('..', import.meta.url).pathname;
const CHECKS = Number(process.env.BENCH_COST_CHECKS ?? 5);
/** At 100,000 nodes each check takes tens of seconds on this machine: fewer of them. */
const BIG_CHECKS = Math.min(CHECKS, 2);
/** BENCH_COST_SIZES=100,1000 for a quick look (the goals' rows need all four). */
const SIZES = (process.env.BENCH_COST_SIZES ?? '100,1000,5000,100000').split(',').map(Number);

const measured: PerCheck[] = [];
for (const nodes of SIZES) {
  console.error(`measuring ${nodes} nodes...`);
  const started = performance.now();
  measured.push(await measure(nodes, nodes >= 100_000 ? BIG_CHECKS : CHECKS));
  console.error(`  ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
const { doc, perMonth, perInvocation } = renderCost({
  measured,
  checks: CHECKS,
  bigChecks: BIG_CHECKS,
});
// The whole bill (npm run bench:bill) and the fleet's (npm run bench:fleet) are kept as they were.
const old = await readFile(`${ROOT}docs/COST.md`, 'utf8').catch(() => '');
await writeFile(`${ROOT}docs/COST.md`, placeFleet(placeBill(doc, billOf(old)), fleetOf(old)));
console.log(perMonth.join('\n'));
console.log();
console.log(perInvocation.join('\n'));
