/**
 * nodeRefreshSeconds end to end: whole Nodes are listed once per refresh period, and in between a
 * node whose lease goes silent is judged on fresh Node facts (a cordoned node that dies still
 * pages nobody; an unmarked one still fires once).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Harness,
  kindOf,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

describe('lambda e2e: node cache (nodeRefreshSeconds)', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 12 } },
      settings: { nodeRefreshSeconds: 600 },
    });
  });
  after(() => h.close());

  it('lists Nodes once per refresh, re-reads only silent nodes, and still suppresses and fires right', async () => {
    const t = h.target('prod');
    const bytes = () => t.server.stats.bytesSent;
    await h.run();
    const full = bytes();
    await h.tick();
    const cheap = bytes() - full;
    assert.ok(
      cheap < full / 2,
      `a check between refreshes reads fewer bytes (${cheap} vs ${full})`,
    );

    const [cordoned, unmarked] = [t.nodes[2] as string, t.nodes[5] as string];
    t.sim.cordon(cordoned); // after the last full list: only a fresh read can know
    t.sim.stopKubelet(cordoned);
    t.sim.stopKubelet(unmarked);
    const before = h.sns.messages.length;
    for (let i = 0; i < 3; i++) await h.tick();
    const sent = h.sns.messages.slice(before);
    assert.deepEqual(sent.map(kindOf), ['FIRING'], summary(sent));
    assert.match(sent[0]?.message ?? '', new RegExp(unmarked.replace(/\./g, '\\.')));
    assert.doesNotMatch(sent[0]?.message ?? '', new RegExp(cordoned.replace(/\./g, '\\.')));
  });
});
