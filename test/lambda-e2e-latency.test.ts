/**
 * Detection at the floor on the default deployment (1-minute schedule, grace 50 s), through the
 * real handler on the fake clock, with the watchdog's own looks (re-checks of suspects, routine
 * looks between scheduled runs) delivered as the SQS queue would: a death is paged within 65 s of
 * its last renewal however late the schedule fires; and none of what a live cluster does pages —
 * a 45-s API stall, kubelet clocks 10 minutes off or stepping 10 minutes, a first sight.
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

describe('detection at the floor: the default schedule, with the watchdog’s own looks', () => {
  it('a death is paged within 65 s of its last renewal, although the runs land 119 s apart', async () => {
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, withLooks: true });
    try {
      const start = h.clock.now();
      // Runs alternate between the start and the end of their minute: gaps of 1 s and 119 s.
      const late = (k: number) => (k % 2 === 0 ? 0 : 59_000);
      await runSchedule(h, start, start + 10 * MINUTE, late);
      // The node dies half a second after a run (the worst moment for a schedule-only watchdog).
      const victim = h.target().nodes[2] as string;
      h.clock.advance(500);
      h.target().sim.stopKubelet(victim);
      const lastRenewal = renewTimeOf(h, 'prod', victim);
      await runSchedule(h, start + 10 * MINUTE, start + 14 * MINUTE, late);
      const firing = h.messages('FIRING').find((m) => m.message.includes(victim));
      assert.ok(firing, summary(h.messages()));
      const latency = (firing.receivedAt - lastRenewal) / 1000;
      assert.ok(latency <= 65, `paged ${latency} s after the last renewal`);
      assert.ok(
        latency >= 50,
        `paged ${latency} s after the last renewal: before the grace period`,
      );
      assert.equal(alarms(h).length, 1, summary(h.messages()));
    } finally {
      await h.close();
    }
  });

  it('the re-check lands when the silence reaches the grace, not a look after the look that found it', async () => {
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, withLooks: true });
    try {
      const start = h.clock.now();
      // Runs at varied moments (so that our looks sample every phase of the renewals and the
      // renewal estimate is close), the last at 9:59; then 1 s and 119 s apart: the looks come
      // ~40 s apart.
      await runSchedule(h, start, start + 10 * MINUTE, (k) =>
        k === 9 ? 59_000 : (k * 7_300) % 40_000,
      );
      const late = (k: number) => (k % 2 === 0 ? 0 : 59_000);
      h.clock.advance(500);
      // The node renewed longest ago dies: the first look that finds it silent (10:39, ~40 s
      // after the run at 9:59) comes later than its grace less one renew interval.
      const { nodes, sim } = h.target();
      const victim = [...nodes].sort(
        (a, b) => renewTimeOf(h, 'prod', a) - renewTimeOf(h, 'prod', b),
      )[0] as string;
      sim.stopKubelet(victim);
      const lastRenewal = renewTimeOf(h, 'prod', victim);
      assert.ok(start + 10 * MINUTE - lastRenewal >= 3_000, 'it renewed 3 s or more before 10:00');
      await runSchedule(h, start + 10 * MINUTE, start + 14 * MINUTE, late);
      const firing = h.messages('FIRING').find((m) => m.message.includes(victim));
      assert.ok(firing, summary(h.messages()));
      const latency = (firing.receivedAt - lastRenewal) / 1000;
      // The grace, SQS's whole second, and the 2 s our estimate of the renewal may lag it (a
      // look a renew interval after the one that found it would page it at 58.8 s).
      assert.ok(latency <= 53, `paged ${latency} s after the last renewal`);
      assert.ok(latency >= 50, `paged ${latency} s after the last renewal: before the grace`);
      assert.equal(alarms(h).length, 1, summary(h.messages()));
    } finally {
      await h.close();
    }
  });

  for (const phase of [1_000, 5_000, 20_000, 39_000, 55_000]) {
    it(`a 45-s API stall (starting ${phase / 1000} s into a minute) pages nothing, once the API answers again`, async () => {
      const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, withLooks: true });
      try {
        const start = h.clock.now();
        const target = h.target();
        const stallAt = start + 5 * MINUTE + phase;
        h.clock.at(stallAt, () => {
          target.server.setFault({ kind: 'status', status: 503, message: 'stalled' });
          for (const n of target.nodes) target.sim.stopKubelet(n);
        });
        h.clock.at(stallAt + 45_000, () => {
          target.server.setFault(null);
        });
        // Once it answers, kubelets renew within a few seconds (their retry backoff), not at once.
        target.nodes.forEach((n, i) => {
          h.clock.at(stallAt + 45_000 + 1_000 + i * 1_300, () => target.sim.startKubelet(n));
        });
        // A run 1 s before the stall (it sees every lease's last renewal), and one 5.5 s after it
        // ends, while the last kubelets have not renewed yet: the worst moments.
        const end = phase + 45_000;
        const offsets = new Map([
          [5, Math.max(0, phase - 1_000)],
          [Math.floor((end + 5_500) / MINUTE) + 5, (end + 5_500) % MINUTE],
        ]);
        await runSchedule(
          h,
          start,
          start + 12 * MINUTE,
          (k) => offsets.get(k) ?? (k * 17_000) % MINUTE,
        );
        assert.deepEqual(alarms(h).map(kindOf), [], summary(h.messages()));
        assert.ok(
          h.logger.entries.some((e) => e.message === 'cannot read the cluster'),
          'some look fell inside the stall',
        );
      } finally {
        await h.close();
      }
    });
  }

  it('kubelet clocks 10 minutes off, or stepping 10 minutes between two renewals, page nothing', async () => {
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, withLooks: true });
    try {
      const start = h.clock.now();
      const { sim, nodes } = h.target();
      sim.setClockSkew(nodes[0] as string, 600_000);
      sim.setClockSkew(nodes[1] as string, -600_000);
      // Node 2 steps back 10 minutes, then forward again; node 3 steps forward, then back.
      h.clock.at(start + 6 * MINUTE + 3_000, () => sim.setClockSkew(nodes[2] as string, -600_000));
      h.clock.at(start + 6 * MINUTE + 4_000, () => sim.setClockSkew(nodes[3] as string, 600_000));
      h.clock.at(start + 14 * MINUTE + 7_000, () => sim.setClockSkew(nodes[2] as string, 0));
      h.clock.at(start + 14 * MINUTE + 9_000, () => sim.setClockSkew(nodes[3] as string, 0));
      await runSchedule(h, start, start + 20 * MINUTE, (k) => (k * 23_000) % MINUTE);
      assert.deepEqual(alarms(h).map(kindOf), [], summary(h.messages()));
    } finally {
      await h.close();
    }
  });

  it('a first sight with no history waits for a second look before it pages', async () => {
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, withLooks: true });
    try {
      const victim = h.target().nodes[4] as string;
      h.target().sim.stopKubelet(victim);
      h.clock.advance(5 * MINUTE);
      await h.run();
      assert.deepEqual(h.messages(), [], 'the first look pages nothing');
      await runSchedule(h, h.clock.now(), h.clock.now() + 2 * MINUTE, () => 30_000);
      assert.equal(h.messages('FIRING').length, 1, summary(h.messages()));
    } finally {
      await h.close();
    }
  });
});
