/**
 * The soak of docs/RELIABILITY.md through the real parts, shorter: the same seeded fault schedule
 * (testkit/reliability-fault-schedule.ts: deaths, flapping, a storm, 45-s stalls, a 5-minute API
 * outage) for one simulated day, at 1,440 one-minute invocations of the handler `createHandler`
 * builds, reading the sim over HTTPS, keeping state in dynalite and publishing to the local SNS
 * server (testkit/watchdog-harness.ts). Too slow for the test suite (a stall costs a real
 * request timeout); prints what SNS accepted, FIRING/STORM naming a node that was not down, and
 * the real time of an invocation (median, p95). Not a test: nothing is asserted.
 *
 *   node_modules/.bin/node --import tsx bench/soak-day.ts [days]
 */
import { performance } from 'node:perf_hooks';
import { scheduleFaults, ZONES } from '../testkit/reliability-fault-schedule.js';
import { random } from '../testkit/state-fixtures.js';
import { attributesOf, kindOf, startWatchdogHarness, T0 } from '../testkit/watchdog-harness.js';

const DAYS = Number(process.argv[2] ?? 1);
const MINUTE = 60_000;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const h = await startWatchdogHarness({
  clusters: { soak: { nodes: 12, seed: 2026, zones: ZONES } },
  snsMaxAttempts: 1,
  requestTimeoutSeconds: 2,
});
try {
  const t = h.target('soak');
  let down = 0;
  const schedule = scheduleFaults(
    {
      clock: h.clock,
      sim: t.sim,
      nodes: t.nodes,
      rand: random(2026),
      api(stops) {
        down += stops ? 1 : -1;
        t.server.setFault(down > 0 ? { kind: 'hang' } : null);
      },
    },
    DAYS,
  );
  const statuses: Record<string, number> = {};
  const ms: number[] = [];
  for (let i = 0; i < DAYS * 24 * 60; i++) {
    h.clock.advanceTo(T0 + i * MINUTE);
    const started = performance.now();
    let status: string;
    try {
      status = (await h.run()).clusters[0]?.lastStatus ?? 'not-run';
    } catch {
      status = 'failed';
    }
    ms.push(performance.now() - started);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }

  const kinds: Record<string, number> = {};
  let falseAlarms = 0;
  for (const message of h.sns.messages) {
    const kind = kindOf(message) ?? '?';
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    const ended = attributesOf(message).severity === 'info';
    if ((kind !== 'FIRING' && kind !== 'STORM') || ended) continue;
    const at = message.receivedAt;
    const named = t.nodes.filter((name) => message.message.includes(name));
    for (const name of named) {
      const down = schedule.outages.some((o) => o.node === name && o.start <= at && at < o.end);
      if (!down) falseAlarms++;
    }
  }
  const line = (label: string, value: string) =>
    process.stdout.write(`${label.padEnd(34)}${value}\n`);
  line('days, invocations', `${DAYS}, ${ms.length}`);
  line('injected', JSON.stringify(schedule.injected));
  line('invocations by outcome', JSON.stringify(statuses));
  line('accepted by SNS, by kind', JSON.stringify(kinds));
  line('FIRING/STORM naming a live node', String(falseAlarms));
  line(
    'invocation, real ms (median, p95)',
    `${percentile(ms, 50).toFixed(1)}, ${percentile(ms, 95).toFixed(1)}`,
  );
} finally {
  await h.close();
}
