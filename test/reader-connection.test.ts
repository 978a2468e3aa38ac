/**
 * The reader's connection to the API server (lambda/adapters/kube/http/http-exchange.ts: node:https with a pool
 * built from the kubeconfig's credentials): a client certificate authenticates over HTTPS; a
 * kubeconfig `proxy-url` of an http:// proxy carries the TLS connection through a CONNECT tunnel,
 * and any other kind is refused with one line rather than ignored.
 */

import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, connect as netConnect, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClusterReader } from '../lambda/adapters/kube/kube-reader.js';
import { ClusterReadError } from '../lambda/ports/index.js';
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
    let proxy: HttpServer;
    let tunnels: string[] = [];
    let answer = 200;
    before(async () => {
      // A forward proxy as squid or tinyproxy is one: CONNECT host:port, then bytes both ways.
      proxy = createHttpServer((_request, response) => response.writeHead(405).end());
      proxy.on('connect', (request, client, head) => {
        tunnels.push(request.url ?? '');
        if (answer !== 200) {
          client.end(`HTTP/1.1 ${answer} No\r\n\r\n`);
          return;
        }
        const [host, port] = (request.url ?? '').split(':');
        const upstream = netConnect(Number(port), host, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    });
    after(() => {
      proxy.closeAllConnections();
      return new Promise<void>((resolve) => proxy.close(() => resolve()));
    });

    const withProxy = (proxyUrl: string) =>
      server.kubeconfig().replace(/^( {4}server: .*)$/m, `$1\n    proxy-url: "${proxyUrl}"`);
    const proxyPort = () => (proxy.address() as { port: number }).port;

    it('http://: the read goes through a CONNECT tunnel to the API server, TLS verified inside it', async () => {
      tunnels = [];
      answer = 200;
      const yaml = withProxy(`http://127.0.0.1:${proxyPort()}`);
      const snapshot = await readerFor(yaml).read();
      assert.deepEqual(snapshot.leases.map((l) => l.name).sort(), [...names].sort());
      const target = new URL(server.url);
      assert.ok(tunnels.length >= 1, 'the proxy carried the connection');
      assert.ok(
        tunnels.every((t) => t === `${target.hostname}:${target.port}`),
        `tunnels to the API server only: ${tunnels.join(', ')}`,
      );
    });

    it('http://: TLS is still verified end to end through the tunnel (a CA that did not sign the server fails)', async () => {
      answer = 200;
      const other = await startSimServer({ cluster: new SimCluster({ seed: 4 }) });
      try {
        const otherCa = /certificate-authority-data: (.*)/.exec(other.kubeconfig())?.[1];
        assert.ok(otherCa, 'the other server has a CA of its own');
        const yaml = withProxy(`http://127.0.0.1:${proxyPort()}`).replace(
          /certificate-authority-data: .*/,
          `certificate-authority-data: ${otherCa}`,
        );
        await assert.rejects(readerFor(yaml).read(), (error: unknown) => {
          assert.ok(error instanceof ClusterReadError, String(error));
          assert.equal(error.failure, 'tls');
          return true;
        });
      } finally {
        await other.close();
      }
    });

    it('http://: a proxy that refuses the tunnel ends the read with one line naming the proxy and its answer', async () => {
      tunnels = [];
      answer = 407;
      const yaml = withProxy(`http://127.0.0.1:${proxyPort()}`);
      server.resetStats();
      await assert.rejects(readerFor(yaml).read(), (error: unknown) => {
        assert.ok(error instanceof ClusterReadError, String(error));
        assert.equal(error.failure, 'unreachable');
        assert.match(error.message, /the proxy 127\.0\.0\.1:\d+ answered CONNECT .* with HTTP 407/);
        assert.doesNotMatch(error.message, /\n/);
        return true;
      });
      assert.equal(server.stats.requests, 0, 'nothing reached the server');
    });

    it('any other kind (socks5://) is refused with one line naming the setting and the fix; nothing is contacted', async () => {
      let connections = 0;
      const socks: Server = createServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => socks.listen(0, '127.0.0.1', resolve));
      try {
        const port = (socks.address() as { port: number }).port;
        server.resetStats();
        await assert.rejects(
          readerFor(withProxy(`socks5://127.0.0.1:${port}`)).read(),
          (error: unknown) => {
            assert.ok(error instanceof ClusterReadError, String(error));
            assert.equal(error.failure, 'config');
            assert.equal(
              error.message,
              `the kubeconfig's cluster "lease-watchdog-sim" sets proxy-url to a socks5 proxy; the watchdog goes through http:// proxies only (CONNECT): set an http:// proxy-url, or remove it to reach the API server directly`,
            );
            return true;
          },
        );
        assert.equal(connections, 0, 'the proxy was not contacted');
        assert.equal(server.stats.requests, 0, 'the server was not contacted either');
      } finally {
        await new Promise<void>((resolve) => socks.close(() => resolve()));
      }
    });
  });
});
