/**
 * What the topics receive, through the real handler (see testkit/watchdog-harness.ts): on the
 * notification topic one `MessageStructure: json` publish per notification, the email text for
 * email subscribers and the versioned document for machine subscribers, without message
 * attributes (AWS: "Message attributes are sent only when the message structure is String, not
 * JSON"); on the opt-in machine topic one String-structure publish of the document, with the
 * attributes filter policies match.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NotificationDocument } from '../lambda/adapters/notify/render/document-schema.js';
import { instanceOf } from '../lambda/core/node-verdicts.js';
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
    assert.deepEqual(firing.attributes, {}, 'no attributes on a JSON-structure publish');
    assert.equal(h.sns.messages.length, 1, 'no machine topic unless asked for');
  });
});

describe('lambda e2e: the machine topic (machineTopic) gets the document, String structure, with attributes', () => {
  const MACHINE = 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog-machine';
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 6 } },
      settings: { machineTopic: true },
      machineTopicArn: MACHINE,
    });
  });
  after(() => h.close());

  it('one publish per notification: no MessageStructure, the document as Message, the filter attributes', async () => {
    const target = h.target('prod');
    const victim = target.nodes[1] as string;
    await h.run();
    target.sim.stopKubelet(victim);
    for (let i = 0; i < 3 && h.messages('FIRING').length === 0; i++) await h.tick();
    const [firing, ...others] = h.sns.messages.filter((m) => m.topicArn !== MACHINE);
    const machine = h.sns.messages.filter((m) => m.topicArn === MACHINE);
    assert.ok(firing, summary(h.messages()));
    assert.equal(others.length, 0);
    assert.equal(machine.length, 1);
    const [m] = machine;
    assert.equal(m?.messageStructure, undefined, 'String structure');
    assert.equal(m?.message, deliveredAs(firing, 'sqs'), 'the same document');
    const document = JSON.parse(m?.message ?? '') as NotificationDocument;
    assertValidDocument(document);
    const [node] = document.nodes;
    assert.equal(node?.name, victim);
    assert.deepEqual(m?.attributes, {
      cluster: { dataType: 'String', stringValue: 'prod', binaryValue: undefined },
      kind: { dataType: 'String', stringValue: 'FIRING', binaryValue: undefined },
      severity: { dataType: 'String', stringValue: 'critical', binaryValue: undefined },
      zones: {
        dataType: 'String.Array',
        stringValue: JSON.stringify([node?.zone]),
        binaryValue: undefined,
      },
      nodeGroups: {
        dataType: 'String.Array',
        stringValue: JSON.stringify([node?.nodeGroup]),
        binaryValue: undefined,
      },
    });
    assert.deepEqual(firing.attributes, {});
  });
});
