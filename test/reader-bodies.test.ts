/**
 * How the reader turns answer bodies into pages, over HTTPS: gzip negotiated and inflated (the
 * simulated cluster compresses like kube-apiserver), a body in many small chunks, and the
 * hostile ones (a gzip bomb, an endless body, a body that stalls or is aborted half-way, an
 * encoding nobody asked for, corrupt gzip) each ending as one ClusterReadError line, with no
 * more than the page cap held in memory.
 */

import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { KubeConfig } from '@kubernetes/client-node';
import { tapBodies } from '../lambda/adapters/kube/decode/answer-body.js';
import { KubeClusterReader, type ReadBounds } from '../lambda/adapters/kube/kube-reader.js';
import { ClusterReadError } from '../lambda/ports/index.js';
import { SimCluster } from '../sim/cluster.js';
import { type SimServer, startSimServer } from '../sim/server.js';
import { LEASES_PATH, sendJson, startTinyApi, type TinyApi } from '../testkit/tiny-api.js';

const leaseList = (count: number, message = '') => ({
  kind: 'LeaseList',
  metadata: {},
  items: Array.from({ length: count }, (_, i) => ({
    metadata: { name: `node-${i}`, annotations: { note: message } },
    spec: { renewTime: new Date().toISOString(), leaseDurationSeconds: 40 },
  })),
});

async function failure(promise: Promise<unknown>): Promise<ClusterReadError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ClusterReadError, `expected a ClusterReadError, got ${error}`);
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return error;
  }
  assert.fail('expected the read to fail');
}

describe('answer bodies from the simulated cluster (gzip, like kube-apiserver)', () => {
  let cluster: SimCluster;
  let gzipping: SimServer;
  let plain: SimServer;

  before(async () => {
    cluster = new SimCluster({ seed: 11 });
    cluster.addNodes(1_200);
    gzipping = await startSimServer({ cluster, token: 'sim-token' });
    plain = await startSimServer({ cluster, token: 'sim-token', compression: false });
  });
  after(async () => {
    await gzipping.close();
    await plain.close();
  });

  function reader(server: SimServer): KubeClusterReader {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(server.kubeconfig());
    return new KubeClusterReader({ kubeConfig, cluster: 'sim', namespace: 'kube-node-lease' });
  }

  it('inflates the gzip pages of a read into one reused buffer, not a new one per page', async () => {
    // Each page's own output buffer is megabytes of Buffer churn at 100,000 nodes, and it drives
    // V8's full collections (measured in docs/BENCHMARKS.md's history, "A relist's Buffer churn").
    // Half a mebibyte: a page of 500 Nodes is ~2.6 MB in protobuf, the last of 200 just under 1 MiB.
    const LARGE = 512 * 1024;
    const allocUnsafe = Buffer.allocUnsafe;
    const large: number[] = [];
    Buffer.allocUnsafe = (size: number) => {
      if (size >= LARGE) large.push(size);
      return allocUnsafe(size);
    };
    let pages = 0;
    tapBodies((body) => {
      if (body.length >= LARGE) pages++;
    });
    try {
      const snapshot = await reader(gzipping).read();
      assert.equal(snapshot.nodes?.length, 1_200);
    } finally {
      Buffer.allocUnsafe = allocUnsafe;
      tapBodies(undefined);
    }
    assert.ok(pages >= 3, `${pages} pages of half a megabyte or more`);
    assert.ok(
      large.length < pages,
      `${large.length} buffers of half a megabyte or more for ${pages} pages`,
    );
  });

  it('asks for gzip, inflates it, and reads the same cluster as without it', async () => {
    gzipping.resetStats();
    const zipped = await reader(gzipping).read();
    const wire = gzipping.stats.bytesSent;
    const unzipped = await reader(plain).read();
    assert.equal(zipped.leases.length, 1_200);
    assert.equal(zipped.nodes?.length, 1_200);
    assert.deepEqual(zipped.nodes, unzipped.nodes);
    assert.deepEqual(
      zipped.leases.map((l) => [l.name, l.leaseDurationSeconds, l.createdAt]),
      unzipped.leases.map((l) => [l.name, l.leaseDurationSeconds, l.createdAt]),
    );
    // Bytes read are counted inflated; the wire carried a fraction of them.
    assert.equal(zipped.stats?.bytes, unzipped.stats?.bytes);
    assert.ok(wire * 3 < (zipped.stats?.bytes ?? 0), `gzip on the wire: ${wire} bytes`);
  });
});

