/**
 * `lease-watchdog watch` in process against the simulated cluster (on a fake clock), on the default
 * `--node-refresh` (900 s): whole Nodes are listed by the first check only, later checks read the
 * leases and the Table of Nodes, and a node that turns NotReady after the first check (its lease
 * still fresh) is paged by the next one. `--node-refresh 0` still lists whole Nodes every check.
 * `check` reads the leases and the Nodes over one connection.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import type { SentAnswer, SimServer } from '../sim/server.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { FakeClock } from '../testkit/fake-clock.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';

function nodeLists(sent: readonly SentAnswer[]): { whole: number; table: number } {
  const lists = sent.filter((a) => a.url.startsWith('/api/v1/nodes?'));
  const table = lists.filter((a) => /as=Table/.test(a.accept ?? '')).length;
  return { whole: lists.length - table, table };
}

describe('lease-watchdog watch: the API server cost per check', () => {
  const clock = new FakeClock();
  let sim: SimFixture;
  let cluster: SimCluster;
  let names: string[];
  let server: SimServer;
  let kubeconfig: string;
  before(async () => {
    cluster = new SimCluster({ seed: 7, now: clock.now });
    names = cluster.addNodes(9, { zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] });
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-cli-api-cost' });
    ({ server, kubeconfig } = sim);
  });
  after(() => sim.close());

  const runCli = (args: string[]) => runInProcess(args, { clock });

  it('lists whole Nodes once, then the Table, and pages a node turning NotReady at the next check', async () => {
    const node = names[4] as string;
    server.resetStats();
    // Once the first check has read the Nodes (between the two checks, 2 s apart on the clock),
    // the node turns NotReady (its kubelet still renews).
    let wholeBefore: number | undefined;
    clock.at(clock.now() + 1_000, () => {
      wholeBefore = nodeLists(server.sent).whole;
      cluster.setReady(node, 'False', 'KubeletNotReady');
    });
    const result = await runCli([
      'watch',
      '--kubeconfig',
      kubeconfig,
      '--interval',
      '2',
      '--checks',
      '2',
    ]);
    assert.equal(wholeBefore, 1, 'the first check read whole Nodes before the node turned');
    cluster.setReady(node, 'True');
    assert.deepEqual(nodeLists(server.sent), { whole: 1, table: 1 }, result.stderr);
    assert.deepEqual(
      server.sent.filter((a) => a.url.startsWith('/api/v1/nodes/')).map((a) => a.url),
      [`/api/v1/nodes/${node}`],
      'the node the Table shows NotReady is read afresh',
    );
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, new RegExp(`FIRING[\\s\\S]*${node.replace(/\./g, '\\.')}`));
    assert.match(result.stdout, /not-ready|KubeletNotReady/);
  });

  it('with --node-refresh 0 lists whole Nodes on every check', async () => {
    server.resetStats();
    const result = await runCli([
      'watch',
      '--kubeconfig',
      kubeconfig,
      '--interval',
      '0.2',
      '--checks',
      '3',
      '--node-refresh',
      '0',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(nodeLists(server.sent), { whole: 3, table: 0 });
  });

  it('check asks for the leases and the Nodes over one connection: one TLS handshake', async () => {
    server.resetStats();
    const result = await runCli(['check', '--kubeconfig', kubeconfig, '-o', 'json']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(nodeLists(server.sent).whole, 1);
    assert.equal(server.sent.filter((a) => a.url.includes('/leases?')).length, 1);
    assert.equal(server.stats.connections, 1);
  });
});
