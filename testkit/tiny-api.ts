/**
 * A tiny HTTPS "API server" for hostile-answer tests: every request goes to a handler the test
 * sets, over TLS signed by a throwaway CA (sim/pki.ts), so the reader and the CLI talk to it
 * exactly as to a real cluster (no skip-TLS-verify). Also writes a kubeconfig for it.
 */

import { writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { generateSimPki } from '../sim/pki.js';
import { closeServer } from './ports.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface TinyApi {
  readonly url: string;
  readonly caPem: string;
  /** Requests answered since the last `serve`. */
  readonly requests: () => number;
  /** Answers every request with `handler` from now on (and resets the request count). */
  serve(handler: Handler): void;
  /** A kubeconfig for it; `server` overrides the URL written, `caPem` the CA. */
  kubeconfigYaml(opts?: { server?: string; caPem?: string; skipTls?: boolean }): string;
  writeKubeconfig(
    path: string,
    opts?: { server?: string; caPem?: string; skipTls?: boolean },
  ): Promise<void>;
  kubeConfig(): KubeConfig;
  close(): Promise<void>;
}

export const TINY_TOKEN = 'tiny-api-secret-token-42';
export const LEASES_PATH = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';

/** A JSON 200 answer. */
export function sendJson(res: ServerResponse, value: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

export async function startTinyApi(): Promise<TinyApi> {
  const pki = await generateSimPki();
  let handler: Handler = (_req, res) => sendJson(res, {});
  let count = 0;
  const server: Server = createServer({ cert: pki.certPem, key: pki.keyPem }, (req, res) => {
    count++;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `https://127.0.0.1:${port}`;
  const yaml = (opts: { server?: string; caPem?: string; skipTls?: boolean } = {}) => {
    const ca = Buffer.from(opts.caPem ?? pki.caPem).toString('base64');
    const tls = opts.skipTls
      ? 'insecure-skip-tls-verify: true'
      : `certificate-authority-data: ${ca}`;
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: tiny`,
      '  cluster:',
      `    server: ${opts.server ?? url}`,
      `    ${tls}`,
      'users:',
      '- name: tiny-user',
      '  user:',
      `    token: ${TINY_TOKEN}`,
      'contexts:',
      '- name: tiny',
      '  context:',
      '    cluster: tiny',
      '    user: tiny-user',
      'current-context: tiny',
      '',
    ].join('\n');
  };
  return {
    url,
    caPem: pki.caPem,
    requests: () => count,
    serve(next) {
      handler = next;
      count = 0;
    },
    kubeconfigYaml: yaml,
    async writeKubeconfig(path, opts) {
      await writeFile(path, yaml(opts));
    },
    kubeConfig() {
      const kc = new KubeConfig();
      kc.loadFromString(yaml());
      return kc;
    },
    close: () => closeServer(server),
  };
}
