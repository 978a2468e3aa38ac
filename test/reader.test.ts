/**
 * The cluster reader against the simulated cluster over HTTPS, through the real client-node
 * authentication and TLS stack: pagination, the Date header, and every failure class.
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClusterReader, NodeCache } from '../lambda/adapters/kube/kube-reader.js';
import { SUSPECT_AGE_MS, suspectAgeFor, suspectNodes } from '../lambda/adapters/kube/node-cache.js';
import { ClusterReadError } from '../lambda/ports/index.js';
import { SimCluster } from '../sim/cluster.js';
import { type SimServer, startSimServer } from '../sim/server.js';
import { closedPort } from '../testkit/ports.js';

function readerFor(
  yaml: string,
  options: { namespace?: string; timeoutMs?: number; pageSize?: number; labelKeys?: string[] } = {},
) {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(yaml);
  return new KubeClusterReader({
    kubeConfig,
    cluster: 'sim',
    namespace: options.namespace ?? 'kube-node-lease',
    pageSize: options.pageSize,
    requestTimeoutMs: options.timeoutMs ?? 5_000,
    labelKeys: options.labelKeys,
  });
}

async function failure(promise: Promise<unknown>): Promise<ClusterReadError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(
      error instanceof ClusterReadError,
      `expected a ClusterReadError, got ${String(error)}`,
    );
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return error;
  }
  assert.fail('expected the read to fail');
}

describe('KubeClusterReader against the simulated cluster', () => {
  let cluster: SimCluster;
  let server: SimServer;
  let names: string[];

  before(async () => {
    cluster = new SimCluster({ seed: 7 });
    names = cluster.addNodes(2_345, { zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] });
    server = await startSimServer({ cluster, token: 'sim-secret-token' });
  });
  after(async () => {
    await server.close();
  });

  it('pages through 2,345 leases and nodes, each exactly once', async () => {
    server.resetStats();
    const snapshot = await readerFor(server.kubeconfig(), { pageSize: 500 }).read();
    assert.equal(snapshot.leases.length, 2_345);
    assert.equal(new Set(snapshot.leases.map((l) => l.name)).size, 2_345);
    assert.equal(snapshot.nodes?.length, 2_345);
    assert.deepEqual(new Set(snapshot.nodes?.map((n) => n.name)), new Set(names));
    // 5 pages of leases + 5 of nodes.
    assert.equal(snapshot.stats?.requests, 10);
    assert.equal(server.stats.requests, 10);
    assert.equal(snapshot.degraded, undefined);
  });

  it('accepts gzip, and gets it on the wire for pages over 128 KiB; never asks for resourceVersion=0', async () => {
    server.resetStats();
    await readerFor(server.kubeconfig(), { pageSize: 500 }).read();
    assert.equal(server.sent.length, 10);
    for (const answer of server.sent) {
      assert.match(answer.acceptEncoding ?? '', /\bgzip\b/, answer.url);
      assert.doesNotMatch(answer.url, /resourceVersion=/, answer.url);
      if (answer.decodedBytes > 128 * 1024) {
        assert.equal(answer.contentEncoding, 'gzip', answer.url);
        assert.ok(answer.bytes < answer.decodedBytes / 3, `${answer.bytes} on the wire`);
      }
    }
    assert.ok(server.sent.some((a) => a.contentEncoding === 'gzip'));
  });

  it('reads everything, correctly, from a server that ignores limit (one page), within the page cap', async () => {
    server.ignoreLimit(true);
    try {
      server.resetStats();
      // One 15 MB page of Nodes: a generous timeout on this shared machine.
      const snapshot = await readerFor(server.kubeconfig(), {
        pageSize: 100,
        timeoutMs: 60_000,
      }).read();
      assert.equal(server.sent.length, 2, 'one page per list');
      assert.match(server.sent[0]?.url ?? '', /[?&]limit=100(&|$)/);
      assert.equal(snapshot.leases.length, 2_345);
      assert.deepEqual(new Set(snapshot.nodes?.map((n) => n.name)), new Set(names));

      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(server.kubeconfig());
      const capped = new KubeClusterReader({
        kubeConfig,
        cluster: 'sim',
        namespace: 'kube-node-lease',
        pageSize: 100,
        requestTimeoutMs: 60_000,
        bounds: { maxPageBytes: 1024 * 1024 },
      });
      const error = await failure(capped.read());
      assert.equal(error.failure, 'invalid-response');
      assert.match(error.message, /is over 1 MiB \(the most one page may have\): read given up$/);
    } finally {
      server.ignoreLimit(false);
    }
  });

  it("takes the API server's clock from the Date header", async () => {
    const before = Date.now();
    const snapshot = await readerFor(server.kubeconfig()).read();
    // The Date header has whole seconds.
    assert.ok(
      snapshot.serverTime >= before - 1_000 && snapshot.serverTime <= Date.now(),
      String(snapshot.serverTime),
    );
  });

  it('projects what the core needs: renewTime as the MicroTime string, zone, readiness, taints', async () => {
    const name = names[0] as string;
    cluster.setReady(name, 'False', 'KubeletNotReady');
    cluster.addTaint(name, { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' });
    const snapshot = await readerFor(server.kubeconfig()).read();
    const lease = snapshot.leases.find((l) => l.name === name);
    const node = snapshot.nodes?.find((n) => n.name === name);
    assert.match(String(lease?.renewTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(lease?.leaseDurationSeconds, 40);
    // Only a lease never renewed counts from its creation: a renewed one keeps no creation time.
    assert.equal(lease?.createdAt, undefined);
    const never = names[1] as string;
    cluster.setLeaseField(never, { renewTime: null });
    try {
      const unrenewed = (await readerFor(server.kubeconfig()).read()).leases.find(
        (l) => l.name === never,
      );
      assert.equal(unrenewed?.renewTime, null);
      assert.match(unrenewed?.createdAt ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    } finally {
      cluster.clearLeaseOverrides(never);
    }
    assert.equal(node?.ready, 'False');
    assert.equal(node?.readyReason, 'KubeletNotReady');
    assert.ok(
      node?.taints.some((t) => t.key === 'karpenter.sh/disrupted' && t.effect === 'NoSchedule'),
    );
    assert.match(node?.labels['topology.kubernetes.io/zone'] ?? '', /^eu-west-1[abc]$/);
    assert.match(node?.providerID ?? '', /^aws:\/\/\//);
  });

  it('keeps only the Node labels it is asked for', async () => {
    const snapshot = await readerFor(server.kubeconfig(), {
      labelKeys: ['topology.kubernetes.io/zone', 'absent'],
    }).read();
    const node = snapshot.nodes?.[0];
    assert.deepEqual(Object.keys(node?.labels ?? {}), ['topology.kubernetes.io/zone']);
    const all = await readerFor(server.kubeconfig()).read();
    assert.ok(Object.keys(all.nodes?.[0]?.labels ?? {}).length > 3, 'all labels by default');
  });

  describe('with a node cache', () => {
    it('lists Nodes only when the cache is stale, and reads afresh just the nodes the leases or the Table single out', async () => {
      let now = 0;
      const cache = new NodeCache(60_000, () => now);
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(server.kubeconfig());
      const reader = new KubeClusterReader({
        kubeConfig,
        cluster: 'sim',
        namespace: 'kube-node-lease',
        nodeCache: cache,
      });
      const first = await reader.read();
      assert.equal(first.stats?.requests, 10, '5 pages of leases, 5 of nodes');

      // Between full lists: one node dies and is tainted; a healthy one is cordoned, another tainted.
      const [silent, healthy, tainted] = [
        names[10] as string,
        names[11] as string,
        names[12] as string,
      ];
      const taint = { key: 'example.com/maintenance', effect: 'NoSchedule' };
      cluster.stopKubelet(silent);
      cluster.setLeaseField(silent, {
        renewTime: new Date(Date.now() - 120_000).toISOString().replace('Z', '000Z'),
      });
      cluster.addTaint(silent, taint);
      cluster.cordon(healthy);
      cluster.addTaint(tainted, taint);
      now = 30_000;
      server.resetStats();
      const second = await reader.read();
      const fresh = (name: string) => second.nodes?.find((n) => n.name === name);
      const gets = server.sent.filter((a) => a.url.startsWith('/api/v1/nodes/')).map((a) => a.url);
      assert.ok(gets.includes(`/api/v1/nodes/${silent}`), 'the silent node is read afresh');
      assert.ok(gets.includes(`/api/v1/nodes/${healthy}`), 'the Table shows it cordoned');
      assert.ok(
        !gets.includes(`/api/v1/nodes/${tainted}`),
        'a healthy tainted node is not re-read',
      );
      assert.deepEqual(
        server.sent
          .filter((a) => a.url.startsWith('/api/v1/nodes?'))
          .map((a) => a.accept?.includes('as=Table')),
        [true, true],
        'two pages of the Table of Nodes (2,000 rows a page), no whole Node list',
      );
      assert.equal(second.nodes?.length, 2_345);
      assert.ok(
        fresh(silent)?.taints.some((t) => t.key === taint.key),
        'the silent node was read afresh',
      );
      assert.equal(fresh(healthy)?.unschedulable, true, 'the Table showed the cordon');
      assert.ok(
        !fresh(tainted)?.taints.some((t) => t.key === taint.key),
        "a healthy node's taints are as of the last full list",
      );

      now = 61_000;
      const third = await reader.read();
      assert.equal(third.stats?.requests, 10, 'a full list once the cache is stale');
      assert.equal(third.nodes?.find((n) => n.name === healthy)?.unschedulable, true);
      assert.ok(
        third.nodes?.find((n) => n.name === tainted)?.taints.some((t) => t.key === taint.key),
      );
      cluster.removeTaint(silent, taint.key);
      cluster.removeTaint(tainted, taint.key);
      cluster.cordon(healthy, false);
      cluster.clearLeaseOverrides(silent);
      cluster.startKubelet(silent);
    });

    it('with a short grace, re-reads a node whose lease is older than the grace but younger than 20 s', async () => {
      // The demo's 6 s grace: a lease 10 s old is expired, yet under the default 20 s suspect age.
      const grace = 6;
      assert.equal(suspectAgeFor(grace), 3_000);
      let now = 0;
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(server.kubeconfig());
      const readerWith = (suspectAfterMs: number | undefined) =>
        new KubeClusterReader({
          kubeConfig,
          cluster: 'sim',
          namespace: 'kube-node-lease',
          nodeCache: new NodeCache(60_000, () => now),
          suspectAfterMs,
        });
      const [short, long] = [readerWith(suspectAgeFor(grace)), readerWith(undefined)];
      await short.read();
      await long.read();

      const silent = names[20] as string;
      cluster.stopKubelet(silent);
      cluster.setLeaseField(silent, {
        renewTime: new Date(Date.now() - 10_000).toISOString().replace('Z', '000Z'),
      });
      // After the full list, and not in the Table of Nodes: only a fresh read can know.
      cluster.addTaint(silent, { key: 'example.com/maintenance', effect: 'NoSchedule' });
      try {
        now = 30_000;
        const tainted = async (reader: KubeClusterReader) =>
          (await reader.read()).nodes
            ?.find((n) => n.name === silent)
            ?.taints.some((t) => t.key === 'example.com/maintenance');
        assert.equal(await tainted(short), true, 'read afresh: its lease is past grace / 2');
        assert.equal(await tainted(long), false, 'by default, 10 s is not yet suspect');
      } finally {
        cluster.removeTaint(silent, 'example.com/maintenance');
        cluster.clearLeaseOverrides(silent);
        cluster.startKubelet(silent);
      }
    });

    it('suspects a lease from the suspect age on, min(20 s, grace / 2) from the grace period', () => {
      const at = Date.UTC(2026, 10, 29, 12, 0, 0);
      const nodes = new Map(
        ['a', 'b'].map((name) => [name, { name, labels: {}, unschedulable: false, taints: [] }]),
      );
      const leases = [
        { name: 'a', renewTime: new Date(at - 2_999).toISOString(), leaseDurationSeconds: 40 },
        { name: 'b', renewTime: new Date(at - 3_000).toISOString(), leaseDurationSeconds: 40 },
      ];
      assert.deepEqual(suspectNodes(leases, nodes, at, { suspectAfterMs: 3_000 }), ['b']);
      assert.deepEqual(suspectNodes(leases, nodes, at), [], 'default: 20 s');
      assert.equal(suspectAgeFor(50), SUSPECT_AGE_MS);
      assert.equal(suspectAgeFor(40), SUSPECT_AGE_MS);
      assert.equal(suspectAgeFor(30), 15_000);
    });

    it('rejects a negative suspect age', () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(server.kubeconfig());
      assert.throws(
        () =>
          new KubeClusterReader({ kubeConfig, cluster: 'sim', namespace: 'x', suspectAfterMs: -1 }),
        /suspectAfterMs must be a number of milliseconds, 0 or more \(got -1\)/,
      );
    });

    it('picks as suspects the old, unreadable, new and lease-less', () => {
      const at = Date.UTC(2026, 10, 29, 12, 0, 0);
      const fresh = new Date(at - 5_000).toISOString();
      const nodes = new Map(
        ['ok', 'old', 'garbage', 'no-lease'].map((name) => [
          name,
          { name, labels: {}, unschedulable: false, taints: [] },
        ]),
      );
      const leases = [
        { name: 'ok', renewTime: fresh, leaseDurationSeconds: 40 },
        { name: 'old', renewTime: new Date(at - 20_000).toISOString(), leaseDurationSeconds: 40 },
        { name: 'garbage', renewTime: 'yesterday', leaseDurationSeconds: 40 },
        { name: 'new', renewTime: fresh, leaseDurationSeconds: 40 },
      ];
      assert.deepEqual(suspectNodes(leases, nodes, at).sort(), [
        'garbage',
        'new',
        'no-lease',
        'old',
      ]);
    });

    it('finds a lease-less node whether the leases come sorted, out of order or twice', () => {
      const at = Date.UTC(2026, 10, 29, 12, 0, 0);
      const fresh = new Date(at - 5_000).toISOString();
      const nodes = new Map(
        ['a', 'b', 'c'].map((name) => [
          name,
          { name, labels: {}, unschedulable: false, taints: [] },
        ]),
      );
      const lease = (name: string) => ({ name, renewTime: fresh, leaseDurationSeconds: 40 });
      const suspects = (names: string[]) =>
        suspectNodes(names.map(lease), nodes, at).sort().join(',');
      assert.equal(suspects(['a', 'b', 'c']), '', 'sorted, one lease each');
      assert.equal(suspects(['c', 'a', 'b']), '', 'out of order, one lease each');
      assert.equal(suspects(['a', 'c']), 'b', 'sorted');
      assert.equal(suspects(['c', 'a']), 'b', 'out of order');
      // As many leases with a Node as there are Nodes, and still one Node without a lease.
      assert.equal(suspects(['a', 'a', 'c']), 'b', 'a name twice, sorted');
      assert.equal(suspects(['c', 'a', 'c']), 'b', 'a name twice, out of order');
      assert.equal(suspects(['a', 'b', 'c', 'd']), 'd', 'an orphan lease');
    });
  });

  describe('failures: one typed error with one clear line each', () => {
    it('connection refused → unreachable', async () => {
      const port = await closedPort();
      const yaml = server.kubeconfig().replace(server.url, `https://127.0.0.1:${port}`);
      const error = await failure(readerFor(yaml).read());
      assert.equal(error.failure, 'unreachable');
      assert.match(
        error.message,
        new RegExp(`cannot reach the API server at 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`),
      );
    });

    it('a CA that did not sign the server certificate → tls', async () => {
      const error = await failure(readerFor(server.kubeconfig({ withCa: false })).read());
      assert.equal(error.failure, 'tls');
      assert.match(error.message, /TLS verification of 127\.0\.0\.1:\d+ failed/);
      assert.match(error.message, /certificate-authority-data/);
    });

    it('a wrong token → unauthorized, without the token in the message', async () => {
      const error = await failure(
        readerFor(server.kubeconfig({ token: 'wrong-token-value' })).read(),
      );
      assert.equal(error.failure, 'unauthorized');
      assert.equal(error.statusCode, 401);
      assert.match(error.message, /rejected the credentials \(401 Unauthorized\)/);
      assert.doesNotMatch(error.message, /wrong-token-value|sim-secret-token/);
    });

    it('403 on leases → forbidden, naming the verb, resource and namespace', async () => {
      server.setFault({ kind: 'status', status: 403, resource: 'leases' });
      try {
        const error = await failure(readerFor(server.kubeconfig()).read());
        assert.equal(error.failure, 'forbidden');
        assert.match(error.message, /cannot list leases in namespace kube-node-lease/);
        assert.match(error.message, /deploy\/rbac\.yaml/);
      } finally {
        server.setFault(null);
      }
    });

    it('403 on nodes only → the check runs on leases alone and says it is degraded', async () => {
      server.setFault({ kind: 'status', status: 403, resource: 'nodes' });
      try {
        const snapshot = await readerFor(server.kubeconfig()).read();
        assert.equal(snapshot.nodes, null);
        assert.equal(snapshot.leases.length, 2_345);
        assert.match(
          snapshot.degraded ?? '',
          /cannot list nodes \(403 Forbidden\).*checked leases alone/,
        );
      } finally {
        server.setFault(null);
      }
    });

    it('a namespace that does not exist → not-found', async () => {
      const error = await failure(
        readerFor(server.kubeconfig(), { namespace: 'no-such-namespace' }).read(),
      );
      assert.equal(error.failure, 'not-found');
      assert.match(error.message, /namespace no-such-namespace not found \(404\)/);
    });

    for (const status of [500, 503]) {
      it(`${status} → server`, async () => {
        server.setFault({ kind: 'status', status });
        try {
          const error = await failure(readerFor(server.kubeconfig()).read());
          assert.equal(error.failure, 'server');
          assert.equal(error.statusCode, status);
          assert.match(error.message, new RegExp(`answered ${status}`));
        } finally {
          server.setFault(null);
        }
      });
    }

    it('an API server that hangs → timeout after the request timeout', async () => {
      server.setFault({ kind: 'hang' });
      try {
        const error = await failure(readerFor(server.kubeconfig(), { timeoutMs: 300 }).read());
        assert.equal(error.failure, 'timeout');
        assert.match(error.message, /no answer from 127\.0\.0\.1:\d+ within 0\.3s/);
      } finally {
        server.setFault(null);
      }
    });

    it('connections closed without an answer → unreachable', async () => {
      server.setFault({ kind: 'close' });
      try {
        const error = await failure(readerFor(server.kubeconfig()).read());
        assert.equal(error.failure, 'unreachable');
      } finally {
        server.setFault(null);
      }
    });

    it("the caller's abort signal ends the read → aborted", async () => {
      server.setFault({ kind: 'hang' });
      try {
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 100);
        const error = await failure(
          readerFor(server.kubeconfig(), { timeoutMs: 10_000 }).read(controller.signal),
        );
        assert.equal(error.failure, 'aborted');
      } finally {
        server.setFault(null);
      }
    });

    it('a kubeconfig whose exec credential plugin is not installed → exec-plugin, naming it', async () => {
      const yaml = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: { server: "${server.url}" }
users:
- name: eks-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws-iam-authenticator-not-installed
      args: [token, -i, prod]
contexts:
- name: ctx
  context: { cluster: c, user: eks-user }
current-context: ctx
`;
      const error = await failure(readerFor(yaml).read());
      assert.equal(error.failure, 'exec-plugin');
      assert.match(
        error.message,
        /needs the credential plugin "aws-iam-authenticator-not-installed", which is not installed/,
      );
    });
  });
});
