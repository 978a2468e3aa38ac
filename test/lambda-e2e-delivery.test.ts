/**
 * Delivery end to end at the edges (see testkit/watchdog-harness.ts): the invocation's
 * deadline strikes while SNS hangs or while the cluster is being read; the record of what SNS
 * accepted is made inside the invocation, so nothing is sent twice; SNS refuses a notification for
 * good; SNS or DynamoDB apply a call and the answer is lost (at most one duplicate per lost answer).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDbStateStore } from '../lambda/adapters/state/dynamodb/dynamodb-store.js';
import { GIVE_UP_AFTER_MS } from '../lambda/use-cases/outbox-publishing.js';
import { type LossyProxy, startLossyProxy } from '../testkit/lossy-proxy.js';
import {
  type Harness,
  kindOf,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

/** The nodes each notification in the stored outbox fires for. */
async function storedOutbox(h: Harness, cluster = 'prod') {
  const store = new DynamoDbStateStore({
    client: h.dynamo.client,
    tableName: h.tableName,
    clock: h.clock.now,
  });
  const { state } = await store.load(cluster);
  return { outbox: state.outbox.map((n) => n.firing.map((f) => f.name)), lock: state.lock };
}

describe('lambda e2e: the deadline strikes while publishing', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, snsMaxAttempts: 1 });
    await h.run();
  });
  after(() => h.close());

  it('returns only after recording what SNS accepted; nothing is sent twice', async () => {
    const t = h.target('prod');
    const [a, b] = t.nodes as [string, string];
    t.sim.stopKubelet(a);
    h.sns.failNext(1, 'internal');
    await h.tick();
    assert.deepEqual((await storedOutbox(h)).outbox, [[a]], "a's FIRING waits in the outbox");

    // b dies too. a's FIRING is accepted, b's hangs until the invocation's deadline.
    t.sim.stopKubelet(b);
    h.sns.failNext(1, 'accept');
    h.sns.failNext(1, 'hang');
    h.clock.advance(60_000);
    const report = await h.container().invoke(null, { remainingMs: 4_000 });
    assert.equal(report.clusters[0]?.published, 1, 'the invocation resolves, a report');
    assert.equal(report.clusters[0]?.pending, 1);
    const stored = await storedOutbox(h);
    assert.deepEqual(stored.outbox, [[b]], 'what SNS accepted has left the outbox');
    assert.equal(stored.lock, null, 'the lock is released');
    assert.deepEqual(h.messages().map(kindOf), ['FIRING']);

    await h.tick();
    await h.tick();
    const fired = h
      .messages()
      .map((m) => [kindOf(m), m.message.includes(a), m.message.includes(b)]);
    assert.deepEqual(
      fired,
      [
        ['FIRING', true, false],
        ['FIRING', false, true],
      ],
      summary(h.messages()),
    );
  });
});

describe('lambda e2e: the deadline strikes while reading', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 6 } },
      requestTimeoutSeconds: 30,
    });
    await h.run();
  });
  after(() => h.close());

  it('a read cut short is a timeout failure of the cluster, not an error of the invocation', async () => {
    const t = h.target('prod');
    t.server.setFault({ kind: 'hang' });
    h.clock.advance(60_000);
    const c = h.container();
    // Time enough for reading to stop DELIVERY_BUDGET_MS (5 s) before the watchdog's deadline, as
    // in a deployed function (create-handler.ts): the read is cut short 5.1 s in and the save has
    // 5 s. (With less, reading runs to the deadline itself, and the save races it.)
    const report = await c.invoke(null, { remainingMs: 13_100 });
    assert.equal(report.clusters[0]?.lastStatus, 'unreadable');
    const failed = c.logger.entries.find((e) => e.message === 'cannot read the cluster');
    assert.equal(failed?.fields.failure, 'timeout', JSON.stringify(failed));
    assert.equal((await storedOutbox(h)).lock, null, 'nothing was claimed for publishing');

    // Whatever it decided (a WATCHDOG, and its resolution once readable) goes out once each.
    t.server.setFault(null);
    await h.tick();
    await h.tick();
    const subjects = h.messages().map((m) => m.subject);
    assert.ok(
      h.messages().every((m) => kindOf(m) === 'WATCHDOG'),
      summary(h.messages()),
    );
    assert.equal(
      new Set(subjects).size,
      subjects.length,
      `nothing twice: ${summary(h.messages())}`,
    );
    if (subjects.length > 0) {
      assert.equal(subjects[0], '[prod] WATCHDOG: cannot read cluster (timeout)');
    }
  });
});

