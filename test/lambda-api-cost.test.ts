/**
 * The API server's cost on the default deployment, through the real handler against the
 * simulated cluster over HTTPS, asserted on the requests the sim recorded: between full Node
 * lists a check reads the leases and the server-side Table of Nodes, and GETs only the nodes
 * that may page; `not-ready` is still seen at the very next check; a silent node cordoned since
 * the last full list is judged on a fresh GET; a server that answers the Table with something
 * else (a NodeList, hostile cells) gets a whole Node list instead, noted in the log, never a
 * wrong verdict. No request asks for resourceVersion=0, and every one accepts gzip.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SentAnswer } from '../sim/server.js';
import {
  type Harness,
  kindOf,
  type SimTarget,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

/** The node list requests of `sent`: whole Nodes (a NodeList) or the Table of Nodes. */
function nodeLists(sent: readonly SentAnswer[]): { whole: number; table: number } {
  const lists = sent.filter((a) => a.url.startsWith('/api/v1/nodes?'));
  const table = lists.filter((a) => /as=Table/.test(a.accept ?? '')).length;
  return { whole: lists.length - table, table };
}

function nodeGets(sent: readonly SentAnswer[]): string[] {
  return sent
    .filter((a) => a.url.startsWith('/api/v1/nodes/'))
    .map((a) => decodeURIComponent(a.url.slice('/api/v1/nodes/'.length)));
}

