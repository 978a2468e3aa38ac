/**
 * `eventBus`: each notification the topic accepted is also put on EventBridge as one event,
 * through the real handler and the real `@aws-sdk/client-eventbridge` against a scripted
 * PutEvents endpoint (testkit/events-server.ts): the event as PutEvents receives it, and
 * what a refused entry (200 with FailedEntryCount) or a 5xx does: counted, logged, the SNS path
 * untouched and the notification not sent again.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  EVENT_DETAIL_TYPE,
  EVENT_SOURCE,
} from '../lambda/adapters/notify/delivery/event-notifier.js';
import type { NotificationDocument } from '../lambda/adapters/notify/render/document-schema.js';
import { type EventsServer, startEventsServer } from '../testkit/events-server.js';
import { assertValidDocument } from '../testkit/notification-schema.js';
import { deliveredAs } from '../testkit/sns-server.js';
import {
  type Harness,
  kindOf,
  type SimTarget,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

const BUS = 'arn:aws:events:us-east-1:123456789012:event-bus/on-call';

describe('lambda e2e: notifications as EventBridge events (eventBus)', () => {
  let h: Harness;
  let events: EventsServer;
  let target: SimTarget;
  before(async () => {
    events = await startEventsServer();
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 6 } },
      settings: { eventBus: BUS },
      eventBridgeEndpoint: events.url,
    });
    target = h.target('prod');
    await h.run();
  });
  after(async () => {
    await h.close();
    await events.close();
  });
  afterEach(() => {
    events.failEntries(null);
    events.unavailable(false);
  });

  /** Stops a kubelet and ticks until the topic has a FIRING for it. */
  async function fire(victim: string) {
    const before = h.messages('FIRING').length;
    target.sim.stopKubelet(victim);
    for (let i = 0; i < 4 && h.messages('FIRING').length === before; i++) await h.tick();
    const firing = h.messages('FIRING').at(-1);
    assert.ok(firing && h.messages('FIRING').length > before, `a FIRING: ${summary(h.messages())}`);
    return firing;
  }

  it('puts one event per accepted notification: source, detail-type, time, and the SNS document as detail', async () => {
    const victim = target.nodes[1] as string;
    const firing = await fire(victim);
    assert.deepEqual(events.targets.at(-1), 'AWSEvents.PutEvents');
    assert.equal(events.accepted.length, h.sns.messages.length, 'one event per message SNS took');
    const entry = events.accepted.at(-1);
    assert.ok(entry);
    assert.equal(entry.EventBusName, BUS);
    assert.equal(entry.Source, EVENT_SOURCE);
    assert.equal(entry.Source, 'lease-watchdog');
    assert.equal(entry.DetailType, EVENT_DETAIL_TYPE);
    assert.equal(entry.Resources, undefined);
    assert.equal(entry.Time, Math.floor(firing.receivedAt / 1000), 'the check time, in seconds');
    assert.equal(
      entry.Detail,
      deliveredAs(firing, 'sqs'),
      'the same document as SNS machine protocols',
    );
    const detail = JSON.parse(entry.Detail ?? '') as NotificationDocument;
    assertValidDocument(detail);
    assert.equal(detail.kind, 'FIRING');
    assert.deepEqual(
      detail.nodes.map((x) => x.name),
      [victim],
    );
    assert.equal(h.metrics.of('NotificationEventsFailed').length, 0);
  });

  it('an entry PutEvents refuses (200, FailedEntryCount 1) is counted and logged; SNS has the notification, not twice', async () => {
    events.failEntries('ThrottlingException');
    const sent = h.sns.messages.length;
    const entries = events.entries.length;
    const victim = target.nodes[2] as string;
    const firing = await fire(victim);
    assert.ok(firing.message.includes(victim));
    assert.equal(events.entries.length - entries, h.sns.messages.length - sent, 'one attempt each');
    const failed = h.metrics.of('NotificationEventsFailed', 'prod');
    assert.equal(failed.length, h.sns.messages.length - sent);
    const warning = h.logger.entries.findLast((e) => e.message === 'notification event not put');
    assert.ok(warning, 'logged');
    assert.equal(warning.fields.error, 'ThrottlingException');
    assert.equal(warning.fields.kind, 'FIRING');
    // The next check sends nothing again: the outbox was cleared when SNS accepted.
    const firings = h.messages('FIRING').length;
    await h.tick();
    assert.equal(h.messages('FIRING').length, firings, summary(h.messages()));
  });

  it('a 5xx from EventBridge is counted and logged, and the check still succeeds', async () => {
    events.unavailable(true);
    const sent = h.sns.messages.length;
    const failedBefore = h.metrics.of('NotificationEventsFailed', 'prod').length;
    const victim = target.nodes[3] as string;
    await fire(victim);
    const newKinds = h.sns.messages.slice(sent).map(kindOf);
    assert.ok(newKinds.includes('FIRING'));
    assert.equal(
      h.metrics.of('NotificationEventsFailed', 'prod').length - failedBefore,
      newKinds.length,
    );
    const warning = h.logger.entries.findLast((e) => e.message === 'notification event not put');
    assert.equal(warning?.fields.error, 'InternalException');
    const succeeded = h.metrics.of('CheckSucceeded', 'prod').at(-1);
    assert.equal(succeeded?.value, 1);
  });

  it('a notification SNS refuses is not put on EventBridge (the topic is the record)', async () => {
    const entries = events.entries.length;
    h.sns.failNext(1, 'internal');
    const sent = h.sns.messages.length;
    target.sim.startKubelet(target.nodes[1] as string);
    await h.tick();
    assert.equal(h.sns.messages.length, sent, 'SNS refused the publish');
    assert.equal(events.entries.length, entries, 'no event without the topic');
    await h.tick();
    assert.ok(h.sns.messages.length > sent, 'the retry reached SNS');
    assert.equal(events.entries.length - entries, h.sns.messages.length - sent);
  });
});
