/**
 * The reader against a hostile API server: 200 answers that are not what was asked for (an empty
 * object, a Status, a proxy's HTML page, a list of another kind) fail the read with one clear
 * line instead of reading as an empty cluster. A tiny local HTTP server plays the API server.
 */

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClusterReader, NodeCache } from '../lambda/adapters/kube/kube-reader.js';
import { ClusterReadError } from '../lambda/ports/index.js';
import { listenOnLoopback } from '../testkit/ports.js';

interface Reply {
  readonly type?: string;
  readonly body: string;
}

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
const json = (value: unknown): Reply => ({ type: 'application/json', body: JSON.stringify(value) });

function lease(name: string, renewTime: string) {
  return { metadata: { name }, spec: { renewTime, leaseDurationSeconds: 40 } };
}

function node(name: string) {
  return { kind: 'Node', metadata: { name, labels: {} }, spec: {}, status: {} };
}

const validLeases = () =>
  json({ kind: 'LeaseList', items: [lease('n1', new Date().toISOString())] });
const validNodes = () => json({ kind: 'NodeList', items: [node('n1')] });
const NODE_COLUMNS = [{ name: 'Name' }, { name: 'Status' }, { name: 'Roles' }];
/** A Table of Nodes: one row of cells per node, under `columns`. */
const nodeTable = (
  rows: unknown[][],
  columns: unknown[] = NODE_COLUMNS,
  metadata: Record<string, unknown> = {},
): Reply =>
  json({
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: columns,
    rows: rows.map((cells) => ({ cells, object: null })),
  });

