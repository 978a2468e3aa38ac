/**
 * The `lease-watchdog` process when the reader of its output goes away early (`check | head -6`):
 * the exit status still means what the README says. A process test: a closed pipe (EPIPE on the
 * process's own stdout and stderr) and the exit status exist only for the compiled bin.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { BIN, NODE, ROOT } from '../testkit/cli-process.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';

/** Runs the bin, closes its stdout and stderr after the first bytes; resolves to its exit code. */
function runThenHangUp(args: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.once('data', () => {
      child.stdout.destroy();
      child.stderr.destroy();
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
}

describe('lease-watchdog CLI: output closed early (EPIPE)', () => {
  let sim: SimFixture;
  let kubeconfig: string;
  before(async () => {
    const cluster = new SimCluster({ seed: 5 });
    // A table far larger than a pipe's buffer: the writes after the reader left fail with EPIPE.
    cluster.addNodes(2_000, { zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] });
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-pipes' });
    kubeconfig = sim.kubeconfig;
  });
  after(() => sim.close());

  it('check on a healthy cluster exits 0 however early its reader leaves', async () => {
    const codes: (number | null)[] = [];
    for (let i = 0; i < 4; i++)
      codes.push(await runThenHangUp(['check', '--kubeconfig', kubeconfig]));
    assert.deepEqual(codes, [0, 0, 0, 0]);
  });
});
