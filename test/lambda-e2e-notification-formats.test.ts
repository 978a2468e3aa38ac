/**
 * What the topic receives, through the real handler (see testkit/watchdog-harness.ts): one
 * `MessageStructure: json` publish per notification, the email text for email subscribers, the
 * versioned document for machine subscribers, and the filter attributes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NotificationDocument } from '../lambda/adapters/notify/render/document-schema.js';
import { instanceOf } from '../lambda/core/evaluate.js';
import { assertValidDocument } from '../testkit/notification-schema.js';
import { deliveredAs } from '../testkit/sns-server.js';
import {
  type Harness,
  type SimTarget,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

describe('lambda e2e: the formats of a FIRING as SNS receives it', () => {
  let h: Harness;
  let target: SimTarget;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } } });
    target = h.target('prod');
  });
  after(() => h.close());

  it('email text under default, the v1 document for sqs/lambda/http/https/firehose, zones attribute', async () => {
    const victim = target.nodes[1] as string;
    await h.run();
    target.sim.stopKubelet(victim);
    for (let i = 0; i < 3 && h.messages('FIRING').length === 0; i++) await h.tick();
    const [firing] = h.messages('FIRING');
    assert.ok(firing, `a FIRING: ${summary(h.messages())}`);

    assert.equal(firing.messageStructure, 'json');
    assert.match(firing.message, /^lease-watchdog: FIRING for cluster prod$/m, 'email: the text');
    assert.ok(firing.message.includes(victim));
    for (const protocol of ['sqs', 'lambda', 'http', 'https', 'firehose']) {
      assert.equal(deliveredAs(firing, protocol), deliveredAs(firing, 'sqs'), protocol);
    }
    assert.equal(deliveredAs(firing, 'email-json'), firing.message);

    const document = JSON.parse(deliveredAs(firing, 'sqs')) as NotificationDocument;
    assertValidDocument(document);
    assert.equal(document.kind, 'FIRING');
    assert.equal(document.cluster, 'prod');
    assert.equal(document.checkedAt, new Date(firing.receivedAt).toISOString());
    const node = target.sim.nodeObject(victim);
    const zone = node?.metadata?.labels?.['topology.kubernetes.io/zone'] ?? null;
    assert.deepEqual(
      document.nodes.map((x) => [x.name, x.change, x.verdict, x.zone, x.instance]),
      [[victim, 'firing', 'expired', zone, instanceOf(node?.spec?.providerID) ?? null]],
    );
    assert.equal(document.nodesOmitted, 0);
    assert.deepEqual(firing.attributes.zones, {
      dataType: 'String.Array',
      stringValue: JSON.stringify([zone]),
      binaryValue: undefined,
    });
  });
});
