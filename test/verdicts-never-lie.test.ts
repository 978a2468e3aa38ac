/**
 * Verdicts that never lie (issue 18): a node already dead for minutes when the watchdog first
 * looks is never called `healthy` and never "recovers" — not alone, not as most of a zone — in
 * `watch` (in process, on a fake clock the simulated cluster shares) and in the Lambda (the
 * handler `createHandler` builds, with its own looks); a recovery is announced only once a lease
 * is seen renewed. A lease cannot hide its node's death behind a long `leaseDurationSeconds`, and
 * a Node the lifecycle controller marked `Ready=Unknown` is judged by its lease, as the controller
 * judges it (a renewal is the kubelet heard from).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { FakeClock } from '../testkit/fake-clock.js';
import { startSimFixture } from '../testkit/sim-fixture.js';
import { startWatchdogHarness, summary } from '../testkit/watchdog-harness.js';

const ZONES = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];
/** How long the dead nodes have been silent when the watchdog first looks. */
const DEAD_FOR_MS = 6 * 60_000;

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

/** `watch --checks N` on a cluster of 12 nodes (4 per zone) whose `dead` nodes died long ago. */
async function watchLongDead(deadInZoneA: number, checks: number, flags: readonly string[] = []) {
  const clock = new FakeClock();
  const cluster = new SimCluster({ seed: 3, now: clock.now });
  const byZone = ZONES.map((zone) => cluster.addNodes(4, { zones: [zone] }));
  const dead = (byZone[0] as string[]).slice(0, deadInZoneA);
  killedLongAgo(cluster, dead, clock.now(), DEAD_FOR_MS);
  const sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-verdicts' });
  try {
    const result = await runInProcess(
      ['watch', '--kubeconfig', sim.kubeconfig, '--checks', String(checks), ...flags],
      { clock },
    );
    return { dead, ...result };
  } finally {
    await sim.close();
  }
}

describe('watch on nodes dead for minutes before it started', () => {
  it('one dead node: never healthy, never a recovery, paged once', async () => {
    const { dead, code, stdout, stderr } = await watchLongDead(1, 6);
    assert.equal(code, 1, stderr);
    const name = dead[0] as string;
    const lines = stdout.split('\n').filter((line) => line.includes(` ${name} `));
    assert.ok(lines.length > 0, stdout);
    for (const line of lines) assert.doesNotMatch(line, /healthy/, `a dead node: ${line}`);
    assert.doesNotMatch(stdout, /Subject: .*RESOLVED/, 'no recovery');
    assert.equal(stdout.match(/Subject: .*FIRING/g)?.length, 1, stdout);
  });

  it('one dead node: paged a renew interval after first sight, said so, not at the next tick', async () => {
    const { code, stdout, stderr } = await watchLongDead(1, 2, ['--interval', '30']);
    assert.equal(code, 1, stderr);
    const first =
      /^(\d\d:\d\d:\d\d) {3}1 node expired on first sight: paged once a second look confirms the silence at (\d\d:\d\d:\d\d)$/m.exec(
        stdout,
      );
    assert.ok(first, stdout);
    const checked = /^Checked: +\S+ (\d\d:\d\d:\d\d) UTC$/m.exec(stdout);
    assert.ok(checked, stdout);
    const seconds = (t: string) => t.split(':').reduce((sum, part) => sum * 60 + Number(part), 0);
    const [, seenAt, looksAt] = first as RegExpExecArray;
    // The look confirms 12 s on (the renew interval and its slack), before the next tick at 30 s.
    assert.equal(seconds(looksAt as string) - seconds(seenAt as string), 12, stdout);
    assert.equal(checked[1], looksAt, stdout);
  });

  it('most of a zone dead: the STORM is never followed by "storm over" while they stay dead', async () => {
    const { dead, code, stdout, stderr } = await watchLongDead(4, 6);
    assert.equal(code, 1, stderr);
    for (const name of dead) {
      for (const line of stdout.split('\n').filter((l) => l.includes(` ${name} `))) {
        assert.doesNotMatch(line, /healthy/, `a dead node: ${line}`);
      }
    }
    assert.doesNotMatch(stdout, /Subject: .*(RESOLVED|storm over|flapping)/, 'no recovery');
    assert.equal(stdout.match(/Subject: .*STORM/g)?.length, 1, stdout);
  });
});

