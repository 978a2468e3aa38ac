/**
 * `lease-watchdog watch` as a process against the simulated cluster: a check that finds a suspect
 * (a lease that missed a renewal, not yet confirmed) asks for a look at its deadline, and `watch`
 * looks then, between two ticks of `--interval`, so a node that dies is paged seconds after its
 * silence can be confirmed, not at the next tick; the looks are never closer than the renewal
 * clock allows, and SIGTERM still stops it cleanly.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SimCluster } from '../sim/cluster.js';
import { type SimServer, startSimServer } from '../sim/server.js';
import { BIN, NODE, ROOT } from '../testkit/cli-process.js';

const INTERVAL_SECONDS = 10;

async function until(condition: () => boolean, what: string, ms = 60_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(25)) {
    if (condition()) return;
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('lease-watchdog watch: suspects looked at again at their deadline', () => {
  let dir: string;
  let cluster: SimCluster;
  let names: string[];
  let server: SimServer;
  let kubeconfig: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-cli-recheck-'));
    cluster = new SimCluster({ seed: 11 });
    // 4 s leases: kubelets renew every second, a missed renewal shows after 2.6 s.
    names = cluster.addNodes(4, { zones: ['eu-west-1a'], leaseDurationSeconds: 4 });
    server = await startSimServer({ cluster });
    kubeconfig = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kubeconfig);
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it(`with --interval ${INTERVAL_SECONDS} a node that dies is paged before the next tick after it is suspected`, async () => {
    const dead = names[2] as string;
    server.resetStats();
    const child = spawn(
      NODE,
      [
        BIN,
        'watch',
        '--kubeconfig',
        kubeconfig,
        '--interval',
        String(INTERVAL_SECONDS),
        '--grace-period',
        '6',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // When each look read the leases (one list per look), as this process saw it.
    const looks: number[] = [];
    let counted = 0;
    const poll = setInterval(() => {
      const sent = server.sent;
      for (; counted < sent.length; counted++) {
        if (
          sent[counted]?.url.startsWith(
            '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?',
          )
        ) {
          looks.push(Date.now());
        }
      }
    }, 20);
    try {
      await until(() => /lease-watchdog-sim: 4 nodes: 4 healthy/.test(stdout), 'the first check');
      // Its lease is renewed at least once after the first look (its value changed), then never.
      await sleep(1_500);
      cluster.stopKubelet(dead);
      const diedAt = Date.now();
      await until(() => /Subject: .*FIRING/.test(stdout), `the FIRING (stderr: ${stderr})`);
      const pagedAt = Date.now();
      child.kill('SIGTERM');
      assert.equal(await exited, 1, `stopped by SIGTERM, alerting (stderr: ${stderr})`);
      assert.doesNotMatch(stderr, /\n\s+at |Error/, 'a clean stop');
      assert.match(stdout, new RegExp(`! ${dead.replace(/\./g, '\\.')}\\s+healthy → expired`));

      // The second tick (10 s after the first) finds it suspect; the look that pages it comes
      // 2.6 s later, not at the third tick.
      const before = looks.filter((at) => at < pagedAt);
      assert.ok(before.length >= 3, `looks: ${before.length}`);
      const gaps = before.slice(1).map((at, i) => at - (before[i] as number));
      const last = gaps.at(-1) as number;
      assert.ok(
        last < INTERVAL_SECONDS * 1000 - 3_000,
        `the paging look came ${last} ms after the one before`,
      );
      assert.ok(
        pagedAt - diedAt < 2 * INTERVAL_SECONDS * 1000 - 5_000,
        `paged ${pagedAt - diedAt} ms after the kubelet stopped`,
      );
      // Never closer than the renewal clock allows: a re-check at least a second after its check.
      for (const gap of gaps) assert.ok(gap >= 900, `looks ${gap} ms apart: ${gaps.join(', ')}`);
    } finally {
      clearInterval(poll);
      child.kill('SIGKILL');
      cluster.startKubelet(dead);
    }
  });
});
