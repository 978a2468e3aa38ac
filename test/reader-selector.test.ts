/**
 * The reader with a node selector (the CLI's -l), against a scripted HTTPS API server: Nodes are
 * asked for with `labelSelector`, matched again when a server ignores it, and only the leases of
 * selected Nodes are kept. With a node cache, a lease of a node outside the selection is not read
 * node by node, and a node relabelled out of the selection leaves it (no orphan, no page).
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { KubeClusterReader, NodeCache } from '../lambda/adapters/kube/kube-reader.js';
import { matchesSelector, parseSelector } from '../lambda/core/selector.js';
import { LEASES_PATH, sendJson, startTinyApi, type TinyApi } from '../testkit/tiny-api.js';

const POOL = 'example.com/pool';

function lease(name: string, ageMs: number) {
  return {
    metadata: { name },
    spec: {
      holderIdentity: name,
      leaseDurationSeconds: 40,
      renewTime: new Date(Date.now() - ageMs).toISOString(),
    },
  };
}
function node(name: string, pool: string) {
  return {
    kind: 'Node',
    apiVersion: 'v1',
    metadata: { name, labels: { [POOL]: pool }, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/**
 * A cluster whose lists ignore labelSelector (as a careless proxy might), and records what was
 * asked; its Table of Nodes honours the selector.
 */
class Scripted {
  nodes = [node('gpu-1', 'gpu'), node('gpu-2', 'gpu'), node('web-1', 'web')];
  leases = [lease('gpu-1', 1_000), lease('gpu-2', 1_000), lease('web-1', 1_000)];
  asked: string[] = [];

  handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'https://x');
    this.asked.push(
      `${url.pathname}${url.searchParams.has('labelSelector') ? `?labelSelector=${url.searchParams.get('labelSelector')}` : ''}`,
    );
    if (url.pathname === LEASES_PATH)
      return sendJson(res, { kind: 'LeaseList', metadata: {}, items: this.leases });
    if (url.pathname === '/api/v1/nodes' && /as=Table/.test(req.headers.accept ?? '')) {
      const selector = parseSelector(url.searchParams.get('labelSelector') ?? '');
      const rows = this.nodes
        .filter((n) => matchesSelector(selector, n.metadata.labels))
        .map((n) => ({ cells: [n.metadata.name, 'Ready'], object: null }));
      const columnDefinitions = [{ name: 'Name' }, { name: 'Status' }];
      return sendJson(res, { kind: 'Table', metadata: {}, columnDefinitions, rows });
    }
    if (url.pathname === '/api/v1/nodes')
      return sendJson(res, { kind: 'NodeList', metadata: {}, items: this.nodes });
    const one = /^\/api\/v1\/nodes\/(.+)$/.exec(url.pathname)?.[1];
    const found = this.nodes.find((n) => n.metadata.name === one);
    if (found) return sendJson(res, found);
    return sendJson(res, { kind: 'Status', code: 404, reason: 'NotFound' }, 404);
  };
}

describe('the reader with a node selector', () => {
  let tiny: TinyApi;
  before(async () => {
    tiny = await startTinyApi();
  });
  after(() => tiny.close());

  const reader = (selector: string, nodeCache?: NodeCache) =>
    new KubeClusterReader({
      kubeConfig: tiny.kubeConfig(),
      cluster: 'tiny',
      namespace: 'kube-node-lease',
      requestTimeoutMs: 5_000,
      labelKeys: [],
      nodeCache,
      nodeSelector: parseSelector(selector),
    });

  it('asks for the selected Nodes, and keeps only them and their leases even from a server that ignores the selector', async () => {
    const api = new Scripted();
    api.leases.push(lease('deleted-gpu', 1_000)); // a lease without a Node: no orphan here
    tiny.serve(api.handle);
    const snapshot = await reader(`${POOL}=gpu`).read();
    assert.ok(api.asked.includes(`/api/v1/nodes?labelSelector=${POOL}=gpu`), api.asked.join(' '));
    assert.deepEqual(
      snapshot.nodes?.map((n) => n.name),
      ['gpu-1', 'gpu-2'],
    );
    assert.deepEqual(
      snapshot.leases.map((l) => l.name),
      ['gpu-1', 'gpu-2'],
    );
    assert.equal(snapshot.nodes?.[0]?.labels[POOL], 'gpu', 'the selector keys are kept');
  });

  it('with a node cache: a silent lease outside the selection is not read node by node; a node relabelled out leaves the selection', async () => {
    const api = new Scripted();
    tiny.serve(api.handle);
    let now = 0;
    const cached = reader(`${POOL} in (gpu)`, new NodeCache(600_000, () => now));
    await cached.read(); // the full list fills the cache
    api.asked = [];
    now += 30_000;
    // Both gpu-1 and web-1 look silent; gpu-1 has been relabelled meanwhile.
    api.leases = [lease('gpu-1', 60_000), lease('gpu-2', 1_000), lease('web-1', 60_000)];
    api.nodes = [node('gpu-1', 'web'), node('gpu-2', 'gpu'), node('web-1', 'web')];
    const snapshot = await cached.read();
    assert.deepEqual(api.asked.sort(), [
      '/api/v1/nodes/gpu-1',
      `/api/v1/nodes?labelSelector=${POOL} in (gpu)`, // the Table of Nodes: gpu-1 left it
      LEASES_PATH,
    ]);
    assert.deepEqual(
      snapshot.nodes?.map((n) => n.name),
      ['gpu-2'],
    );
    assert.deepEqual(
      snapshot.leases.map((l) => l.name),
      ['gpu-2'],
    );
  });

  it('forbidden Nodes end the read: which leases are selected is known only from the Nodes', async () => {
    tiny.serve((req, res) => {
      const url = new URL(req.url ?? '/', 'https://x');
      if (url.pathname === LEASES_PATH)
        return sendJson(res, { kind: 'LeaseList', metadata: {}, items: [lease('gpu-1', 1_000)] });
      return sendJson(res, { kind: 'Status', code: 403, reason: 'Forbidden' }, 403);
    });
    await assert.rejects(reader(`${POOL}=gpu`).read(), (error: Error) => {
      assert.equal(error.name, 'ClusterReadError');
      assert.match(
        error.message,
        /cannot list nodes.*the node selector "example\.com\/pool=gpu" needs them$/,
      );
      return true;
    });
  });
});
