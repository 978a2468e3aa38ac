/**
 * Delivery at its edges, through the real handler (testkit/watchdog-harness.ts): a notification
 * the notifier cannot even render is a poison like any other (given up, never blocking the
 * rest). Reads that would outlast the invocation, cut short in time for the WATCHDOG to go out,
 * are the fault matrix's row "Slow reads past the deadline" (test/reliability.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDbStateStore } from '../lambda/adapters/state/dynamodb/dynamodb-store.js';
import type { Notification } from '../lambda/core/notification.js';
import { GIVE_UP_AFTER_MS } from '../lambda/use-cases/outbox-publishing.js';
import { deliveredAs, type ReceivedMessage } from '../testkit/sns-server.js';
import {
  type Harness,
  kindOf,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

function stateStore(h: Harness) {
  return new DynamoDbStateStore({
    client: h.dynamo.client,
    tableName: h.tableName,
    clock: h.clock.now,
  });
}

describe('lambda e2e: a notification that cannot be rendered', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, snsMaxAttempts: 1 });
    await h.run();
  });
  after(() => h.close());

  it('is given up like any poison notification, and the ones behind it go out', async () => {
    // A notification in the stored outbox whose node list is not a list (a state written by
    // another version): rendering it throws a TypeError, not a PublishError.
    const store = stateStore(h);
    const stored = await store.load('prod');
    const broken = {
      id: 'prod-broken',
      cluster: 'prod',
      kind: 'FIRING',
      severity: 'critical',
      at: h.clock.now(),
      firing: null,
      resolved: [],
      reminders: [],
      flapping: [],
    } as unknown as Notification;
    await store.save('prod', { ...stored.state, outbox: [broken] }, stored.version);

    const t = h.target('prod');
    const a = t.nodes[0] as string;
    t.sim.stopKubelet(a);
    for (let i = 0; i < 40; i++) await h.tick();
    assert.deepEqual(h.messages().map(kindOf), ['FIRING'], summary(h.messages()));
    assert.ok(h.messages()[0]?.message.includes(a));
    assert.deepEqual((await store.load('prod')).state.outbox, [], 'given up, not kept for ever');
    const abandoned = h.logger.entries.filter((e) =>
      e.message.startsWith('notification abandoned'),
    );
    assert.equal(abandoned.length, 1, 'logged once');
    assert.equal(abandoned[0]?.fields.id, 'prod-broken');
    const counted = h.metrics.of('NotificationsAbandoned', 'prod');
    assert.equal(
      counted.reduce((sum, m) => sum + m.value, 0),
      1,
    );
  });
});

describe('lambda e2e: SNS refuses for a while, checks ~4 a minute', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, snsMaxAttempts: 1 });
    await h.run();
  });
  after(() => h.close());

  it('a FIRING refused on 5 checks in 75 s (a key policy being fixed) still goes out', async () => {
    const t = h.target('prod');
    const a = t.nodes[0] as string;
    t.sim.stopKubelet(a);
    h.sns.failNext(5, 'authorization');
    for (let i = 0; i < 12; i++) {
      h.clock.advance(15_000);
      await h.run();
    }
    assert.deepEqual(h.messages().map(kindOf), ['FIRING'], summary(h.messages()));
    assert.ok(h.messages()[0]?.message.includes(a));
    const abandoned = h.logger.entries.filter((e) =>
      e.message.startsWith('notification abandoned'),
    );
    assert.deepEqual(abandoned, [], 'nothing given up');
  });
});

describe('lambda e2e: a FIRING given up while its node is still down', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, snsMaxAttempts: 1 });
    await h.run();
  });
  after(() => h.close());

  it('is named by the next notification that goes out, in the email and the document', async () => {
    const t = h.target('prod');
    const [a, b] = t.nodes as [string, string];
    t.sim.stopKubelet(a);
    for (let i = 0; i <= GIVE_UP_AFTER_MS / 60_000 + 1; i++) {
      h.sns.failNext(1, 'invalid-parameter');
      await h.tick();
    }
    assert.deepEqual(h.messages(), [], 'FIRING(a) was given up');
    t.sim.stopKubelet(b);
    await h.tick();
    await h.tick();
    const sent = h.messages();
    assert.deepEqual(sent.map(kindOf), ['FIRING'], summary(sent));
    assert.match(sent[0]?.message ?? '', new RegExp(`Never sent: .*\\n *${a}`));
    const document = JSON.parse(deliveredAs(sent[0] as ReceivedMessage, 'sqs'));
    assert.deepEqual(document.missedFiring?.nodes, [a]);
    assert.equal(typeof document.missedFiring?.firedAt, 'string');
  });
});
