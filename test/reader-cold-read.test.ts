/**
 * A read without a node cache (every `lease-watchdog check`, a container's first check, a relist)
 * lists the Nodes beside the leases, not after them: one round trip less. The leases' failure
 * still names the failure, whatever the Nodes' list did meanwhile. Against a scripted HTTPS API.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, it } from 'node:test';
import { type Connection, withInflater } from '../lambda/adapters/kube/http/http-exchange.js';
import { KubeClusterReader } from '../lambda/adapters/kube/kube-reader.js';
import { ClusterReadError } from '../lambda/ports/index.js';
import { LEASES_PATH, sendJson, startTinyApi, type TinyApi } from '../testkit/tiny-api.js';

const NODE = {
  kind: 'Node',
  apiVersion: 'v1',
  metadata: { name: 'n-1', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: {},
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
};
const LEASE = {
  metadata: { name: 'n-1' },
  spec: { holderIdentity: 'n-1', leaseDurationSeconds: 40, renewTime: new Date().toISOString() },
};

let tiny: TinyApi;
before(async () => {
  tiny = await startTinyApi();
});
after(() => tiny.close());

const reader = () =>
  new KubeClusterReader({
    kubeConfig: tiny.kubeConfig(),
    cluster: 'tiny',
    namespace: 'kube-node-lease',
    requestTimeoutMs: 5_000,
    labelKeys: [],
  });

it('asks for the Nodes before the lease list has answered', async () => {
  // The lease list is held until the Nodes are asked for, or for 1 s.
  const order: string[] = [];
  let release: (() => void) | undefined;
  let nodesAsked = false;
  tiny.serve((req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    order.push(`asked ${path}`);
    if (path === LEASES_PATH) {
      const answer = () => {
        order.push('leases answered');
        sendJson(res, { kind: 'LeaseList', metadata: {}, items: [LEASE] });
      };
      if (nodesAsked) return answer();
      const timer = setTimeout(answer, 1_000);
      release = () => {
        clearTimeout(timer);
        answer();
      };
      return;
    }
    if (path === '/api/v1/nodes') {
      nodesAsked = true;
      release?.();
      return sendJson(res, { kind: 'NodeList', metadata: {}, items: [NODE] });
    }
    sendJson(res, { kind: 'Status', code: 404 }, 404);
  });
  const snapshot = await reader().read();
  assert.equal(snapshot.leases.length, 1);
  assert.ok(
    order.indexOf('asked /api/v1/nodes') < order.indexOf('leases answered'),
    order.join(', '),
  );
});

it("the leases' failure is the read's, though the Nodes' list failed first", async () => {
  tiny.serve((req, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    if (path === '/api/v1/nodes') return sendJson(res, { kind: 'Status', code: 500 }, 500);
    // The leases answer later than the Nodes.
    setTimeout(() => sendJson(res, { kind: 'Status', code: 403, reason: 'Forbidden' }, 403), 50);
  });
  const error = await reader()
    .read()
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(error instanceof ClusterReadError, String(error));
  assert.equal(error.failure, 'forbidden', error.message);
});

it('two requests in flight never inflate into one buffer: each holds an inflater of its own', async () => {
  const connection = { inflaters: [] } as unknown as Connection;
  const held: unknown[] = [];
  let both: () => void = () => undefined;
  const together = new Promise<void>((resolve) => {
    both = resolve;
  });
  const use = (inflater: unknown) => {
    held.push(inflater);
    if (held.length === 2) both();
    return together;
  };
  await Promise.all([withInflater(connection, use), withInflater(connection, use)]);
  assert.notEqual(held[0], held[1]);
  // Given back once done: the next request reuses one instead of allocating a third.
  await withInflater(connection, async (inflater) => assert.ok(held.includes(inflater)));
  assert.equal(connection.inflaters.length, 2);
});
