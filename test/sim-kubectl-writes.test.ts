/**
 * kubectl writes against the simulated cluster: cordon, label, annotate, taint, patch, delete,
 * describe node and get events, and the annotation that drives a node's simulated kubelet. Each
 * effect is checked through the API (GET of the node or lease as JSON). Runs with the kubectl
 * dispatcher and with the oldest pinned client (1.27) when it is installed; skipped, with a
 * visible message, on a machine without kubectl.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import type { SimServer } from '../sim/server.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';

const NS = 'kube-node-lease';
const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const missing = probe.error ? `kubectl not installed: ${probe.error.message}` : undefined;
const PINNED = '/usr/lib/google-cloud-sdk/bin/kubectl.1.27';
const CLIENTS = ['kubectl', ...(existsSync(PINNED) ? [PINNED] : [])];

interface Json {
  // biome-ignore lint/suspicious/noExplicitAny: test reads arbitrary API JSON
  [key: string]: any;
}

for (const bin of CLIENTS) {
  describe(`kubectl writes (${bin})`, () => {
    let sim: SimFixture | undefined;
    let dir: string;
    let server: SimServer | undefined;
    let cluster: SimCluster;
    // A clock the tests move, so kubelet silences and event ages are exact.
    let now = Date.parse('2026-11-30T12:00:00Z');

    before(async () => {
      if (missing) return;
      cluster = new SimCluster({ now: () => now, seed: 5, jitter: false });
      cluster.addNodes(6, { prefix: 'node-' });
      sim = await startSimFixture(cluster, { prefix: 'sim-kubectl-writes' });
      ({ dir, server } = sim);
    });
    after(() => sim?.close());

    function kubectl(...args: string[]): Promise<string> {
      return new Promise((resolve, reject) => {
        execFile(
          bin,
          ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args],
          { env: { ...process.env, HOME: dir, KUBECONFIG: '' }, timeout: 20_000 },
          (err, stdout, stderr) => {
            if (err)
              reject(new Error(`kubectl ${args.join(' ')} failed: ${err.message}\n${stderr}`));
            else resolve(stdout);
          },
        );
      });
    }

    function get(path: string): Promise<{ status: number; body: Json }> {
      const s = server as SimServer;
      return new Promise((resolve, reject) => {
        const req = request(
          `${s.url}${path}`,
          { ca: s.caPem, headers: { Authorization: `Bearer ${s.token}` } },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => {
              text += c.toString('utf8');
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    }

    const node = async (name: string) => (await get(`/api/v1/nodes/${name}`)).body;
    const lease = async (name: string) =>
      (await get(`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/${name}`)).body;
    const ready = (n: Json) => n.status.conditions.find((c: Json) => c.type === 'Ready');

    test('cordon and uncordon set spec.unschedulable and bump the resourceVersion', async (t) => {
      if (missing) return t.skip(missing);
      const rv = Number((await node('node-1')).metadata.resourceVersion);
      assert.match(await kubectl('cordon', 'node-1'), /cordoned/);
      const cordoned = await node('node-1');
      assert.equal(cordoned.spec.unschedulable, true);
      assert.ok(
        cordoned.spec.taints.some((x: Json) => x.key === 'node.kubernetes.io/unschedulable'),
      );
      assert.ok(Number(cordoned.metadata.resourceVersion) > rv);
      const listed = (await get('/api/v1/nodes')).body.items.find(
        (n: Json) => n.metadata.name === 'node-1',
      );
      assert.equal(listed.spec.unschedulable, true, 'a plain JSON list sees the cordon');
      await kubectl('uncordon', 'node-1');
      const back = await node('node-1');
      assert.equal(back.spec.unschedulable, undefined);
      assert.equal(back.spec.taints, undefined);
    });

    test('label and annotate add keys; a trailing dash removes them', async (t) => {
      if (missing) return t.skip(missing);
      await kubectl('label', 'node', 'node-2', 'team=storage');
      await kubectl('annotate', 'node', 'node-2', 'owner=alice');
      let n = await node('node-2');
      assert.equal(n.metadata.labels.team, 'storage');
      assert.equal(n.metadata.labels['kubernetes.io/hostname'], 'node-2');
      assert.equal(n.metadata.annotations.owner, 'alice');
      const selected = (await get('/api/v1/nodes?labelSelector=team%3Dstorage')).body.items;
      assert.deepEqual(
        selected.map((x: Json) => x.metadata.name),
        ['node-2'],
      );
      await kubectl('label', 'node', 'node-2', 'team-');
      await kubectl('annotate', 'node', 'node-2', 'owner-');
      n = await node('node-2');
      assert.equal(n.metadata.labels.team, undefined);
      assert.equal(n.metadata.annotations.owner, undefined);
      assert.equal(n.metadata.annotations['node.alpha.kubernetes.io/ttl'], '0');
    });

    test('taint and untaint write spec.taints', async (t) => {
      if (missing) return t.skip(missing);
      await kubectl('taint', 'node', 'node-3', 'dedicated=gpu:NoSchedule');
      assert.deepEqual((await node('node-3')).spec.taints, [
        { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      ]);
      await kubectl('taint', 'node', 'node-3', 'dedicated=gpu:NoSchedule-');
      assert.equal((await node('node-3')).spec.taints, undefined);
    });

    test('kubectl patch with a JSON patch and a merge patch', async (t) => {
      if (missing) return t.skip(missing);
      await kubectl(
        'patch',
        'node',
        'node-3',
        '--type',
        'json',
        '-p',
        '[{"op":"add","path":"/metadata/labels/zone-class","value":"fast"}]',
      );
      assert.equal((await node('node-3')).metadata.labels['zone-class'], 'fast');
      await kubectl(
        'patch',
        'node',
        'node-3',
        '--type',
        'merge',
        '-p',
        '{"metadata":{"labels":{"zone-class":null}}}',
      );
      assert.equal((await node('node-3')).metadata.labels['zone-class'], undefined);
    });

    test('the kubelet annotation stops, restarts and un-readies the simulated kubelet', async (t) => {
      if (missing) return t.skip(missing);
      const key = 'sim.lease-watchdog.io/kubelet';
      const renewed = (await lease('node-4')).spec.renewTime;
      await kubectl('annotate', '--overwrite', 'node', 'node-4', `${key}=stopped`);
      assert.equal(cluster.kubeletAlive('node-4'), false);
      now += 120_000;
      assert.equal((await lease('node-4')).spec.renewTime, renewed, 'no renewal while stopped');
      assert.equal(ready(await node('node-4')).status, 'Unknown');

      await kubectl('annotate', '--overwrite', 'node', 'node-4', `${key}=running`);
      now += 1_000;
      const running = await lease('node-4');
      assert.ok(Date.parse(running.spec.renewTime) > Date.parse(renewed), 'renewing again');
      assert.equal(ready(await node('node-4')).status, 'True');

      await kubectl('annotate', '--overwrite', 'node', 'node-4', `${key}=not-ready`);
      now += 30_000;
      const notReady = ready(await node('node-4'));
      assert.equal(notReady.status, 'False');
      assert.equal(notReady.reason, 'KubeletNotReady');
      assert.ok(
        Date.parse((await lease('node-4')).spec.renewTime) > Date.parse(running.spec.renewTime),
      );
      await kubectl('annotate', '--overwrite', 'node', 'node-4', `${key}=running`);
      assert.equal(ready(await node('node-4')).status, 'True');
    });

    test('describe node and get events show the node lifecycle', async (t) => {
      if (missing) return t.skip(missing);
      cluster.addNode({ name: 'fresh-node' });
      now += 5_000;
      cluster.stopKubelet('fresh-node');
      now += 60_000;
      const described = await kubectl('describe', 'node', 'fresh-node');
      assert.match(described, /Non-terminated Pods:\s+\(0 in total\)/);
      for (const reason of ['Starting', 'RegisteredNode', 'NodeNotReady']) {
        assert.match(described, new RegExp(`Normal\\s+${reason}\\s`), described);
      }
      const events = JSON.parse(
        await kubectl(
          'get',
          'events',
          '-A',
          '--field-selector',
          'involvedObject.name=fresh-node',
          '-o',
          'json',
        ),
      ).items as Json[];
      const byReason = new Map(events.map((e) => [e.reason, e]));
      assert.deepEqual([...byReason.keys()].sort(), ['NodeNotReady', 'RegisteredNode', 'Starting']);
      const notReady = byReason.get('NodeNotReady') as Json;
      assert.equal(notReady.source.component, 'node-controller');
      assert.equal(notReady.involvedObject.kind, 'Node');
      assert.equal(notReady.count, 1);
      assert.equal(notReady.metadata.namespace, 'default');
      assert.equal((byReason.get('Starting') as Json).source.component, 'kubelet');
      assert.ok(
        Date.parse(notReady.firstTimestamp) >
          Date.parse((byReason.get('Starting') as Json).firstTimestamp),
      );

      cluster.startKubelet('fresh-node');
      const table = await kubectl(
        'get',
        'events',
        '--field-selector',
        'involvedObject.name=fresh-node',
      );
      assert.match(table, /NodeReady\s+node\/fresh-node/);
    });

    test('delete node returns promptly and the node and its lease are gone', async (t) => {
      if (missing) return t.skip(missing);
      const started = Date.now();
      assert.match(await kubectl('delete', 'node', 'node-5'), /deleted/);
      assert.ok(Date.now() - started < 15_000);
      assert.equal((await get('/api/v1/nodes/node-5')).status, 404);
      assert.equal(
        (await get(`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/node-5`)).status,
        404,
        'the garbage collector takes the lease with its node',
      );
      const names = (await get('/api/v1/nodes')).body.items.map((n: Json) => n.metadata.name);
      assert.ok(!names.includes('node-5'));
    });

    test('server-side dry runs change nothing', async (t) => {
      if (missing) return t.skip(missing);
      assert.match(await kubectl('delete', 'node', 'node-1', '--dry-run=server'), /server dry run/);
      await kubectl('cordon', 'node-1', '--dry-run=server');
      await kubectl('delete', 'lease', '-n', NS, 'node-1', '--dry-run=server');
      const n = await node('node-1');
      assert.equal(n.spec.unschedulable, undefined);
      assert.equal(
        (await get(`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/node-1`)).status,
        200,
      );
    });

    test('a watch on one node streams ADDED, then DELETED when kubectl deletes it', async (t) => {
      if (missing) return t.skip(missing);
      const s = server as SimServer;
      const lines: Json[] = [];
      let wake = () => {};
      const req = request(
        `${s.url}/api/v1/nodes?watch=true&fieldSelector=metadata.name%3Dnode-2&timeoutSeconds=20`,
        { ca: s.caPem, headers: { Authorization: `Bearer ${s.token}` } },
        (res) => {
          let buf = '';
          res.on('data', (c: Buffer) => {
            buf += c.toString('utf8');
            for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
              lines.push(JSON.parse(buf.slice(0, i)));
              buf = buf.slice(i + 1);
              wake();
            }
          });
        },
      );
      req.end();
      const next = async (count: number) => {
        const deadline = Date.now() + 10_000;
        while (lines.length < count && Date.now() < deadline) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, 200);
          });
        }
      };
      try {
        await next(1);
        assert.equal(lines[0]?.type, 'ADDED');
        assert.equal(lines[0]?.object.metadata.name, 'node-2');
        await kubectl('delete', 'node', 'node-2');
        await next(2);
        assert.equal(lines.at(-1)?.type, 'DELETED');
        assert.equal(lines.at(-1)?.object.metadata.name, 'node-2');
      } finally {
        req.destroy();
      }
    });

    test('delete lease removes it from kube-node-lease', async (t) => {
      if (missing) return t.skip(missing);
      assert.match(await kubectl('delete', 'lease', '-n', NS, 'node-6'), /deleted/);
      assert.equal(
        (await get(`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/node-6`)).status,
        404,
      );
      assert.equal((await get('/api/v1/nodes/node-6')).status, 200, 'the node stays');
    });
  });
}