describe('KubeClusterReader: 200 answers that are not what was asked for', () => {
  let server: Server;
  let url: string;
  // What the API server answers, by path (without the query); `table:<path>` when asked for a Table.
  let replies: Map<string, Reply>;

  before(async () => {
    server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      const asTable = /as=Table/.test(req.headers.accept ?? '');
      const reply = (asTable ? replies.get(`table:${path}`) : undefined) ?? replies.get(path);
      if (!reply) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound' }));
        return;
      }
      res.writeHead(200, reply.type ? { 'content-type': reply.type } : {});
      res.end(reply.body);
    });
    url = await listenOnLoopback(server);
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  function reader(nodeCache?: NodeCache): KubeClusterReader {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      // Plain HTTP: client-node refuses it unless TLS verification is explicitly off.
      clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'local-token' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    return new KubeClusterReader({
      kubeConfig,
      cluster: 'local',
      namespace: 'kube-node-lease',
      requestTimeoutMs: 5_000,
      nodeCache,
    });
  }

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

  it('reads well-formed answers, an empty list with `items: null` included', async () => {
    replies = new Map([
      [LEASES, validLeases()],
      ['/api/v1/nodes', json({ kind: 'NodeList', metadata: {}, items: null })],
    ]);
    const snapshot = await reader().read();
    assert.deepEqual(
      snapshot.leases.map((l) => l.name),
      ['n1'],
    );
    assert.deepEqual(snapshot.nodes, []);
  });

  const cases: { name: string; path: string; reply: Reply; expect: RegExp }[] = [
    {
      name: 'an empty object for leases',
      path: LEASES,
      reply: json({}),
      expect:
        /^the API server's answer to listing leases in namespace kube-node-lease is not a LeaseList \(got an empty object\)$/,
    },
    {
      name: 'a Status with HTTP 200 for leases',
      path: LEASES,
      reply: json({
        kind: 'Status',
        status: 'Failure',
        message: 'etcdserver:\n request timed out',
      }),
      expect: /is not a LeaseList \(got a Status: etcdserver: request timed out\)$/,
    },
    {
      name: "a proxy's HTML page for leases",
      path: LEASES,
      reply: { type: 'text/html; charset=utf-8', body: '<html><body>Sign in</body></html>' },
      expect:
        /^the API server's answer to listing leases in namespace kube-node-lease is not JSON \(HTTP 200, text\/html\)$/,
    },
    {
      name: 'a list of another kind for leases',
      path: LEASES,
      reply: json({ kind: 'PodList', items: [lease('n1', new Date().toISOString())] }),
      expect: /is not a LeaseList \(got a PodList\)$/,
    },
    {
      name: 'a LeaseList whose items are not a list',
      path: LEASES,
      reply: json({ kind: 'LeaseList', items: { n1: {} } }),
      expect: /is not a LeaseList \(got a LeaseList whose items are not a list\)$/,
    },
    {
      name: 'JSON null for leases',
      path: LEASES,
      reply: json(null),
      expect: /is not a LeaseList \(got null\)$/,
    },
    {
      name: 'a JSON array for nodes',
      path: '/api/v1/nodes',
      reply: json([node('n1')]),
      expect: /^the API server's answer to listing nodes is not a NodeList \(got a JSON array\)$/,
    },
    {
      name: 'an object without a kind for nodes',
      path: '/api/v1/nodes',
      reply: json({ items: [node('n1')] }),
      expect: /is not a NodeList \(got an object without a kind\)$/,
    },
  ];
  for (const c of cases) {
    it(`${c.name} → invalid-response, not an empty cluster`, async () => {
      replies = new Map([
        [LEASES, validLeases()],
        ['/api/v1/nodes', validNodes()],
        [c.path, c.reply],
      ]);
      const error = await failure(reader().read());
      assert.equal(error.failure, 'invalid-response');
      assert.match(error.message, c.expect);
    });
  }

  it('a node read afresh from the cache answered with something else than a Node → invalid-response, not a deleted node', async () => {
    const cache = new NodeCache(60_000);
    replies = new Map([
      // Old enough to be a suspect: the second read GETs its Node.
      [LEASES, json({ kind: 'LeaseList', items: [lease('n1', '2026-01-01T00:00:00.000000Z')] })],
      ['/api/v1/nodes', validNodes()],
      ['table:/api/v1/nodes', nodeTable([['n1', 'Ready']])],
      ['/api/v1/nodes/n1', json(node('n1'))],
    ]);
    const first = await reader(cache).read();
    assert.equal(first.nodes?.length, 1);
    const fresh = await reader(cache).read();
    assert.equal(fresh.nodes?.length, 1, 'a well-formed Node is read afresh');

    replies.set('/api/v1/nodes/n1', json({ kind: 'Status', reason: 'ServiceUnavailable' }));
    const error = await failure(reader(cache).read());
    assert.equal(error.failure, 'invalid-response');
    assert.match(
      error.message,
      /^the API server's answer to reading node n1 is not a Node \(got a Status: ServiceUnavailable\)$/,
    );
    assert.equal(cache.current()?.has('n1'), true, 'the cache still has the node');
  });

  describe('a Table of Nodes it cannot use: whole Nodes listed instead, never a wrong verdict', () => {
    const cases: { name: string; table: Reply; expect: RegExp }[] = [
      {
        name: 'no Status column',
        table: nodeTable([['n1', '<none>']], [{ name: 'Name' }, { name: 'Roles' }]),
        expect: /has no Status column/,
      },
      {
        name: 'a Status cell it cannot read',
        table: nodeTable([['n1', 'Ready\u001b[2J']]),
        expect: /the Status cell of node n1 is not one it can read$/,
      },
      {
        name: 'a Name cell that is no node name',
        table: nodeTable([['n1\u001b[2J', 'Ready']]),
        expect: /a Name cell is not a node name$/,
      },
      {
        name: 'fewer rows than its first page announced',
        table: nodeTable([['n1', 'Ready']], NODE_COLUMNS, { remainingItemCount: 3 }),
        expect: /announced 4 rows but 1 came/,
      },
      {
        name: 'a node in two rows',
        table: nodeTable([
          ['n1', 'Ready'],
          ['n1', 'Ready'],
        ]),
        expect: /node n1 has two rows/,
      },
      { name: 'a NodeList', table: validNodes(), expect: /is not a Table \(got a NodeList\)/ },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        let now = 0;
        const cache = new NodeCache(60_000, () => now);
        replies = new Map([
          [LEASES, validLeases()],
          ['/api/v1/nodes', json({ kind: 'NodeList', items: [node('n1')] })],
          ['table:/api/v1/nodes', c.table],
        ]);
        const warnings: string[] = [];
        const kubeConfig = new KubeConfig();
        kubeConfig.loadFromOptions({
          clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
          users: [{ name: 'u', token: 'local-token' }],
          contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
          currentContext: 'ctx',
        });
        const read = () =>
          new KubeClusterReader({
            kubeConfig,
            cluster: 'local',
            namespace: 'kube-node-lease',
            nodeCache: cache,
            logger: { warn: (_message, fields) => warnings.push(String(fields?.error)) },
          }).read();
        await read(); // the full list that fills the cache
        now = 1_000;
        // The node turns NotReady: only the whole list can say so now.
        const notReady = {
          ...node('n1'),
          status: { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady' }] },
        };
        replies.set('/api/v1/nodes', json({ kind: 'NodeList', items: [notReady] }));
        const snapshot = await read();
        assert.equal(snapshot.nodes?.[0]?.ready, 'False', 'read from the whole list');
        assert.equal(warnings.length, 1);
        assert.match(warnings[0] ?? '', /^the Table of Nodes is not usable: |is not a Table/);
        assert.match(warnings[0] ?? '', c.expect);
        assert.ok(!(warnings[0] ?? '').includes('\u001b'), 'no escape quoted');
      });
    }
  });
});
