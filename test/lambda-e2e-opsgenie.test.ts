/**
 * Opsgenie through the real handler (testkit/watchdog-harness.ts) against a stand-in of the
 * Alert API that checks every request as Opsgenie documents it (testkit/opsgenie-server.ts), with
 * PagerDuty configured beside it: one incident is an alert created then closed by one `alias`,
 * and PagerDuty gets its trigger and resolve with that same key; a 429 then a 5xx is retried by
 * the next checks and delivered once; SNS delivers whatever Opsgenie does; the API key is read
 * from Secrets Manager and never reaches a log line, an error or the state.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDbStateStore } from '../lambda/adapters/state/dynamodb/dynamodb-store.js';
import { OPSGENIE_API_KEY } from '../testkit/harness-parts.js';
import type { OpsgenieServer } from '../testkit/opsgenie-server.js';
import type { PagerDutyServer } from '../testkit/pagerduty-server.js';
import {
  type Harness,
  type SimTarget,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

/** `action alias` of each request Opsgenie took. */
function taken(og: OpsgenieServer): string[] {
  return og.accepted.map((c) => `${c.action} ${c.alias}`);
}

describe('lambda e2e: Opsgenie (beside PagerDuty)', () => {
  let h: Harness;
  let og: OpsgenieServer;
  let pd: PagerDutyServer;
  let target: SimTarget;
  before(async () => {
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 4 } },
      pagerDuty: true,
      opsgenie: true,
    });
    assert.ok(h.opsgenie && h.pagerDuty);
    og = h.opsgenie;
    pd = h.pagerDuty;
    target = h.target('prod');
  });
  after(() => h.close());

  const until = async (kind: string, count: number) => {
    for (let i = 0; i < 20 && h.messages(kind).length < count; i++) await h.tick();
    assert.equal(h.messages(kind).length, count, summary(h.messages()));
  };

  it('one incident: an alert created, then closed by the same alias; a 429 and a 5xx are retried, delivered once; PagerDuty gets the same key', async () => {
    const victim = target.nodes[0] as string;
    await h.run();
    target.sim.stopKubelet(victim);
    await until('FIRING', 1);
    assert.deepEqual(og.rejected, []);
    const [create] = og.accepted;
    assert.ok(create);
    assert.equal(create.action, 'create');
    const key = create.alias ?? '';
    assert.match(key, /^lw-node-[0-9a-f]{24}$/);
    assert.equal(create.body.priority, 'P1');
    assert.equal(create.body.entity, victim);
    assert.match(String(create.body.message), new RegExp(`^\\[prod\\] node ${victim} expired`));
    assert.ok(String(create.body.message).length <= 130);
    assert.deepEqual(create.body.tags, ['lease-watchdog', 'cluster:prod']);
    assert.equal((create.body.details as Record<string, string>).cluster, 'prod');

    // Rate limited, then down, when the node recovers: SNS still sends the RESOLVED.
    og.answer(429);
    target.sim.startKubelet(victim);
    await until('RESOLVED', 1);
    assert.deepEqual(taken(og), [`create ${key}`]);
    assert.equal(og.answers.at(-1), 429);
    og.answer(503);
    await h.tick();
    assert.deepEqual(taken(og), [`create ${key}`]);
    assert.equal(og.answers.at(-1), 503);
    og.answer(null);
    await h.tick();
    assert.deepEqual(taken(og), [`create ${key}`, `close ${key}`]);
    assert.deepEqual(Object.keys(og.accepted[1]?.body ?? {}).sort(), ['note', 'source']);
    await h.tick();
    assert.equal(og.accepted.length, 2, 'delivered once');
    assert.deepEqual(og.rejected, []);

    // PagerDuty, beside it, was never held up and paired the same incident.
    assert.deepEqual(
      pd.accepted.map((e) => `${e.event_action} ${e.dedup_key}`),
      [`trigger ${key}`, `resolve ${key}`],
    );

    assert.equal(h.metrics.of('OnCallEventsFailed').length, 2, 'the 429 and the 503 counted');
    const lines = JSON.stringify(h.logger.entries);
    assert.match(lines, /on-call event not delivered/);
    assert.match(lines, /Opsgenie answered 429/);
    assert.ok(!lines.includes(OPSGENIE_API_KEY), 'the API key is never logged');
  });

  it('Opsgenie down: SNS delivers the FIRING at once; the create waits in the state, without the key', async () => {
    const victim = target.nodes[1] as string;
    og.answer(500);
    const before = og.accepted.length;
    target.sim.stopKubelet(victim);
    await until('FIRING', 2);
    assert.equal(og.accepted.length, before);
    assert.equal(pd.accepted.at(-1)?.payload?.source, victim, 'PagerDuty not held up');
    const store = new DynamoDbStateStore({ client: h.dynamo.client, tableName: h.tableName });
    const { state } = await store.load('prod');
    assert.deepEqual(
      state.onCall?.map((p) => [p.tool, p.event.action, p.event.source, p.attempts]),
      [['opsgenie', 'trigger', victim, 1]],
      'kept in the state, one attempt counted',
    );
    const kept = JSON.stringify(state);
    assert.ok(!kept.includes(OPSGENIE_API_KEY), 'no API key in the state');
    const lines = JSON.stringify(h.logger.entries);
    assert.match(lines, /Opsgenie answered 500/);
    assert.ok(!lines.includes(OPSGENIE_API_KEY), 'no API key in an error');
    og.answer(null);
    await h.tick();
    assert.equal(og.accepted.at(-1)?.action, 'create');
    assert.equal(og.accepted.at(-1)?.body.entity, victim);
  });
});