describe('watch: a first sight holds only a silence', () => {
  it('a not-ready node is paged at first sight, a dead one after the second look; a joining one not at all', async () => {
    const clock = new FakeClock();
    const cluster = new SimCluster({ seed: 3, now: clock.now });
    const [dead, unready] = cluster.addNodes(4, { zones: ['eu-west-1a'] }) as [string, string];
    killedLongAgo(cluster, [dead], clock.now(), DEAD_FOR_MS);
    cluster.setReady(unready, 'False', 'KubeletNotReady');
    // A node joining now: Ready=False until its network is up, within the startup grace.
    const joining = 'ip-10-0-9-9.eu-west-1.compute.internal';
    cluster.addNode({ name: joining, zone: 'eu-west-1a', createdAt: clock.now() });
    cluster.setReady(joining, 'False', 'KubeletNotReady');
    const sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-first-sight' });
    try {
      const argv = ['watch', '--kubeconfig', sim.kubeconfig, '--checks', '1', '--interval', '30'];
      const { code, stdout, stderr } = await runInProcess(argv, { clock });
      assert.equal(code, 1, stderr);
      assert.match(
        stdout,
        /^\d\d:\d\d:\d\d {3}1 node expired on first sight: paged once a second look confirms/m,
        'the expired node only',
      );
      const subjects = stdout.split('\n').filter((line) => line.startsWith('Subject: '));
      assert.deepEqual(
        subjects.map((line) => line.replace(/^.*FIRING: 1 node down \((\S+?)(\.\.\.)?\)$/, '$1')),
        [unready.slice(0, 12), dead.slice(0, 12)],
        `the not-ready node at once, the dead one at the second look: ${subjects.join('\n')}`,
      );
      assert.ok(!stdout.includes(`${joining}  not-ready`), stdout);
      const check = await runInProcess(['check', '--kubeconfig', sim.kubeconfig], { clock });
      const line = check.stdout.split('\n').find((l) => l.startsWith(joining));
      assert.match(
        line ?? check.stdout,
        /\s+healthy\s+.*Node reports Ready=False .*; node is 12s old \(startup grace 60s\)$/,
      );
    } finally {
      await sim.close();
    }
  });
});

describe('suspect: a lease that missed a renewal, as the README says', () => {
  it('check and watch call a lease silent past one renew interval suspect, not healthy', async () => {
    const clock = new FakeClock();
    const cluster = new SimCluster({ seed: 3, now: clock.now });
    const [quiet, dying] = cluster.addNodes(4, { zones: ['eu-west-1a'] }) as [string, string];
    killedLongAgo(cluster, [quiet], clock.now(), 20_000);
    const sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-suspect' });
    try {
      const check = await runInProcess(['check', '--kubeconfig', sim.kubeconfig], { clock });
      assert.equal(check.code, 0, 'a suspect pages nothing');
      const row = check.stdoutLines.find((line) => line.startsWith(quiet)) ?? check.stdout;
      assert.match(row, /\s+suspect\s+20s ago\s+.*suspect: no lease renewal for 20s, not yet/);
      // watch: a kubelet that stops between two ticks is suspect at the first tick past 12 s.
      const start = clock.now();
      clock.at(start + 1_000, () => cluster.stopKubelet(dying));
      const argv = ['watch', '--kubeconfig', sim.kubeconfig, '--checks', '4', '--interval', '5'];
      const watch = await runInProcess(argv, { clock });
      const shown = dying.replace(/\./g, '\\.');
      const suspect = new RegExp(
        `${shown}  healthy → suspect  \\(suspect: no lease renewal for (\\d+)s`,
      );
      const seconds = Number(suspect.exec(watch.stdout)?.[1]);
      assert.ok(seconds >= 12 && seconds < 50, `suspect ${seconds} s: ${watch.stdout}`);
    } finally {
      await sim.close();
    }
  });
});

describe('the Lambda on nodes dead for minutes before its first run', () => {
  for (const [what, deadInZoneA] of [
    ['one dead node', 1],
    ['most of a zone dead', 4],
  ] as const) {
    it(`${what}: never counted healthy, never RESOLVED`, async () => {
      const h = await startWatchdogHarness({
        clusters: { prod: { nodes: 12, zones: ZONES } },
        withLooks: true,
      });
      try {
        const { sim, nodes } = h.target();
        // Round-robin over the zones: eu-west-1a holds nodes 0, 3, 6 and 9.
        const dead = nodes.filter((_, i) => i % 3 === 0).slice(0, deadInZoneA);
        killedLongAgo(sim, dead, h.clock.now(), DEAD_FOR_MS);
        // EventBridge Scheduler fires `rate(1 minute)` anywhere in its minute: two runs 5 s apart.
        await h.run();
        h.clock.advance(5_000);
        await h.run();
        for (let i = 0; i < 4; i++) {
          await h.advanceTo(h.clock.now() + 60_000);
          await h.run();
        }
        const kinds = summary(h.messages());
        assert.equal(h.messages('RESOLVED').length, 0, kinds);
        assert.ok(h.messages().length >= 1, `paged: ${kinds}`);
        const checked = h.logger.entries.filter((e) => e.message === 'cluster checked');
        assert.ok(checked.length >= 6, `${checked.length} checks`);
        for (const entry of checked) {
          assert.ok(
            (entry.fields.healthy as number) <= 12 - dead.length,
            `a dead node counted healthy: ${JSON.stringify(entry.fields)}`,
          );
        }
      } finally {
        await h.close();
      }
    });
  }
});

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

  it('a Node marked Ready=Unknown is judged by its lease: expired when silent, healthy when renewing', async () => {
    const { code, stdout, verdictOf, names } = await check((cluster, [dead, stale], now) => {
      killedLongAgo(cluster, [dead as string], now, 10 * 60_000);
      cluster.setLeaseField(dead as string, { leaseDurationSeconds: 3600 });
      cluster.setReady(dead as string, 'Unknown', 'NodeStatusUnknown');
      // A stale Unknown: the controller itself counts a renewal as the kubelet heard from.
      cluster.setReady(stale as string, 'Unknown', 'NodeStatusUnknown');
    });
    assert.equal(verdictOf(names[0] as string), 'expired', stdout);
    assert.equal(verdictOf(names[1] as string), 'healthy', stdout);
    assert.equal(code, 1);
  });
});
