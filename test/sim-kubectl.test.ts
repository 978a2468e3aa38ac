/**
 * kubectl fidelity: the installed kubectl talks to the simulated cluster and prints what it holds.
 * Skipped, with a visible message, on a machine without kubectl.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import type { SimServer } from '../sim/server.js';
import { nodeStatusCell } from '../sim/table.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';

const NS = 'kube-node-lease';
const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const missing = probe.error ? `kubectl not installed: ${probe.error.message}` : undefined;

describe('kubectl against the simulated cluster', () => {
  let sim: SimFixture | undefined;
  let dir: string;
  let server: SimServer | undefined;
  let cluster: SimCluster;
  let names: string[];
  // A frozen clock, so what kubectl prints and what the sim holds are the same instant.
  const now = Date.now();

  before(async () => {
    if (missing) return;
    cluster = new SimCluster({ now: () => now, seed: 11 });
    // More than kubectl's page size (500), so kubectl follows `continue`.
    names = cluster.addNodes(620);
    cluster.cordon(names[1] as string);
    cluster.setReady(names[2] as string, 'False');
    cluster.setReady(names[3] as string, 'Unknown');
    cluster.cordon(names[3] as string);
    sim = await startSimFixture(cluster, { prefix: 'sim-kubectl' });
    ({ dir, server } = sim);
  });
  after(() => sim?.close());

  function kubectl(...args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        'kubectl',
        ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args],
        {
          env: { ...process.env, HOME: dir, KUBECONFIG: '' },
          maxBuffer: 64 * 1024 * 1024,
          timeout: 60_000,
        },
        (err, stdout, stderr) => {
          if (err) reject(new Error(`kubectl ${args.join(' ')} failed: ${err.message}\n${stderr}`));
          else resolve(stdout);
        },
      );
    });
  }

  function rows(output: string): string[][] {
    return output
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
  }

  test('kubectl get nodes prints every node with its status', async (t) => {
    if (missing) return t.skip(missing);
    const [header, ...lines] = rows(await kubectl('get', 'nodes'));
    assert.deepEqual(header, ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    assert.deepEqual(new Set(lines.map((r) => r[0])), new Set(names));
    const status = new Map(lines.map((r) => [r[0], r[1]]));
    assert.equal(status.get(names[0]), 'Ready');
    assert.equal(status.get(names[1]), 'Ready,SchedulingDisabled');
    assert.equal(status.get(names[2]), 'NotReady');
  });

  test('kubectl get nodes -o wide pages the Table of Nodes with limit and continue', async (t) => {
    if (missing || !server) return t.skip(missing);
    server.resetStats();
    const [header, ...lines] = rows(
      await kubectl('get', 'nodes', '-o', 'wide', '--chunk-size=200'),
    );
    assert.deepEqual(header?.slice(0, 7), [
      'NAME',
      'STATUS',
      'ROLES',
      'AGE',
      'VERSION',
      'INTERNAL-IP',
      'EXTERNAL-IP',
    ]);
    assert.deepEqual(new Set(lines.map((r) => r[0])), new Set(names));
    const status = new Map(lines.map((r) => [r[0], r[1]]));
    assert.equal(
      status.get(names[3]),
      'NotReady,SchedulingDisabled',
      'Ready=Unknown prints NotReady',
    );
    const pages = server.sent.filter((a) => a.url.startsWith('/api/v1/nodes?'));
    assert.equal(pages.length, 4, '620 rows, 200 a page');
    for (const page of pages) assert.match(page.accept ?? '', /as=Table;v=v1;g=meta\.k8s\.io/);
    assert.equal(pages.filter((p) => /[?&]continue=/.test(p.url)).length, 3);
  });

  test("the Status cell is kube-apiserver's: Unknown without a Ready condition", () => {
    const own = new SimCluster({ seed: 3 });
    const node = own.nodeObject(own.addNodes(1)[0] as string);
    assert.ok(node);
    assert.equal(nodeStatusCell(node), 'Ready');
    const without = { ...node, status: { ...node.status, conditions: [] } };
    assert.equal(nodeStatusCell(without), 'Unknown');
    const cordoned = { ...without, spec: { ...without.spec, unschedulable: true } };
    assert.equal(nodeStatusCell(cordoned), 'Unknown,SchedulingDisabled');
  });

  test('kubectl get leases -n kube-node-lease prints every lease and holder', async (t) => {
    if (missing) return t.skip(missing);
    const [header, ...lines] = rows(await kubectl('get', 'leases', '-n', NS));
    assert.deepEqual(header, ['NAME', 'HOLDER', 'AGE']);
    assert.equal(lines.length, names.length);
    for (const [name, holder] of lines) assert.equal(holder, name);
  });

  test('kubectl get lease <name> -o yaml prints the sim renewTime', async (t) => {
    if (missing) return t.skip(missing);
    const name = names[7] as string;
    const yaml = await kubectl('get', 'lease', name, '-n', NS, '-o', 'yaml');
    const lease = cluster.leaseObject(NS, name);
    assert.match(String(lease?.spec.renewTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(yaml.includes(`renewTime: "${lease?.spec.renewTime}"`), yaml);
    assert.ok(yaml.includes(`holderIdentity: ${name}`), yaml);
    assert.ok(yaml.includes('kind: Lease'), yaml);
  });

  test('kubectl get leases -o json pages through the whole list', async (t) => {
    if (missing) return t.skip(missing);
    const list = JSON.parse(await kubectl('get', 'leases', '-n', NS, '-o', 'json')) as {
      items: { metadata: { name: string }; spec: { renewTime: string } }[];
    };
    assert.equal(list.items.length, names.length);
    for (const item of list.items) {
      assert.equal(
        item.spec.renewTime,
        cluster.leaseObject(NS, item.metadata.name)?.spec.renewTime,
      );
    }
  });
});
