import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, test } from 'node:test';
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  type V1Lease,
} from '@kubernetes/client-node';
import { SimCluster } from '../sim/cluster.js';
import { type SimServer, startSimServer } from '../sim/server.js';

const NS = 'kube-node-lease';
const ZONES = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];

function clients(server: SimServer, opts?: Parameters<SimServer['kubeconfig']>[0]) {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig(opts));
  return { coord: kc.makeApiClient(CoordinationV1Api), core: kc.makeApiClient(CoreV1Api) };
}

/** A raw HTTPS GET (for headers, hangs and timeouts the typed client hides). */
function rawGet(
  server: SimServer,
  path: string,
  opts: { timeoutMs?: number; token?: string } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        ca: server.caPem,
        headers: { authorization: `Bearer ${opts.token ?? server.token}` },
        timeout: opts.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

async function apiError(promise: Promise<unknown>): Promise<ApiException<unknown>> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ApiException) return err;
    throw err;
  }
  assert.fail('expected an ApiException');
}

function statusOf(err: ApiException<unknown>): {
  message?: string;
  reason?: string;
  kind?: string;
} {
  const body = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
  return body as { message?: string; reason?: string; kind?: string };
}

describe('sim server over HTTPS with @kubernetes/client-node', () => {
  let cluster: SimCluster;
  let server: SimServer;

  before(async () => {
    cluster = new SimCluster({ seed: 3 });
    cluster.addNodes(2_500, { zones: ZONES });
    cluster.addNode({ name: 'gpu-1', zone: 'eu-west-1a', labels: { 'example.com/pool': 'gpu' } });
    cluster.addNode({ name: 'gpu-2', zone: 'eu-west-1b', labels: { 'example.com/pool': 'gpu' } });
    server = await startSimServer({ cluster, host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await server.close();
  });

  test('lists 2,502 leases in pages of 500, each exactly once, with remainingItemCount', async () => {
    const { coord } = clients(server);
    const seen: string[] = [];
    const remaining: (number | undefined)[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const list = await coord.listNamespacedLease({ namespace: NS, limit: 500, _continue: cont });
      pages++;
      for (const lease of list.items) seen.push(lease.metadata?.name ?? '');
      remaining.push(list.metadata?.remainingItemCount);
      cont = list.metadata?._continue || undefined;
    } while (cont);
    assert.equal(pages, 6);
    assert.equal(seen.length, 2_502);
    assert.equal(new Set(seen).size, 2_502);
    assert.deepEqual(new Set(seen), new Set(cluster.nodeNames()));
    assert.deepEqual(remaining, [2_002, 1_502, 1_002, 502, 2, undefined]);
  });

  test('lease objects carry a MicroTime renewTime string and the node owner', async () => {
    const { coord } = clients(server);
    const lease: V1Lease = await coord.readNamespacedLease({ name: 'gpu-1', namespace: NS });
    // client-node types renewTime as Date but hands over the wire string.
    assert.match(String(lease.spec?.renewTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(lease.spec?.holderIdentity, 'gpu-1');
    assert.equal(lease.metadata?.ownerReferences?.[0]?.kind, 'Node');
  });

  test('lists nodes with paging and a label selector', async () => {
    const { core } = clients(server);
    const all = await core.listNode({ limit: 1_000 });
    assert.equal(all.items.length, 1_000);
    assert.equal(all.metadata?.remainingItemCount, 1_502);
    const node = all.items[0];
    assert.equal(node?.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');

    const gpus = await core.listNode({ labelSelector: 'example.com/pool=gpu' });
    assert.deepEqual(gpus.items.map((n) => n.metadata?.name).sort(), ['gpu-1', 'gpu-2']);
    const zoneB = await core.listNode({ labelSelector: 'topology.kubernetes.io/zone=eu-west-1b' });
    // 2,500 round-robin over three zones puts 833 in the second, plus gpu-2.
    assert.equal(zoneB.items.length, 833 + 1);

    const gpusPaged: string[] = [];
    let cont: string | undefined;
    do {
      const page = await core.listNode({
        labelSelector: 'example.com/pool in (gpu)',
        limit: 1,
        _continue: cont,
      });
      for (const n of page.items) gpusPaged.push(n.metadata?.name ?? '');
      cont = page.metadata?._continue || undefined;
    } while (cont);
    assert.deepEqual(gpusPaged.sort(), ['gpu-1', 'gpu-2']);
  });

  test('fieldSelector metadata.name, and 404 for an unknown node, lease or namespace', async () => {
    const { core, coord } = clients(server);
    const one = await core.listNode({ fieldSelector: 'metadata.name=gpu-2' });
    assert.deepEqual(
      one.items.map((n) => n.metadata?.name),
      ['gpu-2'],
    );
    const noNode = await apiError(core.readNode({ name: 'nope' }));
    assert.equal(noNode.code, 404);
    assert.equal(statusOf(noNode).reason, 'NotFound');
    const noLease = await apiError(coord.readNamespacedLease({ name: 'nope', namespace: NS }));
    assert.equal(noLease.code, 404);
    const noNs = await apiError(coord.listNamespacedLease({ namespace: 'kube-nope' }));
    assert.equal(noNs.code, 404);
    assert.equal(statusOf(noNs).message, 'namespaces "kube-nope" not found');
  });

  test('create and replace a lease; a stale resourceVersion is 409 Conflict', async () => {
    const { coord } = clients(server);
    const created = await coord.createNamespacedLease({
      namespace: 'default',
      body: {
        metadata: { name: 'leader' },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15 },
      },
    });
    const replaced = await coord.replaceNamespacedLease({
      name: 'leader',
      namespace: 'default',
      body: { ...created, spec: { ...created.spec, holderIdentity: 'b' } },
    });
    assert.equal(replaced.spec?.holderIdentity, 'b');
    assert.notEqual(replaced.metadata?.resourceVersion, created.metadata?.resourceVersion);
    const stale = await apiError(
      coord.replaceNamespacedLease({ name: 'leader', namespace: 'default', body: created }),
    );
    assert.equal(stale.code, 409);
    assert.equal(statusOf(stale).reason, 'Conflict');
  });

  test('401 with a wrong token; TLS verification fails without the CA', async () => {
    const wrong = clients(server, { token: 'not-the-token' });
    const err = await apiError(wrong.coord.listNamespacedLease({ namespace: NS }));
    assert.equal(err.code, 401);
    const raw = await rawGet(server, '/api/v1/nodes', { token: 'nope' });
    assert.equal(raw.status, 401);
    assert.equal(JSON.parse(raw.body).reason, 'Unauthorized');

    const noCa = clients(server, { withCa: false });
    await assert.rejects(noCa.coord.listNamespacedLease({ namespace: NS }), (e: unknown) => {
      assert.ok(!(e instanceof ApiException));
      const cause = (e as { cause?: { code?: string } }).cause;
      assert.equal(cause?.code, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      return true;
    });
  });

  test('every response has a Date header; discovery and version answer', async () => {
    for (const path of ['/version', '/api', '/api/v1', '/apis', '/apis/coordination.k8s.io/v1']) {
      const res = await rawGet(server, path);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.ok(Number.isFinite(Date.parse(String(res.headers.date))), `${path} has a Date header`);
    }
    assert.match(JSON.parse((await rawGet(server, '/version')).body).gitVersion, /^v1\.32\.\d+$/);
    const groups = JSON.parse((await rawGet(server, '/apis')).body);
    assert.equal(groups.groups[0].preferredVersion.groupVersion, 'coordination.k8s.io/v1');
    const notFound = await rawGet(server, '/apis/apps/v1/deployments');
    assert.equal(notFound.status, 404);
    assert.equal(JSON.parse(notFound.body).kind, 'Status');
  });

  test('stats count requests and bytes; resetStats zeroes them and the TLS connections', async () => {
    server.resetStats();
    assert.deepEqual({ ...server.stats }, { requests: 0, bytesSent: 0, connections: 0 });
    await rawGet(server, '/version');
    assert.equal(server.stats.requests, 1);
    assert.ok(server.stats.bytesSent > 100);
  });
});

describe('sim server faults', () => {
  let cluster: SimCluster;
  let server: SimServer;

  before(async () => {
    cluster = new SimCluster({ seed: 5 });
    cluster.addNodes(10);
    server = await startSimServer({ cluster });
  });
  after(async () => {
    await server.close();
  });

  test('status 403 on leases: an RBAC-style Status, nodes still readable', async (t) => {
    t.after(() => server.setFault(null));
    server.setFault({ kind: 'status', status: 403, resource: 'leases' });
    const { coord, core } = clients(server);
    const err = await apiError(coord.listNamespacedLease({ namespace: NS }));
    assert.equal(err.code, 403);
    const status = statusOf(err);
    assert.equal(status.reason, 'Forbidden');
    assert.equal(
      status.message,
      'leases.coordination.k8s.io is forbidden: User "system:serviceaccount:lease-watchdog:lease-watchdog" cannot list resource "leases" in API group "coordination.k8s.io" in the namespace "kube-node-lease"',
    );
    assert.equal((await core.listNode()).items.length, 10);
  });

  test('status 403 on nodes names the cluster scope', async (t) => {
    t.after(() => server.setFault(null));
    server.setFault({ kind: 'status', status: 403, resource: 'nodes' });
    const { coord, core } = clients(server);
    const err = await apiError(core.listNode());
    assert.match(
      String(statusOf(err).message),
      /cannot list resource "nodes" in API group "" at the cluster scope$/,
    );
    assert.equal((await coord.listNamespacedLease({ namespace: NS })).items.length, 10);
  });

  for (const status of [401, 500, 503]) {
    test(`status ${status} on everything`, async (t) => {
      t.after(() => server.setFault(null));
      server.setFault({ kind: 'status', status, message: status === 500 ? 'boom' : undefined });
      const { coord } = clients(server);
      const err = await apiError(coord.listNamespacedLease({ namespace: NS }));
      assert.equal(err.code, status);
      const raw = await rawGet(server, '/version');
      assert.equal(raw.status, status);
      const body = JSON.parse(raw.body);
      assert.equal(body.kind, 'Status');
      assert.equal(body.code, status);
      if (status === 500) assert.equal(body.message, 'boom');
      server.setFault(null);
      assert.equal((await coord.listNamespacedLease({ namespace: NS })).items.length, 10);
    });
  }

  test('hang: no answer until the fault is cleared, then the request completes', async (t) => {
    t.after(() => server.setFault(null));
    server.setFault({ kind: 'hang', resource: 'leases' });
    await assert.rejects(
      rawGet(server, `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`, { timeoutMs: 300 }),
      /timed out/,
    );
    const pending = rawGet(server, `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`);
    const nodes = await rawGet(server, '/api/v1/nodes');
    assert.equal(nodes.status, 200);
    const early = await Promise.race([
      pending.then(() => 'answered'),
      delay(300).then(() => 'hung'),
    ]);
    assert.equal(early, 'hung');
    server.setFault(null);
    const res = await pending;
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).items.length, 10);
  });

  test('close: the connection drops without an answer', async (t) => {
    t.after(() => server.setFault(null));
    server.setFault({ kind: 'close', resource: 'all' });
    const { coord } = clients(server);
    await assert.rejects(coord.listNamespacedLease({ namespace: NS }), (e: unknown) => {
      assert.ok(!(e instanceof ApiException), 'a network error, not an HTTP status');
      return true;
    });
    await assert.rejects(rawGet(server, '/version'), /socket hang up|ECONNRESET/);
  });

  test('close() does not hang with hung requests open', async () => {
    const c = new SimCluster();
    c.addNodes(3);
    const s = await startSimServer({ cluster: c });
    s.setFault({ kind: 'hang' });
    const hung = rawGet(s, '/api/v1/nodes').catch((e: unknown) => e);
    await delay(100);
    const started = Date.now();
    await s.close();
    assert.ok(Date.now() - started < 2_000);
    assert.ok((await hung) instanceof Error);
  });

  test('the Date header is the sim clock', async () => {
    const fixed = Date.parse('2030-01-02T03:04:05Z');
    const c = new SimCluster({ now: () => fixed, jitter: false });
    c.addNode({ name: 'n1' });
    const s = await startSimServer({ cluster: c });
    try {
      const res = await rawGet(s, `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/n1`);
      assert.equal(res.headers.date, 'Wed, 02 Jan 2030 03:04:05 GMT');
      assert.equal(JSON.parse(res.body).spec.renewTime, '2030-01-02T03:04:05.000000Z');
    } finally {
      await s.close();
    }
  });
});

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