describe('hostile answer bodies (a tiny HTTPS API server)', () => {
  let tiny: TinyApi;

  before(async () => {
    tiny = await startTinyApi();
  });
  after(async () => {
    await tiny.close();
  });

  function reader(
    options: { bounds?: Partial<ReadBounds>; timeoutMs?: number } = {},
  ): KubeClusterReader {
    return new KubeClusterReader({
      kubeConfig: tiny.kubeConfig(),
      cluster: 'tiny',
      namespace: 'kube-node-lease',
      readNodes: false,
      requestTimeoutMs: options.timeoutMs ?? 5_000,
      bounds: options.bounds,
    });
  }

  /** Leases answered by `answer`; anything else a 404. */
  function serveLeases(answer: (res: ServerResponse, acceptEncoding: string) => void): void {
    tiny.serve((req, res) => {
      if (new URL(req.url ?? '/', 'https://x').pathname !== LEASES_PATH)
        return sendJson(res, { kind: 'Status', code: 404 }, 404);
      answer(res, String(req.headers['accept-encoding'] ?? ''));
    });
  }

  it('reads a body sent in many small chunks, split inside multi-byte characters', async () => {
    const body = Buffer.from(JSON.stringify(leaseList(40, 'ünïcödé ✓ 節點')));
    serveLeases((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < body.length; i += 7) res.write(body.subarray(i, i + 7));
      res.end();
    });
    const snapshot = await reader().read();
    assert.equal(snapshot.leases.length, 40);
    assert.equal(snapshot.stats?.bytes, body.length);
  });

  it('a gzip answer is read whatever its chunks, and only gzip is asked for', async () => {
    let asked = '';
    const zipped = gzipSync(JSON.stringify(leaseList(300)));
    serveLeases((res, acceptEncoding) => {
      asked = acceptEncoding;
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      for (let i = 0; i < zipped.length; i += 100) res.write(zipped.subarray(i, i + 100));
      res.end();
    });
    const snapshot = await reader().read();
    assert.equal(snapshot.leases.length, 300);
    assert.equal(asked, 'gzip');
  });

  it('a gzip bomb is given up at the page cap, counted inflated', async () => {
    // 8 MiB of spaces (valid JSON padding) in ~8 KiB of gzip: the inflated body is what counts.
    const bomb = gzipSync(
      Buffer.concat([
        Buffer.from('{"kind":"LeaseList","items":[]'),
        Buffer.alloc(8 * 1024 * 1024, ' '),
        Buffer.from('}'),
      ]),
    );
    assert.ok(bomb.length < 64 * 1024);
    serveLeases((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const error = await failure(reader({ bounds: { maxPageBytes: 1024 * 1024 } }).read());
    assert.equal(error.failure, 'invalid-response');
    assert.match(
      error.message,
      /^the API server's answer to listing leases in namespace kube-node-lease is over 1 MiB \(the most one page may have\): read given up$/,
    );
  });

  it('an endless body is cut off at the page cap, and its connection closed', async () => {
    let closed!: () => void;
    const closedMidBody = new Promise<void>((resolve) => {
      closed = resolve;
    });
    serveLeases((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"kind":"LeaseList","items":[');
      const chunk = `${'{"metadata":{"name":"n"}},'.repeat(1_000)}`;
      const pump = () => {
        // Never ends: only the client giving up stops it.
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', closed);
      pump();
    });
    const error = await failure(reader({ bounds: { maxPageBytes: 256 * 1024 } }).read());
    assert.equal(error.failure, 'invalid-response');
    assert.match(error.message, /is over 256 KiB \(the most one page may have\): read given up$/);
    await closedMidBody;
  });

  it('a body that stalls half-way ends at the request timeout', async () => {
    serveLeases((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"kind":"LeaseList","items":[');
    });
    const error = await failure(reader({ timeoutMs: 300 }).read());
    assert.equal(error.failure, 'timeout');
    assert.match(error.message, /^listing leases in namespace kube-node-lease: no answer from /);
  });

  it('a read aborted by the caller half-way through a body ends as aborted', async () => {
    const controller = new AbortController();
    serveLeases((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"kind":"LeaseList","items":[', () => setTimeout(() => controller.abort(), 50));
    });
    const error = await failure(reader().read(controller.signal));
    assert.equal(error.failure, 'aborted');
    assert.match(error.message, /aborted before the API server answered$/);
  });

  it('reads every shape of gzip as gunzipSync does: two members, trailing bytes, a trailer that understates, cut short', async () => {
    const text = JSON.stringify(leaseList(3_000));
    const one = gzipSync(text);
    // Announces a little more than its compressed bytes: the buffer it sizes must grow.
    const understated = Buffer.from(one);
    understated.writeUInt32LE(one.length + 10, understated.length - 4);
    const shapes = {
      'two members': Buffer.concat([gzipSync(text.slice(0, 5_000)), gzipSync(text.slice(5_000))]),
      'trailing bytes': Buffer.concat([one, Buffer.from('trailing')]),
      'a trailer that understates': understated,
      'cut short': one.subarray(0, one.length - 1_000),
    };
    for (const [shape, body] of Object.entries(shapes)) {
      let expected: number | string;
      try {
        expected = (JSON.parse(gunzipSync(body).toString('utf8')) as { items: unknown[] }).items
          .length;
      } catch {
        expected = 'not valid gzip';
      }
      serveLeases((res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(body);
      });
      let got: number | string;
      try {
        got = (await reader().read()).leases.length;
      } catch (error) {
        got = /is not valid gzip/.test(String(error)) ? 'not valid gzip' : String(error);
      }
      assert.equal(got, expected, shape);
    }
  });

  const encodings = [
    {
      name: 'an encoding that was not asked for',
      encoding: 'compress',
      body: Buffer.from('x'),
      message:
        /^the API server's answer to listing leases in namespace kube-node-lease is encoded as "compress", not gzip or plain \(HTTP 200\): read given up$/,
    },
    {
      name: 'corrupt gzip',
      encoding: 'gzip',
      body: Buffer.from('definitely not gzip'),
      message:
        /^the API server's answer to listing leases in namespace kube-node-lease is not valid gzip \(HTTP 200\): read given up$/,
    },
  ];
  for (const c of encodings) {
    it(`${c.name} → invalid-response`, async () => {
      serveLeases((res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': c.encoding });
        res.end(c.body);
      });
      const error = await failure(reader().read());
      assert.equal(error.failure, 'invalid-response');
      assert.match(error.message, c.message);
    });
  }
});
