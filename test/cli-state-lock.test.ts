/**
 * Two `lease-watchdog watch` on one --state-file: the second is refused with one line (exit 2)
 * while the first runs; a lock left by a process that is gone is taken over. The lock holds a
 * process id, so the first watcher is a true process (the compiled bin): its lock names another
 * pid than this one, and Ctrl-C (SIGINT) ends it with exit 0 and its lock removed. The second
 * watcher and the takeover run in process.
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { BIN, NODE, ROOT } from '../testkit/cli-process.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';

/** In process, on the real clock the process beside it runs on; stopped after a minute at most. */
const cli = (args: string[]) => runInProcess(args, { signal: AbortSignal.timeout(60_000) });

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The pid of a process that has exited. */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ['-e', ''], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(child.pid as number));
  });
}

describe('lease-watchdog watch: one process per state file', () => {
  let sim: SimFixture;
  let dir: string;
  let kubeconfig: string;
  before(async () => {
    const cluster = new SimCluster({ seed: 9 });
    cluster.addNodes(3, { zones: ['eu-west-1a'] });
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-lock' });
    ({ dir, kubeconfig } = sim);
  });
  after(() => sim.close());

  it('refuses a second watcher with one line and exit 2; the first process removes its lock', async () => {
    const stateFile = join(dir, 'state.json');
    const lock = `${stateFile}.lock`;
    const first = spawn(
      NODE,
      [BIN, 'watch', '--kubeconfig', kubeconfig, '--state-file', stateFile, '--interval', '1'],
      { cwd: ROOT, stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) => first.once('exit', resolve));
    try {
      await until(() => existsSync(lock), 'the first process to take the lock');
      const second = await cli(['watch', '--kubeconfig', kubeconfig, '--state-file', stateFile]);
      assert.equal(second.code, 2, second.stderr);
      const lines = second.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, second.stderr);
      assert.match(
        lines[0] ?? '',
        new RegExp(`^lease-watchdog: another lease-watchdog \\(pid ${first.pid}\\) is watching`),
      );
    } finally {
      first.kill('SIGINT');
    }
    assert.equal(await exited, 0);
    assert.equal(existsSync(lock), false, 'the lock is gone with its process');
  });

  it('takes over a lock left by a process that is gone', async () => {
    const stateFile = join(dir, 'stale.json');
    const lock = `${stateFile}.lock`;
    await writeFile(lock, `${await deadPid()}\n`);
    const result = await cli([
      'watch',
      '--kubeconfig',
      kubeconfig,
      '--state-file',
      stateFile,
      '--checks',
      '1',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(existsSync(lock), false);
    assert.ok(existsSync(stateFile));
  });

  it('a state file in a folder that does not exist yet: the folder is made, the lock taken', async () => {
    const stateFile = join(dir, 'new', 'deeper', 'state.json');
    const result = await cli([
      'watch',
      '--kubeconfig',
      kubeconfig,
      '--state-file',
      stateFile,
      '--checks',
      '1',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(existsSync(stateFile));
    assert.equal(existsSync(`${stateFile}.lock`), false);
  });
});
