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
import { OPSGENIE_API_KEY } from '../testkit/harness-parts.js';
import { storedOutbox, tickUntil } from '../testkit/on-call-fixture.js';
import type { OpsgenieServer } from '../testkit/opsgenie-server.js';
import type { PagerDutyServer } from '../testkit/pagerduty-server.js';
import { type Harness, type SimTarget, startWatchdogHarness } from '../testkit/watchdog-harness.js';

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

  it('one incident: an alert created, then closed by the same alias; a 429 and a 5xx are retried, delivered once; PagerDuty gets the same key', async () => {
    const victim = target.nodes[0] as string;
    await h.run();
    target.sim.stopKubelet(victim);
    await tickUntil(h, 'FIRING', 1);
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
    await tickUntil(h, 'RESOLVED', 1);
    og.answer(503);
    await h.tick();
    assert.deepEqual(og.answers.slice(-2), [429, 503], 'rate limited, then down');
    assert.deepEqual(taken(og), [`create ${key}`], 'the close not taken yet');
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

  it('Opsgenie down: SNS delivers the FIRING and PagerDuty its trigger at once; the create waits in the state, without the key', async () => {
    const victim = target.nodes[1] as string;
    const created = () => og.accepted.filter((c) => c.action === 'create').length;
    og.answer(500);
    target.sim.stopKubelet(victim);
    await tickUntil(h, 'FIRING', 2);
    assert.equal(created(), 1, 'only the first incident so far');
    assert.equal(pd.accepted.at(-1)?.payload?.source, victim, 'PagerDuty not held up');
    const outbox = await storedOutbox(h, 'prod');
    assert.deepEqual(outbox.waiting, [['opsgenie', 'trigger', victim, 1]], 'one attempt counted');
    const logged = JSON.stringify(h.logger.entries);
    assert.match(logged, /Opsgenie answered 500/);
    for (const where of [outbox.json, logged]) assert.ok(!where.includes(OPSGENIE_API_KEY));
    og.answer(null);
    await h.tick();
    assert.equal(created(), 2);
    assert.equal(og.accepted.at(-1)?.body.entity, victim);
  });

  it('the stand-in refuses what Opsgenie documents it refuses (so that its 202s prove something)', async () => {
    const post = async (path: string, body: object, key = OPSGENIE_API_KEY) => {
      const res = await fetch(`${og.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `GenieKey ${key}` },
        body: JSON.stringify(body),
      });
      return res.status;
    };
    const taken = og.accepted.length;
    assert.equal(await post('/v2/alerts', { message: 'x' }, 'another-key'), 401);
    assert.equal(await post('/v2/alerts', { alias: 'a' }), 422, 'message is mandatory');
    assert.equal(await post('/v2/alerts', { message: 'x'.repeat(131) }), 422);
    assert.equal(await post('/v2/alerts', { message: 'x', priority: 'P0' }), 422);
    assert.equal(await post('/v2/alerts', { message: 'x', details: { n: 1 } }), 422);
    assert.equal(await post('/v2/alerts/a/close', { source: 'x' }), 422, 'identifierType');
    assert.equal(await post('/v2/alerts/a/close?identifierType=alias', { note: 1 }), 422);
    assert.equal(og.accepted.length, taken);
    og.rejected.length = 0;
  });
});
