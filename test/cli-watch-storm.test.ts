/**
 * `lease-watchdog watch` against the simulated cluster when a zone goes dark: three of a zone's
 * four kubelets stop in the same second, at different points of their 10-s renew cycle, so their
 * leases cross the grace period seconds apart. `watch` holds the FIRINGs of the storm that is
 * forming and prints one STORM, no FIRING before it, within grace + one renew interval + 5 s of
 * the earliest last renewal. In process, on a fake clock the simulated cluster shares.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { FakeClock } from '../testkit/fake-clock.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';

describe('lease-watchdog watch: a zone outage is one STORM', () => {
  const clock = new FakeClock();
  let sim: SimFixture;
  let zone: string[];
  const renewedAt = (node: string) =>
    Date.parse(String(sim.cluster.leaseObject('kube-node-lease', node)?.spec?.renewTime));
  before(async () => {
    const cluster = new SimCluster({ seed: 2, now: clock.now });
    const names = cluster.addNodes(8, { zones: ['eu-west-1a', 'eu-west-1b'] });
    zone = names.filter((_, i) => i % 2 === 0);
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-cli-storm' });
  });
  after(() => sim.close());

  it('three of four kubelets stopped in one second at different phases: one STORM, no FIRING first, within 65 s', async () => {
    const start = clock.now();
    let lastRenewals: number[] = [];
    clock.at(start + 300_000, () => {
      // The zone's kubelets renewed longest and shortest ago, and one between: phases spread.
      const sorted = [...zone].sort((a, b) => renewedAt(a) - renewedAt(b));
      const dying = [sorted[0], sorted[1], sorted[3]] as string[];
      lastRenewals = dying.map(renewedAt);
      for (const node of dying) sim.cluster.stopKubelet(node);
    });
    const controller = new AbortController();
    clock.at(start + 450_000, () => controller.abort());
    const paged: { kind: string; at: number }[] = [];
    const { stdout } = await runInProcess(
      ['watch', '--kubeconfig', sim.kubeconfig, '--interval', '5'],
      {
        clock: { now: clock.now, sleep: (ms, signal) => clock.sleep(ms, signal) },
        signal: controller.signal,
        onOutput: (stream, text) => {
          const kind = /Subject: .*?\b(FIRING|STORM)\b/.exec(text)?.[1];
          if (stream === 'stdout' && kind) paged.push({ kind, at: clock.now() });
        },
      },
    );
    const earliest = Math.min(...lastRenewals);
    assert.ok(Math.max(...lastRenewals) - earliest >= 8_000, 'they renew at different phases');
    assert.deepEqual(
      paged.map((p) => p.kind),
      ['STORM'],
      `one STORM and nothing else (stdout: ${stdout})`,
    );
    const latency = ((paged[0]?.at ?? 0) - earliest) / 1000;
    assert.ok(latency >= 50 && latency <= 65, `paged ${latency} s after the earliest last renewal`);
  });
});
