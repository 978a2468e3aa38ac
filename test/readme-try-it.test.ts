/**
 * The README's "Try it on the simulated cluster", as a newcomer types it: `npm run sim` writes
 * `.sim/kubeconfig` and says so; then each `$` line of the README's block, run against a simulated
 * cluster as `npm run sim` makes it, prints what the README shows below it. Ages and column
 * widths move with the clock and are compared as `<age>`; a `...` line stands for any lines.
 * kubectl is the real one (skipped where it is not installed); `sleep N` moves the sim's clock, and
 * `npx lease-watchdog` is the command in process on that clock.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';

const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const missing = probe.error ? `kubectl not installed: ${probe.error.message}` : undefined;
if (missing) console.log(`# SKIPPED test/readme-try-it.test.ts: ${missing}`);

/** The README's block: each command and the lines it is said to print. */
async function readmeSteps(): Promise<{ command: string; prints: string[] }[]> {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const block = /<!-- try-it:begin -->\n```\n([\s\S]*?)\n```\n<!-- try-it:end -->/.exec(
    readme,
  )?.[1];
  assert.ok(block, 'README.md has the try-it block');
  const steps: { command: string; prints: string[] }[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), prints: [] });
    else steps.at(-1)?.prints.push(line);
  }
  return steps;
}

/** A line with its ages (`19d`, `7d9h`, `58s`) as `<age>` and its runs of spaces as one. */
const shape = (line: string) =>
  line
    .replace(/\b\d+[dhms](\d+[hms])*\b/g, '<age>')
    .replace(/ +/g, ' ')
    .trimEnd();

/** Whether `printed` is what `expected` says, a `...` line standing for any number of lines. */
function printsAsShown(printed: readonly string[], expected: readonly string[]): boolean {
  const [want, ...rest] = expected;
  if (want === undefined) return printed.length === 0;
  if (want === '...') {
    return printed.some((_, i) => printsAsShown(printed.slice(i), rest)) || rest.length === 0;
  }
  const [got, ...more] = printed;
  return got !== undefined && shape(got) === shape(want) && printsAsShown(more, rest);
}

it('npm run sim writes .sim/kubeconfig where it runs, and says so', async () => {
  const cwd = await mkdtemp(join(tmpdir(), 'readme-try-it-sim-'));
  const main = fileURLToPath(new URL('../sim/main.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), main], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const banner = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Press Ctrl-C')) resolve(out);
      });
      child.on('exit', (code) => reject(new Error(`sim exited with ${code}: ${out}`)));
    });
    const kubeconfig = join(cwd, '.sim', 'kubeconfig');
    assert.match(banner, /^Simulated cluster: 12 nodes over eu-west-1a, eu-west-1b, eu-west-1c /);
    assert.ok(banner.includes(`Kubeconfig: ${kubeconfig}\n`), banner);
    assert.ok(existsSync(kubeconfig), 'the kubeconfig is written');
  } finally {
    child.kill('SIGTERM');
    await rm(cwd, { recursive: true, force: true });
  }
});

describe("the README's try-it commands, in order", { skip: missing }, () => {
  let sim: SimFixture | undefined;
  let now = Date.parse('2026-11-30T12:00:00Z');

  before(async () => {
    // What `npm run sim` serves: 12 nodes over three zones, 40-s leases (sim/main.ts).
    const cluster = new SimCluster({ now: () => now, seed: 7, jitter: false });
    cluster.addNodes(12, {
      zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'],
      leaseDurationSeconds: 40,
    });
    sim = await startSimFixture(cluster, { prefix: 'readme-try-it' });
  });
  after(() => sim?.close());

  function kubectl(args: string[]): Promise<string[]> {
    const dir = sim?.dir ?? '';
    return new Promise((resolve, reject) => {
      execFile(
        'kubectl',
        ['--cache-dir', join(dir, 'cache'), ...args],
        { env: { ...process.env, HOME: dir, KUBECONFIG: '' }, timeout: 20_000 },
        (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout.split('\n')),
      );
    });
  }

  /** Runs one command line of the README; returns what it printed, stdout then stderr. */
  async function type(command: string): Promise<{ code: number; lines: string[] }> {
    let printed: { code: number; lines: string[] } = { code: 0, lines: [] };
    for (const part of command.split('; ')) {
      const [program, ...args] = part
        .split(' ')
        .map((word) => (word === '.sim/kubeconfig' ? (sim?.kubeconfig ?? '') : word));
      if (program === 'sleep') now += Number(args[0]) * 1000;
      else if (program === 'kubectl') printed = { code: 0, lines: await kubectl(args) };
      else if (program === 'npx' && args[0] === 'lease-watchdog') {
        const { code, stdoutLines, stderrLines } = await runInProcess(args.slice(1), {
          clock: { now: () => now },
        });
        printed = { code, lines: [...stdoutLines, ...stderrLines].join('\n').split('\n') };
      } else assert.fail(`the README's block types ${part}, which this test does not run`);
    }
    while (printed.lines.at(-1) === '') printed.lines.pop();
    return printed;
  }

  it('each prints what the README shows, and check exits 1 on the stopped kubelet', async () => {
    const steps = await readmeSteps();
    assert.ok(steps.length >= 3, 'the block has its commands');
    let last = { code: 0, lines: [] as string[] };
    for (const { command, prints } of steps) {
      last = await type(command);
      assert.ok(
        printsAsShown(last.lines, prints),
        `$ ${command}\nprinted:\n${last.lines.join('\n')}\nthe README shows:\n${prints.join('\n')}`,
      );
    }
    assert.equal(last.code, 1, 'check exits 1: a node is expired');
  });
});
