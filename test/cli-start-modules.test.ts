/**
 * The command loads only what it needs (issue 20, §1: `check` took 3.5 s against kubectl's 0.3 s,
 * most of it loading client-node's KubeConfig with its generated models, and the AWS SDK that
 * only `watch --sns-topic-arn` and `silence --table` use). Start time is the process's, so each
 * command runs as a process, and a resolve hook (node:module registerHooks, given by --import)
 * writes down every module it loads: the test asserts on which, never on how long.
 */

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { BIN, NODE, ROOT } from '../testkit/cli-process.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';

/**
 * Appends the URL of every module resolved to the file $LW_LOADED names, and at exit Node's own
 * modules loaded (process.moduleLoadList: its internal undici is one).
 */
const HOOK = `data:text/javascript,${encodeURIComponent(`
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    appendFileSync(process.env.LW_LOADED, resolved.url + '\\n');
    return resolved;
  },
});
process.on('exit', () => appendFileSync(process.env.LW_LOADED, process.moduleLoadList.join('\\n')));`)}`;

/** What a command that does not use them must not load (each costs from 0.3 to 3 s). */
const HEAVY: readonly [string, RegExp][] = [
  ["client-node's KubeConfig", /@kubernetes\/client-node\/dist\/config\.js$/],
  ["client-node's generated models", /@kubernetes\/client-node\/dist\/gen\//],
  ['the AWS SDK', /\/node_modules\/@aws-sdk\//],
  ['undici', /\/node_modules\/undici\//],
  // An ESM import of node:http reads its WebSocket getters, which load it (~130 ms of CPU).
  ["Node's internal undici", /^NativeModule internal\/deps\/undici/],
];

/** The heavy modules the command `args` loads (and its exit code, to show it ran). */
async function heavyLoadedBy(
  dir: string,
  args: string[],
): Promise<{ code: number; heavy: string[] }> {
  const { code, loaded } = await loadedBy(dir, args);
  const heavy = HEAVY.filter(([, re]) => loaded.some((url) => re.test(url))).map(([name]) => name);
  return { code, heavy };
}

/** Every module the command `args` loads: URLs, and Node's own (`NativeModule …`). */
async function loadedBy(dir: string, args: string[]): Promise<{ code: number; loaded: string[] }> {
  const log = join(dir, `loaded-${args.join('-').replace(/[^\w-]/g, '_')}`);
  await writeFile(log, '');
  const code = await new Promise<number>((resolve) => {
    execFile(
      NODE,
      ['--import', HOOK, BIN, ...args],
      { cwd: ROOT, env: { ...process.env, LW_LOADED: log }, timeout: 60_000 },
      (error) => resolve(error ? (typeof error.code === 'number' ? error.code : -1) : 0),
    );
  });
  return { code, loaded: (await readFile(log, 'utf8')).split('\n') };
}

describe('the command loads only what it needs', () => {
  let sim: SimFixture;
  let unreachable: string;

  before(async () => {
    const cluster = new SimCluster({ seed: 5 });
    cluster.addNodes(3);
    sim = await startSimFixture(cluster, {
      prefix: 'cli-start-modules',
    });
    // The same kubeconfig, its server a port nothing listens on.
    unreachable = join(sim.dir, 'unreachable');
    const text = await readFile(sim.kubeconfig, 'utf8');
    await writeFile(unreachable, text.replace(/https:\/\/127\.0\.0\.1:\d+/, 'https://127.0.0.1:1'));
  });
  after(() => sim.close());

  it('--version loads none of them', async () => {
    assert.deepEqual(await heavyLoadedBy(sim.dir, ['--version']), { code: 0, heavy: [] });
  });

  it('--version loads the bin and the version alone, none of the command', async () => {
    const { code, loaded } = await loadedBy(sim.dir, ['--version']);
    const ours = loaded.filter(
      (url) => url.startsWith(`file://${ROOT}`) && !url.includes('/node_modules/'),
    );
    assert.deepEqual(
      { code, ours: [...new Set(ours.map((url) => url.slice(`file://${ROOT}`.length)))] },
      { code: 0, ours: ['bin/lease-watchdog.js', 'bin/node-version.js', 'dist/cli/version.js'] },
    );
  });

  it('check with a token kubeconfig loads none of them', async () => {
    const args = ['check', '--kubeconfig', sim.kubeconfig];
    assert.deepEqual(await heavyLoadedBy(sim.dir, args), { code: 0, heavy: [] });
  });

  it('check of an unreachable server loads none of them', async () => {
    const args = ['check', '--kubeconfig', unreachable, '--timeout', '5s'];
    assert.deepEqual(await heavyLoadedBy(sim.dir, args), { code: 2, heavy: [] });
  });

  it('silence list of a state file loads none of them', async () => {
    const state = join(sim.dir, 'state.json');
    // silence refuses a state file no watch created: one check creates it.
    const watch = ['watch', '--checks', '1', '--state-file', state, '--kubeconfig', sim.kubeconfig];
    assert.equal((await runInProcess(watch)).code, 0);
    const args = ['silence', 'list', '--state-file', state, '--kubeconfig', sim.kubeconfig];
    assert.deepEqual(await heavyLoadedBy(sim.dir, args), { code: 0, heavy: [] });
  });
});
