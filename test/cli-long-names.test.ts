/**
 * An object whose name breaks the API's own limit (Kubernetes names are at most 253 characters):
 * a node and its lease named with 1 MiB of characters, and one whose cut falls inside an emoji, in
 * a 6-node simulated cluster read over HTTPS. `check` (in process) reports it `invalid`, never paged, with its name cut, in the table
 * and in JSON: the output stays the size of five nodes, not of the name.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { FakeClock } from '../testkit/fake-clock.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';

const LONG = 'n'.repeat(1 << 20);
/** A name whose cut (its first 200 UTF-16 units) would fall inside the emoji's surrogate pair. */
const LONG_EMOJI = `${'m'.repeat(199)}😀${'m'.repeat(300)}`;

describe('lease-watchdog check: a name longer than Kubernetes allows', () => {
  const clock = new FakeClock();
  let sim: SimFixture;
  before(async () => {
    const cluster = new SimCluster({ seed: 11, now: clock.now });
    cluster.addNodes(4, { zones: ['eu-west-1a'] });
    cluster.addNode({ name: LONG, zone: 'eu-west-1a', createdAt: clock.now() - 3600_000 });
    cluster.addNode({ name: LONG_EMOJI, zone: 'eu-west-1a', createdAt: clock.now() - 3600_000 });
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-long-names' });
  });
  after(() => sim.close());

  it('is invalid, its name cut, in JSON and in the table; nothing pages', async () => {
    const json = await runInProcess(['check', '--kubeconfig', sim.kubeconfig, '-o', 'json'], {
      clock,
    });
    assert.equal(json.code, 0, json.stderr);
    assert.ok(json.stdout.length < 18_000, `${json.stdout.length} bytes of JSON`);
    const { nodes } = JSON.parse(json.stdout) as {
      nodes: { name: string; verdict: string; reason: string }[];
    };
    assert.equal(nodes.length, 6);
    const invalid = nodes.filter((n) => n.verdict === 'invalid');
    assert.equal(invalid.length, 2, JSON.stringify(nodes.map((n) => n.verdict)));
    for (const { name } of invalid) {
      assert.ok(name.length <= 253, `a name of ${name.length} characters`);
      // Cut on code points: no half of a surrogate pair (JSON would carry it as a lone \ud83d).
      assert.ok(name.isWellFormed(), `a lone surrogate in ${JSON.stringify(name.slice(190, 202))}`);
    }
    const node = invalid.find((n) => n.name.startsWith('nnnn'));
    assert.match(node?.reason ?? '', /name is 1048576 characters.*at most 253/);

    const table = await runInProcess(['check', '--kubeconfig', sim.kubeconfig], { clock });
    assert.equal(table.code, 0, table.stderr);
    assert.ok(table.stdout.length < 16_000, `${table.stdout.length} bytes of table`);
    assert.match(table.stdout, /invalid/);
  });
});
