/**
 * The package as a user installs it, packed once per test run. `npm test` compiles (`npm run
 * build`) and bundles the handler (`npm run bundle`) into dist/ before any test starts; the test
 * runner's global setup (this module: testkit/run-tests.ts, and `--test-global-setup`) packs that
 * tree once, with `--ignore-scripts`, into a folder of its own; each test that needs the package
 * installs that one tarball into an empty folder (test/cli-package.test.ts,
 * test/infra-package.test.ts). No test compiles, bundles or packs into the work tree: while tests
 * run, dist/ is only read, so test files can run side by side.
 *
 * A global setup rather than a cache each file looks up: the runner calls it once, before every
 * test file, and its teardown once after them all, so the tarball needs no lock and no key, and
 * its folder does not outlive the run. A file run on its own (`node --test test/x.test.ts`, no
 * global setup) packs for itself, from the same dist/.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const ROOT = new URL('..', import.meta.url).pathname;

/** The run's tarball, from the global setup to the test files (the runner's environment). */
const TARBALL_ENV = 'LEASE_WATCHDOG_TEST_TARBALL';

/** The handler bundle the package ships, as `npm run bundle` writes it (`PREBUILT_HANDLER`). */
const SHIPPED_BUNDLE = 'dist/handler-bundle';

/** What the build steps before the tests write, which the tarball must hold. */
const BUILT = [
  'dist/cli-bundle/main.js',
  'dist/infra/lease-watchdog.js',
  `${SHIPPED_BUNDLE}/index.mjs`,
];

/** Fails, saying what to run, unless the build steps have written these files of dist/. */
function assertBuilt(files: readonly string[] = BUILT): void {
  const missing = files.filter((file) => !existsSync(join(ROOT, file)));
  assert.deepEqual(
    missing,
    [],
    `${missing.join(', ')} missing: run \`npm run build && npm run bundle\` first (npm test does)`,
  );
}

/**
 * The folder of the handler bundle the package ships, for a synth that deploys it instead of
 * bundling the handler again (`HANDLER_BUNDLE_CONTEXT`, infra/watchdog-function.ts).
 */
export function shippedBundle(): string {
  assertBuilt([`${SHIPPED_BUNDLE}/index.mjs`]);
  return join(ROOT, SHIPPED_BUNDLE);
}

/** Packs the work tree as it is (dist/ included, no script run) into `dir`; returns the tarball. */
async function pack(dir: string, timeout: number): Promise<string> {
  assertBuilt();
  await run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', dir], {
    cwd: ROOT,
    timeout,
  });
  const [tarball] = (await readdir(dir)).filter((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack made a tarball');
  return join(dir, tarball);
}

/** Whether this process packed the run's tarball, and so removes it at the end. */
let packedHere = false;

/**
 * The runner's global setup: packs once for every test file of the run. A shard of
 * `testkit/run-tests.ts` finds the tarball its parent packed for every shard, and keeps it.
 */
export async function globalSetup(): Promise<void> {
  const shared = process.env[TARBALL_ENV];
  if (shared !== undefined && existsSync(shared)) return;
  const dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-packed-'));
  process.env[TARBALL_ENV] = await pack(dir, 240_000);
  packedHere = true;
}

/** The runner's global teardown: removes the run's tarball, if this process packed it. */
export async function globalTeardown(): Promise<void> {
  const tarball = process.env[TARBALL_ENV];
  if (packedHere && tarball !== undefined)
    await rm(dirname(tarball), { recursive: true, force: true });
}

/** The run's tarball, else one packed into `dir/packed` for this file alone. */
async function tarballFor(dir: string, timeout: number): Promise<string> {
  const shared = process.env[TARBALL_ENV];
  if (shared !== undefined && existsSync(shared)) return shared;
  const packed = join(dir, 'packed');
  await mkdir(packed);
  return pack(packed, timeout);
}

export interface InstallOptions {
  /** The app's package.json is `"type": "module"` (a user's ESM CDK app). */
  readonly esm?: boolean;
  readonly timeout?: number;
}

/** Installs the packed package into an empty app, `dir/app`; returns `dir/app`. */
export async function packAndInstall(dir: string, options: InstallOptions = {}): Promise<string> {
  const { esm = false, timeout = 600_000 } = options;
  const tarball = await tarballFor(dir, timeout);
  const app = join(dir, 'app');
  await mkdir(app);
  await writeFile(
    join(app, 'package.json'),
    `{"name":"try-it","private":true${esm ? ',"type":"module"' : ''}}\n`,
  );
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], {
    cwd: app,
    timeout,
  });
  return app;
}

/**
 * Links packages the user already has (their own CDK app's `aws-cdk-lib`, `constructs`, …) from
 * this repository's node_modules into the app's (unless installed already), instead of
 * downloading them again.
 */
export async function linkInstalled(app: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const target = join(app, 'node_modules', name);
    if (existsSync(target)) continue;
    await mkdir(dirname(target), { recursive: true });
    await symlink(join(ROOT, 'node_modules', name), target, 'dir');
  }
}
