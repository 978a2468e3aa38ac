/**
 * What the README tells users to do, done with kubectl against the simulated cluster, and the
 * watchdog's verdict following it: a kubelet stopped by annotation is `expired`, a cordoned silent
 * node is `suppressed`, a node labelled for `--exclude` is `suppressed`, a deleted node is gone.
 * The watchdog is the real `check` command (in process, on the sim's clock).
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';

const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const missing = probe.error ? `kubectl not installed: ${probe.error.message}` : undefined;
if (missing) console.log(`# SKIPPED test/sim-kubectl-verdicts.test.ts: ${missing}`);

interface Checked {
  code: number;
  nodes: { name: string; verdict: string; reason: string }[];
}

describe('kubectl changes the sim, the watchdog follows', { skip: missing }, () => {
  let sim: SimFixture | undefined;
  let dir: string;
  let now = Date.parse('2026-11-30T12:00:00Z');
  let names: string[];

  before(async () => {
    const cluster = new SimCluster({ now: () => now, seed: 7, jitter: false });
    names = cluster.addNodes(4, { prefix: 'node-' });
    sim = await startSimFixture(cluster, { prefix: 'sim-kubectl-verdicts' });
    dir = sim.dir;
  });
  after(() => sim?.close());

  function kubectl(...args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        'kubectl',
        ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args],
        { env: { ...process.env, HOME: dir, KUBECONFIG: '' }, timeout: 20_000 },
        (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      );
    });
  }

  async function check(...extra: string[]): Promise<Checked> {
    const { code, stdout } = await runInProcess(
      ['check', '--kubeconfig', join(dir, 'kubeconfig'), '-o', 'json', ...extra],
      { clock: { now: () => now } },
    );
    return { code, nodes: (JSON.parse(stdout) as { nodes: Checked['nodes'] }).nodes };
  }

  const verdictOf = (checked: Checked, name: string) =>
    checked.nodes.find((n) => n.name === name)?.verdict ?? 'absent';

  it('starts healthy', async () => {
    const checked = await check();
    assert.equal(checked.code, 0);
    assert.deepEqual(new Set(checked.nodes.map((n) => n.verdict)), new Set(['healthy']));
  });

  it('a kubelet stopped by annotation: expired once its lease is older than the grace period', async () => {
    const [victim] = names as [string];
    await kubectl(
      'annotate',
      '--overwrite',
      'node',
      victim,
      'sim.lease-watchdog.io/kubelet=stopped',
    );
    now += 90_000;
    const checked = await check();
    assert.equal(verdictOf(checked, victim), 'expired');
    assert.equal(checked.code, 1);
  });

  it('kubectl cordon: the silent node is suppressed, the check exits 0', async () => {
    const [victim] = names as [string];
    await kubectl('cordon', victim);
    const checked = await check();
    assert.equal(verdictOf(checked, victim), 'suppressed');
    assert.match(checked.nodes.find((n) => n.name === victim)?.reason ?? '', /cordoned/);
    assert.equal(checked.code, 0);
  });

  it('kubectl label for --exclude: suppressed; without the flag it pages', async () => {
    const other = names[1] as string;
    await kubectl(
      'annotate',
      '--overwrite',
      'node',
      other,
      'sim.lease-watchdog.io/kubelet=stopped',
    );
    await kubectl('label', 'node', other, 'lease-watchdog.io/ignore=');
    now += 90_000;
    assert.equal(verdictOf(await check(), other), 'expired');
    const excluded = await check('--exclude', 'lease-watchdog.io/ignore');
    assert.equal(verdictOf(excluded, other), 'suppressed');
  });

  it('the kubelet started again: healthy', async () => {
    const other = names[1] as string;
    await kubectl(
      'annotate',
      '--overwrite',
      'node',
      other,
      'sim.lease-watchdog.io/kubelet=running',
    );
    now += 15_000;
    assert.equal(verdictOf(await check(), other), 'healthy');
  });

  it('kubectl delete node: the node and its lease are gone', async () => {
    const [victim] = names as [string];
    await kubectl('delete', 'node', victim);
    assert.equal(verdictOf(await check(), victim), 'absent');
  });
});