describe('lambda e2e: a notification SNS refuses for good', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, snsMaxAttempts: 1 });
    await h.run();
  });
  after(() => h.close());

  it('does not block the others, and is given up after a bounded time', async () => {
    const t = h.target('prod');
    const [a, b] = t.nodes as [string, string];
    const mark = h.metrics.mark();
    t.sim.stopKubelet(a);
    h.sns.failNext(1, 'invalid-parameter');
    await h.tick();
    assert.deepEqual((await storedOutbox(h)).outbox, [[a]]);

    // b dies: a's FIRING is refused again, b's goes out behind it all the same.
    t.sim.stopKubelet(b);
    h.sns.failNext(1, 'invalid-parameter');
    await h.tick();
    assert.equal(h.messages().length, 1, summary(h.messages()));
    assert.ok(h.messages()[0]?.message.includes(b));
    assert.deepEqual((await storedOutbox(h)).outbox, [[a]], 'the refused one is kept');

    // Refused on every check: given up on the check GIVE_UP_AFTER_MS after the first refusal,
    // logged with its subject, counted.
    for (let i = 2; i <= GIVE_UP_AFTER_MS / 60_000; i++) {
      h.sns.failNext(1, 'invalid-parameter');
      await h.tick();
    }
    assert.deepEqual((await storedOutbox(h)).outbox, [], 'given up');
    const abandoned = h.logger.entries.filter((e) =>
      e.message.startsWith('notification abandoned'),
    );
    assert.equal(abandoned.length, 1);
    assert.match(String(abandoned[0]?.fields.subject), /^\[prod\] FIRING: 1 node down/);
    assert.match(String(abandoned[0]?.fields.error), /InvalidParameter/);
    const counted = h.metrics.of('NotificationsAbandoned', 'prod');
    assert.equal(
      counted.reduce((sum, m) => sum + m.value, 0),
      1,
    );
    assert.equal(
      h.metrics.countSince(mark, 'NotificationsAbandoned'),
      1,
      'written only on the check that gave up (a metric never written is not billed)',
    );

    // It is not tried again; later notifications flow.
    const requests = h.sns.requests;
    await h.tick();
    assert.equal(h.sns.requests, requests, 'no publish for an empty outbox');
    t.sim.startKubelet(b);
    await h.tick();
    assert.deepEqual(h.messages().map(kindOf), ['FIRING', 'RESOLVED'], summary(h.messages()));
  });

  it('a notification refused a few times and then accepted goes out once', async () => {
    const t = h.target('prod');
    const c = t.nodes[2] as string;
    const before = h.messages().length;
    t.sim.stopKubelet(c);
    h.sns.failNext(2, 'invalid-parameter');
    await h.tick();
    await h.tick();
    assert.equal(h.messages().length, before);
    await h.tick();
    await h.tick();
    const sent = h.messages().slice(before);
    assert.deepEqual(sent.map(kindOf), ['FIRING'], summary(sent));
    assert.ok(sent[0]?.message.includes(c));
  });
});

describe('lambda e2e: SNS takes a message and its answer is lost', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, snsMaxAttempts: 1 });
    await h.run();
  });
  after(() => h.close());

  it('sends it again once: at most one duplicate per lost response', async () => {
    const t = h.target('prod');
    const [a, b] = t.nodes as [string, string];
    t.sim.stopKubelet(a);
    h.sns.failNext(1, 'accept-then-hang');
    h.clock.advance(60_000);
    const report = await h.container().invoke(null, { remainingMs: 4_000 });
    assert.equal(report.clusters[0]?.pending, 1, 'not known to be accepted: kept');
    assert.equal(h.messages().length, 1, 'SNS has it');

    // The next check sends it again, once; then nothing more.
    await h.tick();
    await h.tick();
    t.sim.stopKubelet(b);
    await h.tick();
    await h.tick();
    const fired = h
      .messages()
      .map((m) => [kindOf(m), m.message.includes(a), m.message.includes(b)]);
    assert.deepEqual(
      fired,
      [
        ['FIRING', true, false],
        ['FIRING', true, false],
        ['FIRING', false, true],
      ],
      summary(h.messages()),
    );
    assert.equal(h.messages()[0]?.subject, h.messages()[1]?.subject, 'the same notification');
  });
});

describe('lambda e2e: DynamoDB applies a save and its answer is lost', () => {
  let h: Harness;
  let proxy: LossyProxy;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, snsMaxAttempts: 1 });
    proxy = await startLossyProxy(h.dynamo.endpoint);
    await h.run();
  });
  after(async () => {
    await proxy.close();
    await h.close();
  });

  it('the record: the invocation fails, and nothing is sent twice', async () => {
    const t = h.target('prod');
    const a = t.nodes[0] as string;
    const before = h.messages().length;
    t.sim.stopKubelet(a);
    h.clock.advance(60_000);
    proxy.loseNext('PutItem', 1, { skip: 1 }); // the claim passes, the record's answer is lost
    const c = h.container({ dynamoEndpoint: proxy.url });
    await assert.rejects(c.invoke(), /WatchdogError|cluster checks failed/);
    assert.equal(h.messages().length, before + 1, 'published before the record');
    for (let i = 0; i < 3; i++) await h.tick();
    assert.equal(h.messages().length, before + 1, summary(h.messages()));
    assert.deepEqual((await storedOutbox(h)).outbox, []);
  });

  it('the claim, answered to no one: the SDK retries, the store sees its own write; sent once', async () => {
    const t = h.target('prod');
    const b = t.nodes[1] as string;
    const before = h.messages().length;
    t.sim.stopKubelet(b);
    h.clock.advance(60_000);
    proxy.loseNext('PutItem', 1);
    const c = h.container({ dynamoEndpoint: proxy.url, dynamoMaxAttempts: 3 });
    const report = await c.invoke();
    assert.equal(report.clusters[0]?.published, 1);
    for (let i = 0; i < 3; i++) await h.tick();
    const sent = h.messages().slice(before);
    assert.deepEqual(sent.map(kindOf), ['FIRING'], summary(sent));
    assert.ok(sent[0]?.message.includes(b));
  });

  it('the claim, without retries: the invocation fails, the next run sends it once', async () => {
    const t = h.target('prod');
    const c3 = t.nodes[2] as string;
    const before = h.messages().length;
    t.sim.stopKubelet(c3);
    h.clock.advance(60_000);
    proxy.loseNext('PutItem', 1);
    const c = h.container({ dynamoEndpoint: proxy.url });
    await assert.rejects(c.invoke(), /cluster checks failed/);
    assert.equal(h.messages().length, before, 'nothing published without a known claim');
    for (let i = 0; i < 3; i++) await h.tick();
    const sent = h.messages().slice(before);
    assert.deepEqual(sent.map(kindOf), ['FIRING'], summary(sent));
    assert.ok(sent[0]?.message.includes(c3));
  });
});
