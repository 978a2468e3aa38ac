/**
 * Verdicts that never lie (issue 18): a lease cannot hide its node's death behind a long
 * `leaseDurationSeconds`, and a Node the lifecycle controller marked `Ready=Unknown` is not taken
 * for ready (`check`, in process, on a fake clock the simulated cluster shares).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { FakeClock } from '../testkit/fake-clock.js';
import { startSimFixture } from '../testkit/sim-fixture.js';

/** A MicroTime `ms` before `now`, as a kubelet writes it. */
function microTimeBefore(now: number, ms: number): string {
  return new Date(now - ms).toISOString().replace('Z', '000Z');
}

/** Stops the kubelets of `names` as if they had died `ms` before `now`. */
function killedLongAgo(cluster: SimCluster, names: readonly string[], now: number, ms: number) {
  for (const name of names) {
    cluster.stopKubelet(name);
    cluster.setLeaseField(name, { renewTime: microTimeBefore(now, ms) });
  }
}

describe('check: what a lease or a Node may claim', () => {
  /** `check -o json` on 3 nodes after `arrange` (given the cluster, its node names and the clock). */
  async function check(arrange: (cluster: SimCluster, names: string[], now: number) => void) {
    const clock = new FakeClock();
    const cluster = new SimCluster({ seed: 5, now: clock.now });
    const names = cluster.addNodes(3, { zones: ['eu-west-1a'] });
    arrange(cluster, names, clock.now());
    const sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-claims' });
    try {
      const result = await runInProcess(['check', '--kubeconfig', sim.kubeconfig, '-o', 'json'], {
        clock,
      });
      const nodes = (JSON.parse(result.stdout) as { nodes: { name: string; verdict: string }[] })
        .nodes;
      const verdictOf = (name: string) => nodes.find((n) => n.name === name)?.verdict;
      return { ...result, verdictOf, names };
    } finally {
      await sim.close();
    }
  }

  it('a lease silent 10 min claiming an hour-long duration is expired, not healthy', async () => {
    const { code, stdout, verdictOf, names } = await check((cluster, [name], now) => {
      killedLongAgo(cluster, [name as string], now, 10 * 60_000);
      cluster.setLeaseField(name as string, { leaseDurationSeconds: 3600 });
    });
    assert.equal(verdictOf(names[0] as string), 'expired', stdout);
    assert.equal(code, 1);
  });

  it('a Node the lifecycle controller marked Ready=Unknown is not ready, though its lease renews', async () => {
    const { code, stdout, verdictOf, names } = await check((cluster, [name]) => {
      cluster.setReady(name as string, 'Unknown', 'NodeStatusUnknown');
    });
    assert.equal(verdictOf(names[0] as string), 'not-ready', stdout);
    assert.equal(code, 1);
  });
});
