/**
 * Incident keys through the real handler (testkit/watchdog-harness.ts): the FIRING, REMINDER and
 * RESOLVED of one node's incident carry one key, in the document machine subscribers (and the
 * EventBridge detail) get and in the email's footer; the node's next incident gets a new key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NotificationDocument } from '../lambda/adapters/notify/render/document-schema.js';
import { assertValidDocument } from '../testkit/notification-schema.js';
import { deliveredAs, type ReceivedMessage } from '../testkit/sns-server.js';
import {
  type Harness,
  SCHEDULE_MS,
  type SimTarget,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

const REMINDER_S = 300;

/** `change name key` for every node of the message's document. */
function keysOf(message: ReceivedMessage | undefined): string[] {
  assert.ok(message, 'a message');
  const document = JSON.parse(deliveredAs(message, 'sqs')) as NotificationDocument;
  assertValidDocument(document);
  return document.nodes.map((x) => `${x.change} ${x.name} ${x.incidentKey}`);
}

describe('lambda e2e: one incident, one key', () => {
  let h: Harness;
  let target: SimTarget;
  before(async () => {
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 4 } },
      settings: { reminderIntervalSeconds: REMINDER_S },
    });
    target = h.target('prod');
  });
  after(() => h.close());

  it('FIRING, REMINDER and RESOLVED share a key; the next incident of the node gets a new one', async () => {
    const victim = target.nodes[0] as string;
    await h.run();
    target.sim.stopKubelet(victim);
    const until = async (kind: string, count: number) => {
      for (let i = 0; i < 20 && h.messages(kind).length < count; i++) await h.tick();
      assert.equal(h.messages(kind).length, count, summary(h.messages()));
    };
    await until('FIRING', 1);
    await h.advanceTo(h.clock.now() + REMINDER_S * 1000 - SCHEDULE_MS);
    await until('REMINDER', 1);
    target.sim.startKubelet(victim);
    await until('RESOLVED', 1);
    target.sim.stopKubelet(victim);
    await until('FIRING', 2);

    const [firing, again] = h.messages('FIRING');
    const [key] = keysOf(firing).map((line) => line.split(' ')[2]);
    assert.match(key ?? '', /^lw-node-[0-9a-f]{24}$/);
    assert.deepEqual(keysOf(firing), [`firing ${victim} ${key}`]);
    assert.deepEqual(keysOf(h.messages('REMINDER')[0]), [`reminder ${victim} ${key}`]);
    assert.deepEqual(keysOf(h.messages('RESOLVED')[0]), [`resolved ${victim} ${key}`]);
    assert.ok(firing?.message.includes(`incident ${key}  ${victim}`), 'the email footer');
    const [newKey] = keysOf(again).map((line) => line.split(' ')[2]);
    assert.match(newKey ?? '', /^lw-node-[0-9a-f]{24}$/);
    assert.notEqual(newKey, key);
  });
});
