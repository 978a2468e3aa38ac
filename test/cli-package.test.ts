/**
 * The CLI as a user installs it: `npm pack` (once per test run: testkit/packed-package.ts), then
 * `npm install ./lease-watchdog-*.tgz` into an empty folder, then `npx lease-watchdog` there —
 * compiled JavaScript, no devDependency, on the Node the project brings — against the simulated
 * cluster. And again on the oldest Node that
 * `engines` names (22.19), when npm can install that binary from its cache (no network needed);
 * otherwise those tests are skipped with a message that says how to get it.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { type SimServer, startSimServer } from '../sim/server.js';
import { packAndInstall, ROOT, run } from '../testkit/packed-package.js';

const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/**
 * The oldest Node `engines` allows: undici needs 22.19.0. The reader speaks node:https itself
 * (lambda/adapters/kube/http/http-exchange.ts), but `@kubernetes/client-node`, whose `KubeConfig` the
 * CLI loads for authentication, still imports undici at load.
 */
const OLDEST_NODE = '22.19.0';

/**
 * A folder holding the oldest Node's binary (npm's `node-<platform>-<arch>` package, installed
 * from npm's cache), or why there is none.
 */
async function oldestNode(): Promise<{ bin: string } | { missing: string }> {
  const dir = join(tmpdir(), `lease-watchdog-node-${OLDEST_NODE}`);
  const bin = join(dir, 'node_modules', '.bin');
  const pkg = `node-${process.platform}-${process.arch}@${OLDEST_NODE}`;
  try {
    if (!existsSync(join(bin, 'node'))) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'package.json'), '{"name":"oldest-node","private":true}\n');
      await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-save', pkg], {
        cwd: dir,
        timeout: 240_000,
      });
    }
    const { stdout } = await run(join(bin, 'node'), ['--version']);
    if (stdout.trim() !== `v${OLDEST_NODE}`) return { missing: `${pkg} answers ${stdout.trim()}` };
    return { bin };
  } catch (error) {
    const why = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    return {
      missing: `Node ${OLDEST_NODE} is not in npm's cache (${why}); \`npm cache add ${pkg}\` (online) adds it`,
    };
  }
}

describe('the packed CLI, installed into an empty folder', () => {
  let dir: string;
  let server: SimServer;
  let bin: string;
  let kubeconfig: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-package-'));
    const app = await packAndInstall(dir, { timeout: 240_000 });
    bin = join(app, 'node_modules', '.bin', 'lease-watchdog');
    const cluster = new SimCluster({ seed: 5 });
    cluster.addNodes(3, { zones: ['eu-west-1a'] });
    server = await startSimServer({ cluster });
    kubeconfig = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kubeconfig);
  });
  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('holds the bundled command, compiled JavaScript and no devDependency', () => {
    const installed = join(dir, 'app', 'node_modules');
    assert.ok(existsSync(join(installed, 'lease-watchdog', 'dist', 'cli-bundle', 'main.js')));
    assert.ok(!existsSync(join(installed, 'lease-watchdog', 'dist', 'cli')), 'not also unbundled');
    assert.ok(!existsSync(join(installed, 'lease-watchdog', 'lambda')), 'no TypeScript sources');
    for (const dev of ['tsx', 'typescript', 'aws-cdk-lib', '@biomejs/biome']) {
      assert.ok(!existsSync(join(installed, dev)), `${dev} is not installed`);
    }
  });

  it('answers --version', async () => {
    const { stdout } = await run(bin, ['--version'], { cwd: join(dir, 'app') });
    assert.equal(stdout.trim(), VERSION);
  });

  it('checks a cluster: three healthy nodes, exit 0', async () => {
    const { stdout } = await run(bin, ['check', '--kubeconfig', kubeconfig, '-o', 'json'], {
      cwd: join(dir, 'app'),
    });
    const report = JSON.parse(stdout) as { summary: { healthy: number } };
    assert.equal(report.summary.healthy, 3);
  });

  it('config init writes the example with $schema at the installed schema; validate reads it', async () => {
    const app = join(dir, 'app');
    await run(bin, ['config', 'init', 'watchdog.json'], { cwd: app });
    const written = JSON.parse(readFileSync(join(app, 'watchdog.json'), 'utf8')) as {
      $schema: string;
    };
    assert.equal(written.$schema, './node_modules/lease-watchdog/infra/config.schema.json');
    assert.ok(existsSync(join(app, written.$schema)), 'the package ships the schema');
    const validate = await run(bin, ['config', 'validate', 'watchdog.json'], { cwd: app }).then(
      () => 'exit 0',
      (error: Error) => error.message,
    );
    assert.match(validate, /valid, but cannot be deployed: .*placeholder/);
  });

  describe(`on the oldest Node that engines names (${OLDEST_NODE})`, async () => {
    const oldest = await oldestNode();
    const skip = 'missing' in oldest ? oldest.missing : false;
    if (skip) console.log(`# skipped: ${skip}`);
    // The bin's `#!/usr/bin/env node` finds the oldest Node first on the PATH.
    const env = () => ({
      ...process.env,
      PATH: `${'bin' in oldest ? oldest.bin : ''}:${process.env.PATH ?? ''}`,
    });

    it('engines names it', () => {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        engines: { node: string };
      };
      assert.equal(pkg.engines.node, `>=${OLDEST_NODE.replace(/\.0$/, '')}`);
    });

    it('answers --version', { skip }, async () => {
      const { stdout } = await run(bin, ['--version'], { cwd: join(dir, 'app'), env: env() });
      assert.equal(stdout.trim(), VERSION);
      const node = await run('node', ['--version'], { env: env() });
      assert.equal(node.stdout.trim(), `v${OLDEST_NODE}`, 'the bin runs on that Node');
    });

    it('checks a cluster: three healthy nodes, exit 0', { skip }, async () => {
      const { stdout } = await run(bin, ['check', '--kubeconfig', kubeconfig, '-o', 'json'], {
        cwd: join(dir, 'app'),
        env: env(),
      });
      const report = JSON.parse(stdout) as { summary: { healthy: number } };
      assert.equal(report.summary.healthy, 3);
    });
  });
});
