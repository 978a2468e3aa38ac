/**
 * The reader's connection to the API server (lambda/kube/http-exchange.ts: node:https with a pool
 * built from the kubeconfig's credentials): a client certificate authenticates over HTTPS, and a
 * kubeconfig `proxy-url` is refused with one line rather than ignored or half-honoured.
 */

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClusterReader } from '../lambda/kube/kube-reader.js';
import { ClusterReadError } from '../lambda/ports.js';
import { SimCluster } from '../sim/cluster.js';
import { type SimServer, startSimServer } from '../sim/server.js';

function readerFor(yaml: string) {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(yaml);
  return new KubeClusterReader({
    kubeConfig,
    cluster: 'sim',
    namespace: 'kube-node-lease',
    requestTimeoutMs: 5_000,
  });
}

describe('the connection to the API server', () => {
  let server: SimServer;
  let names: string[];

  before(async () => {
    const cluster = new SimCluster({ seed: 3 });
    names = cluster.addNodes(7, { zones: ['eu-west-1a'] });
    server = await startSimServer({ cluster });
  });
  after(async () => {
    await server.close();
  });

  it('a kubeconfig user with a client certificate (no token) reads the cluster', async () => {
    const yaml = server.kubeconfig({ clientCertificate: true });
    assert.doesNotMatch(yaml, /token:/, 'no token to fall back on');
    const snapshot = await readerFor(yaml).read();
    assert.deepEqual(snapshot.leases.map((l) => l.name).sort(), [...names].sort());
  });

  it('the same kubeconfig without its certificate is rejected (401): the certificate is what authenticated', async () => {
    const yaml = server
      .kubeconfig({ clientCertificate: true })
      .replace(/^ {4}client-(certificate|key)-data: .*\n/gm, '');
    await assert.rejects(readerFor(yaml).read(), (error: unknown) => {
      assert.ok(error instanceof ClusterReadError, String(error));
      assert.equal(error.failure, 'unauthorized');
      return true;
    });
  });

  describe('a kubeconfig cluster with proxy-url', () => {
    let proxy: Server;
    let connections = 0;
    before(async () => {
      proxy = createServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    });
    after(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

    it('is refused with one line naming the setting and the fix; nothing goes to the proxy or the server', async () => {
      const port = (proxy.address() as { port: number }).port;
      const yaml = server
        .kubeconfig()
        .replace(/^( {4}server: .*)$/m, `$1\n    proxy-url: "http://127.0.0.1:${port}"`);
      assert.match(yaml, /proxy-url/);
      server.resetStats();
      await assert.rejects(readerFor(yaml).read(), (error: unknown) => {
        assert.ok(error instanceof ClusterReadError, String(error));
        assert.equal(error.failure, 'config');
        assert.equal(
          error.message,
          `the kubeconfig's cluster "lease-watchdog-sim" sets proxy-url, which the watchdog does not support: remove it and let the watchdog reach the API server directly`,
        );
        return true;
      });
      assert.equal(connections, 0, 'the proxy was not contacted');
      assert.equal(server.stats.requests, 0, 'the server was not contacted either');
    });
  });
});
