/**
 * Our KubeConfig (lambda/adapters/kube/config/kube-config.ts) reads a kubeconfig and applies it to a
 * request as client-node's KubeConfig does, on every kind of entry users write: a token, a
 * token-file, client certificates by file (relative to the kubeconfig's folder) or data, a CA
 * file, user name and password, impersonation, insecure-skip-tls-verify, tls-server-name, a
 * plain-http server (refused without insecure-skip-tls-verify) and an entry missing its server.
 * Each case is loaded by both, from the same file, and what they make of it compared.
 */

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';
import { KubeConfig } from '../lambda/adapters/kube/config/kube-config.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIBdummy\n-----END CERTIFICATE-----\n';
const b64 = (text: string) => Buffer.from(text).toString('base64');

/** A kubeconfig of one context whose cluster and user carry `cluster` and `user` lines. */
function kubeconfig(cluster: string[], user: string[]): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: c',
    '  cluster:',
    ...cluster.map((line) => `    ${line}`),
    'users:',
    '- name: u',
    '  user:',
    ...(user.length ? user.map((line) => `    ${line}`) : ['    {}']),
    'contexts:',
    '- name: x',
    '  context: { cluster: c, user: u }',
    'current-context: x',
  ].join('\n');
}

const SERVER = 'server: https://10.0.0.1:6443';
const CASES: Record<string, string> = {
  token: kubeconfig([SERVER, `certificate-authority-data: ${b64(PEM)}`], ['token: abc123def456']),
  'token-file': kubeconfig([SERVER], ['tokenFile: token.txt', 'token-file: token.txt']),
  'client certificate files, relative': kubeconfig(
    [SERVER, 'certificate-authority: ca.pem'],
    ['client-certificate: cert.pem', 'client-key: key.pem'],
  ),
  'client certificate data': kubeconfig(
    [SERVER],
    [`client-certificate-data: ${b64(PEM)}`, `client-key-data: ${b64('KEY')}`],
  ),
  'user name and password': kubeconfig([SERVER], ['username: admin', 'password: s3cret-pass']),
  impersonation: kubeconfig([SERVER], ['token: abc123def456', 'as: someone-else']),
  'insecure-skip-tls-verify and tls-server-name': kubeconfig(
    [SERVER, 'insecure-skip-tls-verify: true', 'tls-server-name: api.internal'],
    ['token: abc123def456'],
  ),
  'plain http with insecure-skip-tls-verify': kubeconfig(
    ['server: http://10.0.0.1:8080', 'insecure-skip-tls-verify: true'],
    ['token: abc123def456'],
  ),
  'plain http alone (refused)': kubeconfig(['server: http://10.0.0.1:8080'], ['token: t']),
  'a cluster without its server (refused)': kubeconfig(['insecure-skip-tls-verify: true'], []),
  'no user entry for the context': kubeconfig([SERVER], []).replace(
    /users:[\s\S]*?contexts:/,
    'contexts:',
  ),
};

/** What a loader made of a file: its entries, or the error's message. */
function loaded(kc: ClientNodeKubeConfig | KubeConfig, file: string): unknown {
  try {
    kc.loadFromFile(file);
  } catch (error) {
    return { error: (error as Error).message };
  }
  const { clusters, users, contexts, currentContext } = kc;
  return { clusters, users, contexts, currentContext };
}

/** What applying it set on a request: the fields the reader takes, or the error's message. */
async function applied(kc: ClientNodeKubeConfig | KubeConfig): Promise<unknown> {
  const opts: RequestOptions = {};
  try {
    await kc.applyToHTTPSOptions(opts);
  } catch (error) {
    return { error: (error as Error).message };
  }
  const { headers, ca, cert, key, rejectUnauthorized, servername, auth } = opts;
  return { headers, ca, cert, key, rejectUnauthorized, servername, auth };
}

describe("our KubeConfig reads and applies a kubeconfig as client-node's does", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kube-config-parity-'));
    await writeFile(join(dir, 'token.txt'), 'file-token-0123456789');
    await writeFile(join(dir, 'ca.pem'), PEM);
    await writeFile(join(dir, 'cert.pem'), PEM);
    await writeFile(join(dir, 'key.pem'), 'KEY');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  for (const [name, text] of Object.entries(CASES)) {
    it(name, async () => {
      const file = join(dir, `${name.replace(/\W+/g, '-')}.yaml`);
      await writeFile(file, text);
      const [ours, theirs] = [new KubeConfig(), new ClientNodeKubeConfig()];
      const read = loaded(ours, file);
      assert.deepEqual(read, loaded(theirs, file));
      if ('error' in (read as object)) return;
      assert.deepEqual(await applied(ours), await applied(theirs));
    });
  }
});
