/**
 * An object whose name breaks the API's own limit (Kubernetes names are at most 253 characters):
 * a node and its lease named with 1 MiB of characters, in a 5-node simulated cluster read over
 * HTTPS. `check` (in process) reports it `invalid`, never paged, with its name cut, in the table
 * and in JSON: the output stays the size of five nodes, not of the name.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { FakeClock } from '../testkit/fake-clock.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';

const LONG = 'n'.repeat(1 << 20);

describe('lease-watchdog check: a name longer than Kubernetes allows', () => {
  const clock = new FakeClock();
  let sim: SimFixture;
  before(async () => {
    const cluster = new SimCluster({ seed: 11, now: clock.now });
    cluster.addNodes(4, { zones: ['eu-west-1a'] });
    cluster.addNode({ name: LONG, zone: 'eu-west-1a', createdAt: clock.now() - 3600_000 });
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-long-names' });
  });
  after(() => sim.close());

  it('is invalid, its name cut, in JSON and in the table; nothing pages', async () => {
    const json = await runInProcess(['check', '--kubeconfig', sim.kubeconfig, '-o', 'json'], {
      clock,
    });
    assert.equal(json.code, 0, json.stderr);
    assert.ok(json.stdout.length < 16_000, `${json.stdout.length} bytes of JSON`);
    const { nodes } = JSON.parse(json.stdout) as {
      nodes: { name: string; verdict: string; reason: string }[];
    };
    assert.equal(nodes.length, 5);
    const invalid = nodes.filter((n) => n.verdict === 'invalid');
    assert.equal(invalid.length, 1, JSON.stringify(nodes.map((n) => n.verdict)));
    const [node] = invalid;
    assert.ok(node && node.name.length <= 253, `a name of ${node?.name.length} characters`);
    assert.ok(node.name.startsWith('nnnn'));
    assert.match(node.reason, /name is 1048576 characters.*at most 253/);

    const table = await runInProcess(['check', '--kubeconfig', sim.kubeconfig], { clock });
    assert.equal(table.code, 0, table.stderr);
    assert.ok(table.stdout.length < 16_000, `${table.stdout.length} bytes of table`);
    assert.match(table.stdout, /invalid/);
  });
});
