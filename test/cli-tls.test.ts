/**
 * TLS that does not depend on the environment, and passwords that never show, against the
 * simulated cluster over HTTPS. NODE_TLS_REJECT_UNAUTHORIZED=0 does not make a certificate from
 * the wrong CA pass; the CLI refuses to run with it unless --insecure-skip-tls-verify is given
 * (then warns), a kubeconfig asking to skip verification gets a warning, and a server URL with a
 * password in it is refused without quoting the password.
 *
 * NODE_TLS_REJECT_UNAUTHORIZED is process-wide (it would loosen every connection of this test
 * run), so what it does is seen in child processes with it set: the reader, and the compiled
 * bin refusing it or running with --insecure-skip-tls-verify. The rest runs in process.
 */

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { renderKubeconfig } from '../sim/kubeconfig.js';
import { generateSimPki } from '../sim/pki.js';
import type { SimServer } from '../sim/server.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';

const ROOT = new URL('..', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const BIN = join(ROOT, 'bin', 'lease-watchdog.js');
const TOKEN = 'cli-tls-secret-token-0123456789';
const PASSWORD = 'hunter2-secret-password';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function spawn(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
    if (!('NODE_TLS_REJECT_UNAUTHORIZED' in env)) delete childEnv.NODE_TLS_REJECT_UNAUTHORIZED;
    execFile(NODE, args, { cwd: ROOT, env: childEnv, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The compiled bin as a process. */
const bin = (args: string[], env?: Record<string, string>) => spawn([BIN, ...args], env);
/** The command in process, its environment empty. */
const cli = (args: string[]) => runInProcess(args);

/** Node's own warning about the variable, which is not ours to print or suppress. */
const ours = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l && !/^\(node:\d+\) Warning: Setting the NODE_TLS|--trace-warnings/.test(l));

describe('TLS and credentials in the CLI', () => {
  let sim: SimFixture;
  let dir: string;
  let server: SimServer;
  let wrongCa: string;

  before(async () => {
    const cluster = new SimCluster({ seed: 5 });
    cluster.addNodes(3);
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-tls', token: TOKEN });
    ({ dir, server } = sim);
    wrongCa = join(dir, 'wrong-ca');
    const other = await generateSimPki();
    await writeFile(
      wrongCa,
      renderKubeconfig({ server: server.url, caPem: other.caPem, token: TOKEN }),
    );
  });
  after(() => sim.close());

  it('the reader rejects a certificate from the wrong CA with NODE_TLS_REJECT_UNAUTHORIZED=0 set', async () => {
    const script = [
      "import { KubeClusterReader } from './lambda/adapters/kube/kube-reader.ts';",
      "import { loadKubeConfig } from './lambda/adapters/kube/config/kubeconfig-files.ts';",
      `const kubeConfig = loadKubeConfig({ path: ${JSON.stringify(wrongCa)}, env: {} });`,
      "const reader = new KubeClusterReader({ kubeConfig, cluster: 'c', namespace: 'kube-node-lease' });",
      'try { await reader.read(); console.log("READ OK"); }',
      'catch (e) { console.log(e.failure, e.message); }',
    ].join('\n');
    const result = await spawn(['--import', 'tsx', '--input-type=module', '-e', script], {
      NODE_TLS_REJECT_UNAUTHORIZED: '0',
    });
    assert.doesNotMatch(result.stdout, /READ OK/, 'the wrong certificate must not pass');
    assert.match(result.stdout, /^tls TLS verification of 127\.0\.0\.1:\d+ failed/);
  });

  it('the CLI refuses to run with NODE_TLS_REJECT_UNAUTHORIZED=0', async () => {
    const result = await bin(['check', '--kubeconfig', wrongCa], {
      NODE_TLS_REJECT_UNAUTHORIZED: '0',
    });
    assert.equal(result.code, 2, result.stderr);
    assert.deepEqual(ours(result.stderr), [
      'lease-watchdog: NODE_TLS_REJECT_UNAUTHORIZED=0 is set, which turns off TLS certificate checks: unset it, or pass --insecure-skip-tls-verify to run without verifying the API server',
    ]);
    assert.equal(result.stdout, '');
  });

  it('without the variable, the wrong CA is one TLS line (exit 2)', async () => {
    const result = await cli(['check', '--kubeconfig', wrongCa]);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(ours(result.stderr).length, 1, result.stderr);
    assert.match(result.stderr, /^lease-watchdog: TLS verification of 127\.0\.0\.1:\d+ failed/);
  });

  it('--insecure-skip-tls-verify runs with the variable set, and warns', async () => {
    const result = await bin(['check', '--kubeconfig', wrongCa, '--insecure-skip-tls-verify'], {
      NODE_TLS_REJECT_UNAUTHORIZED: '0',
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      ours(result.stderr)[0] ?? '',
      /^lease-watchdog: warning: --insecure-skip-tls-verify: the API server's certificate is not verified/,
    );
  });

  it('a kubeconfig cluster with insecure-skip-tls-verify: true gets a warning', async () => {
    const insecure = join(dir, 'insecure');
    const yaml = server
      .kubeconfig()
      .replace(/certificate-authority-data: .*/, 'insecure-skip-tls-verify: true');
    await writeFile(insecure, yaml);
    const result = await cli(['check', '--kubeconfig', insecure]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      ours(result.stderr)[0] ?? '',
      /^lease-watchdog: warning: the kubeconfig's cluster ".+" sets insecure-skip-tls-verify/,
    );
  });

  it('a server URL with a password is refused, and the password shows nowhere', async () => {
    const withPassword = join(dir, 'with-password');
    await writeFile(
      withPassword,
      server.kubeconfig().replace('https://', `https://admin:${PASSWORD}@`),
    );
    const result = await cli(['check', '--kubeconfig', withPassword]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(
      result.stderr,
      /^lease-watchdog: context "lease-watchdog-sim": the server URL of cluster "lease-watchdog-sim" has a user name or password in it/,
    );
    assert.doesNotMatch(result.stderr + result.stdout, new RegExp(PASSWORD));
    assert.doesNotMatch(result.stderr + result.stdout, /admin/);
  });

  it('a server that is not a URL is named in one line; a password in it still shows nowhere', async () => {
    const bad = join(dir, 'bad-server');
    await writeFile(
      bad,
      server.kubeconfig().replace(/server: .*/, 'server: https://bad host:6443'),
    );
    const result = await cli(['check', '--kubeconfig', bad]);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(
      result.stderr,
      'lease-watchdog: context "lease-watchdog-sim": the server of cluster "lease-watchdog-sim" is not an https:// URL ("https://bad host:6443"): fix its server in the kubeconfig, e.g. https://host:6443\n',
    );
    const badWithPassword = join(dir, 'bad-server-password');
    await writeFile(
      badWithPassword,
      server.kubeconfig().replace(/server: .*/, `server: https://ad min:${PASSWORD}@bad host:6443`),
    );
    const secret = await cli(['check', '--kubeconfig', badWithPassword]);
    assert.equal(secret.code, 2, secret.stderr);
    assert.doesNotMatch(secret.stderr + secret.stdout, new RegExp(PASSWORD));
  });
});
