/**
 * A removal that never completes, end to end through the real handler (see
 * testkit/watchdog-harness.ts): a node is cordoned and its kubelet stopped with kubectl
 * against the simulated cluster, as an operator or a broken drain would leave it. Suppressed at
 * first; once it has been cordoned and silent for `stuckRemovalSeconds` on the watchdog's clock,
 * one FIRING names the stuck removal. Deleting the Node resolves it.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULTS } from '../lambda/settings/index.js';
import { type TempKubeconfig, tempKubeconfig } from '../testkit/sim-fixture.js';
import {
  type Harness,
  kindOf,
  type SimTarget,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const missing = probe.error ? `kubectl not installed: ${probe.error.message}` : undefined;
if (missing) console.log(`# SKIPPED test/lambda-e2e-stuck-removal.test.ts: ${missing}`);

const LIMIT_MS = DEFAULTS.stuckRemovalSeconds * 1000;

describe('lambda e2e: a cordoned node that stays silent', { skip: missing }, () => {
  let h: Harness;
  let target: SimTarget;
  let files: TempKubeconfig | undefined;
  let dir: string;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } } });
    target = h.target('prod');
    files = await tempKubeconfig(target.server, 'lambda-e2e-stuck');
    dir = files.dir;
  });
  after(async () => {
    await h?.close();
    await files?.remove();
  });

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

  /** Whether the latest check logged `node` as suppressed. */
  function suppressedSince(mark: number, node: string): boolean {
    return h.logger.entries
      .slice(mark)
      .some(
        (e) =>
          e.message === 'node verdict' &&
          e.fields.node === node &&
          e.fields.verdict === 'suppressed',
      );
  }

  it('pages once, naming the stuck removal, after stuckRemovalSeconds; nothing before', async () => {
    const victim = target.nodes[0] as string;
    await h.run();
    await h.tick();

    await kubectl('cordon', victim);
    await kubectl(
      'annotate',
      '--overwrite',
      'node',
      victim,
      'sim.lease-watchdog.io/kubelet=stopped',
    );

    // The first check that sees it cordoned and silent starts the clock.
    let heldAt: number | undefined;
    for (let i = 0; i < 5 && heldAt === undefined; i++) {
      const mark = h.logger.entries.length;
      await h.tick();
      if (suppressedSince(mark, victim)) heldAt = h.clock.now();
    }
    assert.ok(heldAt !== undefined, 'the cordoned silent node is judged suppressed');

    // Just before the limit: nothing sent.
    while (h.clock.now() + 60_000 < heldAt + LIMIT_MS) await h.tick();
    h.clock.advanceTo(heldAt + LIMIT_MS - 1000);
    await h.run();
    assert.equal(h.sns.messages.length, 0, `nothing before the limit: ${summary(h.messages())}`);

    // At the limit: one FIRING naming the node and the stuck removal.
    h.clock.advanceTo(heldAt + LIMIT_MS);
    await h.run();
    assert.deepEqual(h.sns.messages.map(kindOf), ['FIRING'], summary(h.messages()));
    const [firing] = h.sns.messages;
    assert.match(firing?.subject ?? '', /^\[prod\] FIRING: 1 node down/);
    assert.ok(firing?.message.includes(victim), 'the FIRING names the node');
    assert.match(firing?.message ?? '', /removal seems stuck: cordoned and silent for 30m/);

    // It stays so: no second FIRING.
    await h.tick();
    await h.tick();
    assert.equal(h.sns.messages.length, 1, summary(h.messages()));

    // The Node is deleted at last: RESOLVED.
    await kubectl('delete', 'node', victim);
    await h.tick();
    assert.deepEqual(h.sns.messages.map(kindOf), ['FIRING', 'RESOLVED'], summary(h.messages()));
  });
});
