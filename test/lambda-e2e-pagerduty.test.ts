/**
 * PagerDuty through the real handler (testkit/watchdog-harness.ts) against a stand-in of the
 * Events API v2 that checks every request as PagerDuty documents it (testkit/pagerduty-server.ts):
 * one incident is a trigger then a resolve with one `dedup_key`; a 429 or a 5xx is retried by
 * the next check; SNS delivers whatever PagerDuty does; the routing key is read from Secrets
 * Manager and never reaches a log line or the state.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PAGERDUTY_ROUTING_KEY } from '../testkit/harness-parts.js';
import { storedOutbox, tickUntil } from '../testkit/on-call-fixture.js';
import type { PagerDutyServer } from '../testkit/pagerduty-server.js';
import { type Harness, type SimTarget, startWatchdogHarness } from '../testkit/watchdog-harness.js';

const ROUTING_KEY = PAGERDUTY_ROUTING_KEY;

/** `action key` of each event PagerDuty took. */
function taken(pd: PagerDutyServer): string[] {
  return pd.accepted.map((e) => `${e.event_action} ${e.dedup_key}`);
}

describe('lambda e2e: PagerDuty', () => {
  let h: Harness;
  let pd: PagerDutyServer;
  let target: SimTarget;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 4 } }, pagerDuty: true });
    assert.ok(h.pagerDuty);
    pd = h.pagerDuty;
    target = h.target('prod');
  });
  after(() => h.close());

  const until = (kind: string, count: number) => tickUntil(h, kind, count);

  it('one incident: a trigger, then a resolve with the same dedup_key; a 429 and a 5xx are retried', async () => {
    const victim = target.nodes[0] as string;
    await h.run();
    target.sim.stopKubelet(victim);
    await until('FIRING', 1);
    assert.deepEqual(pd.rejected, []);
    const [trigger] = pd.accepted;
    assert.equal(trigger?.event_action, 'trigger');
    assert.match(trigger?.dedup_key ?? '', /^lw-node-[0-9a-f]{24}$/);
    assert.equal(trigger?.payload?.source, victim);
    assert.equal(trigger?.payload?.severity, 'critical');
    assert.match(trigger?.payload?.summary ?? '', new RegExp(`^\\[prod\\] node ${victim} expired`));
    const key = trigger?.dedup_key;

    // Rate limited when the node recovers: SNS still sends the RESOLVED; PagerDuty gets it later.
    pd.answer(429);
    target.sim.startKubelet(victim);
    await until('RESOLVED', 1);
    assert.deepEqual(taken(pd), [`trigger ${key}`]);
    assert.equal(pd.answers.at(-1), 429);
    pd.answer(503);
    await h.tick();
    assert.deepEqual(taken(pd), [`trigger ${key}`]);
    assert.equal(pd.answers.at(-1), 503);
    pd.answer(null);
    await h.tick();
    assert.deepEqual(taken(pd), [`trigger ${key}`, `resolve ${key}`]);
    await h.tick();
    assert.equal(pd.accepted.length, 2, 'delivered once');

    assert.equal(h.metrics.of('OnCallEventsFailed').length, 2, 'the 429 and the 503 counted');
    const lines = JSON.stringify(h.logger.entries);
    assert.match(lines, /on-call event not delivered/);
    assert.match(lines, /PagerDuty answered 429/);
    assert.ok(!lines.includes(ROUTING_KEY), 'the routing key is never logged');
  });

  it('PagerDuty down: SNS delivers the FIRING at once; the trigger waits in the state, without the key', async () => {
    const victim = target.nodes[1] as string;
    pd.answer(500);
    const before = pd.accepted.length;
    target.sim.stopKubelet(victim);
    await until('FIRING', 2);
    assert.equal(pd.accepted.length, before);
    const outbox = await storedOutbox(h, 'prod');
    assert.deepEqual(
      outbox.waiting,
      [['pagerduty', 'trigger', victim, 1]],
      'kept in the state, one attempt counted',
    );
    assert.ok(!outbox.json.includes(ROUTING_KEY), 'no routing key in the state');
    pd.answer(null);
    await h.tick();
    assert.equal(pd.accepted.at(-1)?.event_action, 'trigger');
    assert.equal(pd.accepted.at(-1)?.payload?.source, victim);
  });
});
