/**
 * The package as a user installs it: `npm pack` (which runs `prepack` and `prepare`: the handler
 * bundle and the compiled JavaScript), then `npm install ./lease-watchdog-*.tgz` into an empty
 * folder, as test/cli-package.test.ts does.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const ROOT = new URL('..', import.meta.url).pathname;

/** Packs the repository into `dir/packed` and installs the tarball into `dir/app`; returns `dir/app`. */
export async function packAndInstall(dir: string, timeout = 600_000): Promise<string> {
  const packed = join(dir, 'packed');
  await mkdir(packed);
  await run('npm', ['pack', '--silent', '--pack-destination', packed], { cwd: ROOT, timeout });
  const [tarball] = (await readdir(packed)).filter((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack made a tarball');
  const app = join(dir, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), '{"name":"try-it","private":true,"type":"module"}\n');
  await run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', join(packed, tarball)],
    { cwd: app, timeout },
  );
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
