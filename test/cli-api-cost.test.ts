/**
 * `lease-watchdog watch` as a process against the simulated cluster, on the default
 * `--node-refresh` (900 s): whole Nodes are listed by the first check only, later checks read the
 * leases and the Table of Nodes, and a node that turns NotReady after the first check (its lease
 * still fresh) is paged by the next one. `--node-refresh 0` still lists whole Nodes every check.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SimCluster } from '../sim/cluster.js';
import { type SentAnswer, type SimServer, startSimServer } from '../sim/server.js';
import { runCli } from '../testkit/cli-process.js';

function nodeLists(sent: readonly SentAnswer[]): { whole: number; table: number } {
  const lists = sent.filter((a) => a.url.startsWith('/api/v1/nodes?'));
  const table = lists.filter((a) => /as=Table/.test(a.accept ?? '')).length;
  return { whole: lists.length - table, table };
}

describe('lease-watchdog watch: the API server cost per check', () => {
  let dir: string;
  let cluster: SimCluster;
  let names: string[];
  let server: SimServer;
  let kubeconfig: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-cli-api-cost-'));
    cluster = new SimCluster({ seed: 7 });
    names = cluster.addNodes(9, { zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] });
    server = await startSimServer({ cluster });
    kubeconfig = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kubeconfig);
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists whole Nodes once, then the Table, and pages a node turning NotReady at the next check', async () => {
    const node = names[4] as string;
    server.resetStats();
    const run = runCli(['watch', '--kubeconfig', kubeconfig, '--interval', '2', '--checks', '2']);
    // Once the first check has read the Nodes, the node turns NotReady (its kubelet still renews).
    for (let i = 0; i < 1_500 && nodeLists(server.sent).whole === 0; i++) await sleep(10);
    cluster.setReady(node, 'False', 'KubeletNotReady');
    const result = await run;
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
});
