/**
 * `npm run test:unit`: the test files in shards that run side by side, each shard one process.
 *
 * Why this shape (measured on the 2-core machine CI runs on, docs in docs/DEVELOP.md):
 * - One process per test file (node's default isolation) spent most of the suite's CPU loading the
 *   same modules again in each of ~100 files — the AWS SDK, @kubernetes/client-node, aws-cdk-lib,
 *   tsx's hooks: 658 s of CPU in all. In one process (`--test-isolation=none`) each module loads
 *   once: 251 s of CPU for the same 1,245 tests.
 * - One process runs its files one after the other on one core; so the files are split into as
 *   many shards as the machine has cores, each shard a process of its own. The split balances the
 *   shards by how long each file took (testkit/test-times.json, longest file first to the shard
 *   with the least so far): node's `--test-shard` deals files by name and left one of two shards
 *   ~25 s behind the other. A file not in test-times.json weighs as the median file.
 *   `npm run test:times` runs the suite and rewrites test-times.json from what it measured.
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
import { glob as matching, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CollectedRun, runCollected } from './collected-run.js';
import { globalSetup, globalTeardown } from './packed-package.js';

const DEFAULT_FILES = ['test/**/*.test.ts'];
const TIMES_FILE = 'testkit/test-times.json';
/** Set by `npm run test:times`: measure each file and rewrite TIMES_FILE. */
const RECORD_TIMES = process.env.LEASE_WATCHDOG_RECORD_TEST_TIMES === '1';

function shardCount(): number {
  const asked = process.env.LEASE_WATCHDOG_TEST_SHARDS;
  if (asked === undefined) return Math.min(4, Math.max(1, availableParallelism()));
  const count = Number(asked);
  if (!Number.isInteger(count) || count < 1) {
    throw new Error(`LEASE_WATCHDOG_TEST_SHARDS must be a whole number ≥ 1 (got "${asked}")`);
  }
  return count;
}

/** The test files the patterns name, each once, sorted. */
async function expand(patterns: readonly string[]): Promise<string[]> {
  const files = new Set<string>();
  for (const pattern of patterns) for await (const file of matching(pattern)) files.add(file);
  return [...files].sort();
}

async function recordedTimes(): Promise<Map<string, number>> {
  try {
    const recorded = JSON.parse(await readFile(TIMES_FILE, 'utf8')) as Record<string, number>;
    return new Map(Object.entries(recorded));
  } catch {
    return new Map();
  }
}

/**
 * Files that synthesize the stack in-process share one shard: the first synth in a process loads
 * aws-cdk-lib's modules and compiles the stack's code (~10 s of CPU), which a second shard holding
 * one infra file would pay again.
 */
const SAME_SHARD = /^test\/infra-/;

/** Longest first (a file, or the infra files together), each to the shard with the least so far (LPT). */
function balance(
  files: readonly string[],
  times: ReadonlyMap<string, number>,
  shards: number,
): string[][] {
  const known = files.map((f) => times.get(f)).filter((t) => t !== undefined);
  const median = known.sort((a, b) => a - b)[Math.floor(known.length / 2)] ?? 1;
  const weight = (file: string) => times.get(file) ?? median;
  const together = files.filter((file) => SAME_SHARD.test(file));
  const units = [
    ...files.filter((file) => !SAME_SHARD.test(file)).map((file) => [file]),
    ...(together.length > 0 ? [together] : []),
  ];
  const weigh = (unit: readonly string[]) => unit.reduce((sum, file) => sum + weight(file), 0);
  const lists: string[][] = Array.from({ length: shards }, () => []);
  const totals = new Array<number>(shards).fill(0);
  const order = units.sort((a, b) => weigh(b) - weigh(a) || (a[0] ?? '').localeCompare(b[0] ?? ''));
  for (const unit of order) {
    const least = totals.indexOf(Math.min(...totals));
    lists[least]?.push(...unit);
    totals[least] = (totals[least] ?? 0) + weigh(unit);
  }
  return lists.map((list) => list.sort());
}

/** The runner's own flags, shared by every shard. */
function nodeArgs(files: readonly string[], timesFile: string | undefined): string[] {
  const measure = timesFile
    ? [
        '--test-reporter=./testkit/file-times-reporter.ts',
        `--test-reporter-destination=${timesFile}`,
      ]
    : [];
  return [
    '--import',
    'tsx',
    '--test',
    '--test-isolation=none',
    '--test-timeout=180000',
    // Finds the package this process packed for every shard (testkit/packed-package.ts).
    '--test-global-setup=testkit/packed-package.ts',
    // A handle a test left open must not keep a finished shard alive for ever.
    '--test-force-exit',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    ...measure,
    ...files,
  ];
}

/** Merges what each shard measured into TIMES_FILE (files not run this time keep their time). */
async function writeTimes(dir: string, shards: number): Promise<void> {
  const times = Object.fromEntries(await recordedTimes());
  for (let shard = 1; shard <= shards; shard++) {
    Object.assign(times, JSON.parse(await readFile(join(dir, `shard-${shard}.json`), 'utf8')));
  }
  const sorted = Object.keys(times)
    .sort()
    .map((file) => [file, times[file]]);
  await writeFile(TIMES_FILE, `${JSON.stringify(Object.fromEntries(sorted), null, 2)}\n`);
  await rm(dir, { recursive: true, force: true });
  process.stdout.write(`wrote ${TIMES_FILE}\n`);
}

interface ShardResult extends CollectedRun {
  readonly shard: number;
}

async function runShard(
  shard: number,
  files: readonly string[],
  timesFile?: string,
): Promise<ShardResult> {
  return { shard, ...(await runCollected(process.execPath, nodeArgs(files, timesFile))) };
}

const files = await expand(process.argv.length > 2 ? process.argv.slice(2) : DEFAULT_FILES);
const shards = Math.min(shardCount(), Math.max(1, files.length));
const lists = balance(files, await recordedTimes(), shards);
const timesDir = RECORD_TIMES
  ? await mkdtemp(join(tmpdir(), 'lease-watchdog-test-times-'))
  : undefined;
const timesOf = (shard: number) => (timesDir ? join(timesDir, `shard-${shard}.json`) : undefined);
process.stdout.write(
  `running ${files.length} test files in ${shards} shard(s), one process each\n`,
);
await globalSetup();
const results = await Promise.all(
  lists.map((list, i) =>
    runShard(i + 1, list, timesOf(i + 1)).then((result) => {
      process.stdout.write(`\n── shard ${result.shard}/${shards} ──\n${result.output}`);
      process.stdout.write(
        `── shard ${result.shard}/${shards}: exit ${result.code} after ${result.seconds.toFixed(0)} s ──\n`,
      );
      return result;
    }),
  ),
);
await globalTeardown();
if (timesDir) await writeTimes(timesDir, shards);
process.exitCode = Math.max(...results.map((r) => r.code));
