/**
 * `npm run test:unit`: the test files in shards that run side by side, each shard one process.
 *
 * Why this shape (measured on the 2-core machine CI runs on, docs in the README's "Develop"):
 * - One process per test file (node's default isolation) spent most of the suite's CPU loading the
 *   same modules again in each of ~100 files — the AWS SDK, @kubernetes/client-node, aws-cdk-lib,
 *   tsx's hooks: 658 s of CPU in all. In one process (`--test-isolation=none`) each module loads
 *   once: 251 s of CPU for the same 1,245 tests.
 * - One process runs its files one after the other on one core; so the files are split into as
 *   many shards as the machine has cores (`--test-shard`), each shard a process of its own.
 * - Every test file must therefore pass whatever ran before it in its process: no test leaves a
 *   global changed (Date.now, process.env, a listener) or a handle open. A file's hooks live
 *   inside its `describe`s, so they apply to its own tests only.
 *
 *   node --import tsx testkit/run-tests.ts [test files or globs]   (default test/**\/*.test.ts)
 *
 * The built package is packed once, here, and every shard installs that tarball.
 * `LEASE_WATCHDOG_TEST_SHARDS` sets the number of shards (default: the machine's cores, at most 4).
 * Each shard's report is printed whole when the shard ends; the exit status is the worst shard's.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { globalSetup, globalTeardown } from './packed-package.js';

const DEFAULT_FILES = ['test/**/*.test.ts'];

function shardCount(): number {
  const asked = process.env.LEASE_WATCHDOG_TEST_SHARDS;
  if (asked === undefined) return Math.min(4, Math.max(1, availableParallelism()));
  const count = Number(asked);
  if (!Number.isInteger(count) || count < 1) {
    throw new Error(`LEASE_WATCHDOG_TEST_SHARDS must be a whole number ≥ 1 (got "${asked}")`);
  }
  return count;
}

/** The runner's own flags, shared by every shard. */
function nodeArgs(shard: number, shards: number, files: readonly string[]): string[] {
  return [
    '--import',
    'tsx',
    '--test',
    '--test-isolation=none',
    `--test-shard=${shard}/${shards}`,
    '--test-timeout=180000',
    // Finds the package this process packed for every shard (testkit/packed-package.ts).
    '--test-global-setup=testkit/packed-package.ts',
    // A handle a test left open must not keep a finished shard alive for ever.
    '--test-force-exit',
    '--test-reporter=spec',
    ...files,
  ];
}

interface ShardResult {
  readonly shard: number;
  readonly code: number;
  readonly output: string;
  readonly seconds: number;
}

function runShard(shard: number, shards: number, files: readonly string[]): Promise<ShardResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, nodeArgs(shard, shards, files), {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('close', (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      const output = Buffer.concat(chunks).toString('utf8');
      resolve({ shard, code: code ?? (signal ? 1 : 0), output, seconds });
    });
  });
}

const files = process.argv.length > 2 ? process.argv.slice(2) : DEFAULT_FILES;
const shards = shardCount();
process.stdout.write(`running ${files.join(' ')} in ${shards} shard(s), one process each\n`);
await globalSetup();
const results = await Promise.all(
  Array.from({ length: shards }, (_, i) =>
    runShard(i + 1, shards, files).then((result) => {
      process.stdout.write(`\n── shard ${result.shard}/${shards} ──\n${result.output}`);
      process.stdout.write(
        `── shard ${result.shard}/${shards}: exit ${result.code} after ${result.seconds.toFixed(0)} s ──\n`,
      );
      return result;
    }),
  ),
);
await globalTeardown();
process.exitCode = Math.max(...results.map((r) => r.code));
