/**
 * One outage, one page, on time, through the real handler with the watchdog's own looks (SQS's
 * whole-second delays) on the fake clock. Kubelets that stop in the same second renew at different
 * points of their 10-s cycle, so their leases cross the grace period up to ~10 s apart:
 * - three deaths in three zones, found suspect by one look, are each re-checked at their own grace
 *   (not one re-check for the earliest, the others left to the next routine look);
 * - three of a zone's four kubelets stopping together page one STORM and no FIRING before it,
 *   within grace + one renew interval + 5 s of the earliest last renewal;
 * - a lone death is not held: paged at the floor, as before.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MINUTE, renewTimeOf, runSchedule } from '../testkit/schedule-runs.js';
import {
  type Harness,
  kindOf,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

const alarms = (h: Harness) =>
  h.messages().filter((m) => ['FIRING', 'STORM'].includes(kindOf(m) ?? ''));

/** 12 nodes, 4 in each of 3 zones (names round-robin: nodes 0, 3, 6, 9 share a zone). */
async function started(): Promise<Harness> {
  const h = await startWatchdogHarness({
    clusters: { prod: { nodes: 12, seed: 13 } },
    withLooks: true,
    pagerDuty: true,
  });
  // Runs at varied moments, so that the looks learn every kubelet's clock.
  await runSchedule(h, h.clock.now(), h.clock.now() + 6 * MINUTE, (k) => (k * 7_300) % 40_000);
  return h;
}

/** Stops the kubelets of `nodes` now; their last renewals, asserted spread over 4 s or more. */
function stopTogether(h: Harness, nodes: readonly string[]): Map<string, number> {
  const last = new Map(nodes.map((n) => [n, renewTimeOf(h, 'prod', n)]));
  for (const node of nodes) h.target().sim.stopKubelet(node);
  const times = [...last.values()];
  assert.ok(Math.max(...times) - Math.min(...times) >= 4_000, 'they renew at different phases');
  return last;
}

/** A look as the SQS event source mapping delivers a routine one. */
function routineLook(h: Harness) {
  const body = JSON.stringify({ cluster: 'prod', look: { suspects: [] } });
  return h.run({ Records: [{ messageId: `look-${h.clock.now()}`, body }] });
}

describe('one outage, one page, on time', () => {
  it('deaths that overlap are each re-checked at their own grace, whatever else is pending', async () => {
    const h = await started();
    try {
      const nodes = h.target().nodes;
      // One node of each zone: no storm; their renewals a few seconds apart.
      const dying = [nodes[0], nodes[1], nodes[2]] as string[];
      h.clock.advance(MINUTE - (h.clock.now() % MINUTE) + 2_000);
      const last = stopTogether(h, dying);
      const latest = Math.max(...last.values());
      // One look finds all three suspect; nothing else is scheduled until well after the grace.
      h.looks?.pending.splice(0);
      await h.advanceTo(latest + 13_000);
      await routineLook(h);
      await h.advanceTo(latest + 70_000);
      for (const [node, renewed] of last) {
        const firing = alarms(h).find((m) => m.message.includes(node));
        assert.ok(firing, `${node} paged: ${summary(h.messages())}`);
        const latency = (firing.receivedAt - renewed) / 1000;
        assert.ok(latency <= 55, `${node} paged ${latency} s after its last renewal`);
      }
    } finally {
      await h.close();
    }
  });

  it("three of a zone's four kubelets stopping together page one STORM, no FIRING before it, within 65 s", async () => {
    const h = await started();
    try {
      const nodes = h.target().nodes;
      const dying = [nodes[0], nodes[3], nodes[6]] as string[];
      const seen = h.messages().length;
      h.clock.advance(MINUTE - (h.clock.now() % MINUTE) + 2_000);
      const start = h.clock.now();
      const last = stopTogether(h, dying);
      await runSchedule(
        h,
        start - 2_000 + MINUTE,
        start + 4 * MINUTE,
        (k) => (k * 17_000) % 60_000,
      );
      const paged = alarms(h).slice(seen);
      assert.deepEqual(
        paged.map((m) => kindOf(m)),
        ['STORM'],
        `one STORM and nothing else: ${summary(h.messages().slice(seen))}`,
      );
      const storm = paged[0] as (typeof paged)[number];
      for (const node of dying) {
        // Listed by their short names (the zone's common suffix said once).
        const short = new RegExp(`\\b${node.split('.')[0]}\\b`);
        assert.match(storm.message, short, `the STORM names ${node}`);
      }
      const latency = (storm.receivedAt - Math.min(...last.values())) / 1000;
      assert.ok(latency <= 65, `paged ${latency} s after the earliest last renewal`);

      // One incident in the on-call tool: triggered with the STORM, resolved when the last is back.
      const pd = h.pagerDuty as NonNullable<Harness['pagerDuty']>;
      const taken = () => pd.accepted.map((e) => `${e.event_action} ${e.dedup_key}`);
      const [trigger] = taken();
      assert.match(trigger ?? '', /^trigger lw-storm-/, taken().join(', '));
      assert.deepEqual(taken(), [trigger]);
      for (const node of dying.slice(0, 2)) h.target().sim.startKubelet(node);
      let now = h.clock.now();
      await runSchedule(h, now, now + 3 * MINUTE, () => 0);
      assert.deepEqual(taken(), [trigger], 'open while one of them is still down');
      h.target().sim.startKubelet(dying[2] as string);
      now = h.clock.now();
      await runSchedule(h, now, now + 3 * MINUTE, () => 0);
      assert.deepEqual(taken(), [trigger, trigger?.replace('trigger', 'resolve')]);
    } finally {
      await h.close();
    }
  });

  it('a lone death is not held: paged at the floor', async () => {
    const h = await started();
    try {
      const victim = h.target().nodes[4] as string;
      const seen = h.messages().length;
      h.clock.advance(MINUTE - (h.clock.now() % MINUTE) + 2_000);
      const start = h.clock.now();
      h.target().sim.stopKubelet(victim);
      const lastRenewal = renewTimeOf(h, 'prod', victim);
      await runSchedule(
        h,
        start - 2_000 + MINUTE,
        start + 4 * MINUTE,
        (k) => (k * 17_000) % 60_000,
      );
      const paged = alarms(h).slice(seen);
      assert.deepEqual(
        paged.map((m) => kindOf(m)),
        ['FIRING'],
        summary(h.messages().slice(seen)),
      );
      const latency = ((paged[0]?.receivedAt ?? 0) - lastRenewal) / 1000;
      assert.ok(latency >= 50 && latency <= 55, `paged ${latency} s after the last renewal`);
    } finally {
      await h.close();
    }
  });
});