describe('lambda e2e: API server cost per check (default settings)', () => {
  let h: Harness;
  /** Every answer each sim sent, across the whole file (the sim's log is reset per check). */
  const everything: SentAnswer[] = [];
  const sentBy = (t: SimTarget) => {
    everything.push(...t.server.sent);
    const sent = [...t.server.sent];
    t.server.resetStats();
    return sent;
  };
  const verdictOf = (node: string) =>
    h.logger.entries.findLast((e) => e.message === 'node verdict' && e.fields.node === node)?.fields
      .verdict;

  before(async () => {
    h = await startWatchdogHarness({
      clusters: {
        prod: { nodes: 12 },
        aggregated: { nodes: 6, front: true },
        hostile: { nodes: 6, front: true },
      },
    });
    await h.run(); // a cold container: whole Nodes listed once
    for (const t of h.targets.values()) {
      assert.deepEqual(nodeLists(sentBy(t)), { whole: 1, table: 0 }, t.name);
    }
  });
  after(async () => {
    await h.close();
  });

  it('in steady state reads the leases and the Table of Nodes, nothing else', async () => {
    const t = h.target('prod');
    await h.tick();
    const sent = sentBy(t);
    assert.deepEqual(nodeLists(sent), { whole: 0, table: 1 });
    assert.deepEqual(nodeGets(sent), []);
    assert.equal(sent.length, 2, sent.map((a) => a.url).join(' '));
    const table = sent.find((a) => a.url.startsWith('/api/v1/nodes?'));
    assert.match(table?.url ?? '', /[?&]includeObject=None(&|$)/);
  });

  it('sees a node turn NotReady with a fresh lease at the very next check', async () => {
    const t = h.target('prod');
    const node = t.nodes[3] as string;
    t.sim.setReady(node, 'False', 'KubeletNotReady');
    const before = h.sns.messages.length;
    await h.tick();
    const sent = sentBy(t);
    assert.equal(verdictOf(node), 'not-ready');
    assert.deepEqual(nodeLists(sent), { whole: 0, table: 1 }, 'no whole Node list');
    assert.deepEqual(nodeGets(sent), [node], 'the node the Table shows NotReady, read afresh');
    const fired = h.sns.messages.slice(before);
    assert.deepEqual(fired.map(kindOf), ['FIRING'], summary(fired));
    assert.match(fired[0]?.message ?? '', /KubeletNotReady/);
    t.sim.setReady(node, 'True');
    await h.tick();
    sentBy(t);
  });

  it('judges a silent node cordoned since the last full list on a fresh GET', async () => {
    const t = h.target('prod');
    const [cordoned, unmarked] = [t.nodes[2] as string, t.nodes[5] as string];
    t.sim.cordon(cordoned);
    t.sim.stopKubelet(cordoned);
    t.sim.stopKubelet(unmarked);
    const before = h.sns.messages.length;
    const lists = { whole: 0, table: 0 };
    for (let i = 0; i < 3; i++) {
      await h.tick();
      const counted = nodeLists(sentBy(t));
      lists.whole += counted.whole;
      lists.table += counted.table;
    }
    assert.deepEqual(lists, { whole: 0, table: 3 }, 'no whole Node list in between');
    assert.equal(verdictOf(cordoned), 'suppressed');
    assert.equal(verdictOf(unmarked), 'expired');
    const sent = h.sns.messages.slice(before);
    assert.deepEqual(sent.map(kindOf), ['FIRING'], summary(sent));
    assert.ok(sent[0]?.message.includes(unmarked));
    assert.ok(!sent[0]?.message.includes(cordoned), 'the cordoned node pages nobody');
  });

  it('lists whole Nodes when the server answers the Table with a NodeList, and says so', async () => {
    const t = h.target('aggregated');
    sentBy(t); // the earlier checks
    t.front?.setAnswer({ kind: 'no-table' });
    const node = t.nodes[1] as string;
    t.sim.setReady(node, 'False', 'KubeletNotReady');
    const warnings = () =>
      h.logger.entries.filter((e) => e.level === 'warn' && e.fields.cluster === 'aggregated');
    await h.tick();
    // The front turned the Table request into a plain list: the sim saw two NodeLists.
    assert.deepEqual(nodeLists(sentBy(t)), { whole: 2, table: 0 });
    assert.equal(verdictOf(node), 'not-ready', 'the verdict comes from the whole list');
    assert.equal(warnings().length, 1);
    assert.match(
      String(warnings()[0]?.message),
      /Table of Nodes could not be used: whole Nodes listed instead/,
    );
    assert.match(String(warnings()[0]?.fields.error), /not a Table \(got a NodeList\)/);
    await h.tick();
    assert.deepEqual(
      nodeLists(sentBy(t)),
      { whole: 1, table: 0 },
      'the Table is not asked again within the refresh period',
    );
    assert.equal(warnings().length, 1, 'noted once');
  });

  it('lists whole Nodes when the Table has cells it cannot read, quoting none of them', async () => {
    const t = h.target('hostile');
    sentBy(t); // the earlier checks
    const node = t.nodes[2] as string;
    t.sim.setReady(node, 'False', 'KubeletNotReady');
    t.front?.setAnswer({ kind: 'table-status', status: 'Ready\u001b]8;;https://evil\u0007' });
    await h.tick();
    assert.deepEqual(nodeLists(sentBy(t)), { whole: 1, table: 1 });
    assert.equal(verdictOf(node), 'not-ready', 'never Ready on the strength of the hostile cell');
    const warning = h.logger.entries.find(
      (e) => e.level === 'warn' && e.fields.cluster === 'hostile',
    );
    assert.match(String(warning?.fields.error), /Status cell of node .* is not one it can read/);
    assert.doesNotMatch(JSON.stringify(warning), /evil|\\u001b/);
  });

  it('never asks for resourceVersion=0 and always accepts gzip', () => {
    for (const t of h.targets.values()) sentBy(t);
    assert.ok(everything.length > 20, `${everything.length} requests recorded`);
    for (const answer of everything) {
      assert.doesNotMatch(answer.url, /[?&]resourceVersion=0(&|$)/, answer.url);
    }
    // The hostile front drops Accept-Encoding on its way to the sim: only direct requests show it.
    const direct = everything.filter((a) => a.acceptEncoding !== undefined);
    assert.ok(direct.length > 10);
    for (const answer of direct) assert.match(answer.acceptEncoding ?? '', /\bgzip\b/);
  });
});
