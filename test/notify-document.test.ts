/**
 * The machine-readable document and the filter attributes, per kind, validated against the
 * published JSON Schema; bounded for huge and hostile notifications.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { notificationExamples } from '../docs/notifications.js';
import {
  ARRAY_ATTRIBUTE_MAX_BYTES,
  DOCUMENT_PROTOCOLS,
  MESSAGE_MAX_BYTES,
  messageAttributes,
  structuredMessage,
} from '../lambda/adapters/notify/delivery/sns-notifier.js';
import { DOCUMENT_MAX_BYTES, renderDocument } from '../lambda/adapters/notify/render/document.js';
import { DOCUMENT_SCHEMA } from '../lambda/adapters/notify/render/document-version.js';
import { renderBody, renderSubject } from '../lambda/adapters/notify/render/render.js';
import { utf8Bytes } from '../lambda/adapters/notify/render/text.js';
import { NOTIFICATION_KINDS, type Notification } from '../lambda/core/notification.js';
import { assertValidDocument } from '../testkit/notification-schema.js';
import { AT, alertNode, eksName, manyNodes, notification } from '../testkit/notifications.js';

const facts = { nodeGroup: 'general-purpose', instanceType: 'm7g.xlarge', capacityType: 'spot' };

/** One notification of each situation, built as the alert lifecycle would. */
const BY_KIND: Record<string, Notification> = {
  FIRING: notification({
    firing: [alertNode(eksName(1, 5), facts), alertNode(eksName(2, 7), { zone: 'eu-west-1b' })],
  }),
  RESOLVED: notification({
    kind: 'RESOLVED',
    severity: 'info',
    resolved: [alertNode('a', { verdict: 'healthy', resolution: 'recovered', ...facts })],
  }),
  REMINDER: notification({ kind: 'REMINDER', severity: 'warning', reminders: [alertNode('a')] }),
  FLAPPING: notification({ kind: 'FLAPPING', severity: 'warning', flapping: [alertNode('b')] }),
  STORM: notification({
    kind: 'STORM',
    firing: manyNodes(14, ['eu-west-1c']),
    storm: {
      scope: 'zone',
      zones: [{ zone: 'eu-west-1c', total: 20, silent: 14 }],
      nodeGroups: [{ nodeGroup: 'general', total: 24, silent: 14 }],
      clusterTotal: 60,
      clusterSilent: 14,
    },
  }),
  WATCHDOG: notification({
    kind: 'WATCHDOG',
    watchdog: {
      state: 'failing',
      failure: 'forbidden',
      message: '403 Forbidden',
      since: AT - 60_000,
    },
  }),
  NOTICE: notification({
    kind: 'NOTICE',
    severity: 'warning',
    notice: {
      topic: 'degraded',
      state: 'started',
      message: 'nodes is forbidden: User "lease-watchdog" cannot list resource "nodes"',
      since: AT - 60_000,
    },
  }),
};

describe('the notification document', () => {
  for (const kind of NOTIFICATION_KINDS) {
    it(`a ${kind} validates against docs/schema/notification.v1.json`, () => {
      const n = BY_KIND[kind] ?? notification({ kind, firing: [alertNode('a', facts)] });
      const document = renderDocument(n);
      assertValidDocument(document);
      assert.equal(document.schema, DOCUMENT_SCHEMA);
      assert.equal(document.kind, kind);
      assert.equal(document.subject, renderSubject(n));
      assert.equal(document.checkedAt, '2026-11-29T17:55:00.000Z');
    });
  }

  it('every example of docs/NOTIFICATIONS.md validates', () => {
    for (const { notification: n } of notificationExamples())
      assertValidDocument(renderDocument(n));
  });

  it('FIRING: each node with its facts, times and reason', () => {
    const document = renderDocument(BY_KIND.FIRING as Notification);
    assert.deepEqual(document.nodes[0], {
      name: eksName(1, 5),
      change: 'firing',
      verdict: 'expired',
      zone: 'eu-west-1a',
      instance: 'i-0abc1234567890def',
      nodeGroup: 'general-purpose',
      instanceType: 'm7g.xlarge',
      capacityType: 'spot',
      renewTime: '2026-11-29T17:51:40.000000Z',
      silentForSeconds: 200,
      since: '2026-11-29T17:52:30.000Z',
      reason: 'lease not renewed for 200 s (grace period 50 s)',
      resolution: null,
    });
    assert.equal(document.nodes[1]?.nodeGroup, null);
    assert.deepEqual(document.zones, ['eu-west-1a', 'eu-west-1b']);
    assert.deepEqual(document.nodeGroups, ['general-purpose']);
    assert.deepEqual(document.counts, {
      firing: 2,
      flapping: 0,
      reminder: 0,
      resolved: 0,
      silenced: 0,
    });
    assert.equal(document.nodesOmitted, 0);
    assert.equal(document.summary, 'FIRING: 2 nodes down');
  });

  it('RESOLVED, REMINDER and FLAPPING: the change and the resolution', () => {
    const resolved = renderDocument(BY_KIND.RESOLVED as Notification);
    assert.equal(resolved.nodes[0]?.change, 'resolved');
    assert.equal(resolved.nodes[0]?.resolution, 'recovered');
    assert.equal(renderDocument(BY_KIND.REMINDER as Notification).nodes[0]?.change, 'reminder');
    assert.equal(renderDocument(BY_KIND.FLAPPING as Notification).nodes[0]?.change, 'flapping');
  });

  it('STORM: the storm with its zones; WATCHDOG: the failure and no nodes', () => {
    const storm = renderDocument(BY_KIND.STORM as Notification);
    assert.deepEqual(storm.storm, {
      state: 'active',
      scope: 'zone',
      zones: [{ zone: 'eu-west-1c', total: 20, silent: 14 }],
      nodeGroups: [{ nodeGroup: 'general', total: 24, silent: 14 }],
      clusterTotal: 60,
      clusterSilent: 14,
    });
    assert.equal(storm.nodes.length, 14);
    const notice = renderDocument(BY_KIND.NOTICE as Notification);
    assert.deepEqual(notice.notice, {
      topic: 'degraded',
      state: 'started',
      message: 'nodes is forbidden: User "lease-watchdog" cannot list resource "nodes"',
      since: new Date(AT - 60_000).toISOString(),
    });
    const watchdog = renderDocument(BY_KIND.WATCHDOG as Notification);
    assert.deepEqual(watchdog.watchdog, {
      state: 'failing',
      failure: 'forbidden',
      message: '403 Forbidden',
      since: '2026-11-29T17:54:00.000Z',
    });
    assert.deepEqual(watchdog.nodes, []);
    assert.deepEqual(watchdog.zones, []);
  });

  it('a 100,000-node FIRING lists what fits and says how many it left out', () => {
    const n = notification({ firing: manyNodes(100_000, ['eu-west-1a', 'eu-west-1b']) });
    const document = renderDocument(n);
    assertValidDocument(document);
    assert.ok(utf8Bytes(JSON.stringify(document)) <= DOCUMENT_MAX_BYTES);
    assert.ok(document.nodes.length > 50, `${document.nodes.length} nodes listed`);
    assert.equal(document.nodesOmitted, 100_000 - document.nodes.length);
    assert.equal(document.counts.firing, 100_000);
    assert.deepEqual(document.zones, ['eu-west-1a', 'eu-west-1b']);
  });

  it('hostile names and reasons are sanitised', () => {
    const hostile = 'node-\u202egnp.exe\n\u0000Bcc: x@example.com';
    const document = renderDocument(
      notification({
        cluster: `prod\r\n${hostile}`,
        firing: [alertNode(hostile, { reason: `${hostile}${'x'.repeat(2_000)}`, zone: hostile })],
      }),
    );
    assertValidDocument(document);
    const text = JSON.stringify(document);
    assert.doesNotMatch(text, /\\u202e|\\n|\\r|\\u0000/);
    assert.equal(document.nodes[0]?.name, 'node-gnp.exe Bcc: x@example.com');
    assert.ok((document.nodes[0]?.reason.length ?? 0) <= 500);
  });
});

describe('the JSON message structure', () => {
  it('default is the email text; each machine protocol the document', () => {
    const n = BY_KIND.FIRING as Notification;
    const structure = JSON.parse(structuredMessage(n)) as Record<string, string>;
    assert.deepEqual(Object.keys(structure).sort(), ['default', ...DOCUMENT_PROTOCOLS].sort());
    assert.equal(structure.default, renderBody(n));
    for (const protocol of DOCUMENT_PROTOCOLS) {
      assert.deepEqual(JSON.parse(structure[protocol] ?? ''), renderDocument(n));
    }
  });

  it('stays within the SNS limit with 100,000 nodes, the text shortened to make room', () => {
    const n = notification({ firing: manyNodes(100_000) });
    const message = structuredMessage(n);
    assert.ok(utf8Bytes(message) <= MESSAGE_MAX_BYTES, `${utf8Bytes(message)} bytes`);
    const text = (JSON.parse(message) as { default: string }).default;
    assert.match(text, /… and [\d,]+ more nodes \(not listed: message size limit\)/);
  });
});

describe('message attributes', () => {
  it('zones and nodeGroups as String.Array when there are any', () => {
    const attributes = messageAttributes(BY_KIND.FIRING as Notification);
    assert.deepEqual(attributes.zones, {
      DataType: 'String.Array',
      StringValue: '["eu-west-1a","eu-west-1b"]',
    });
    assert.deepEqual(attributes.nodeGroups, {
      DataType: 'String.Array',
      StringValue: '["general-purpose"]',
    });
    assert.equal(Object.keys(attributes).length, 5);
  });

  it('none for a notification without nodes (WATCHDOG), nor for nodes without groups', () => {
    const watchdog = messageAttributes(BY_KIND.WATCHDOG as Notification);
    assert.deepEqual(Object.keys(watchdog).sort(), ['cluster', 'kind', 'severity']);
    const noGroups = messageAttributes(BY_KIND.REMINDER as Notification);
    assert.equal(noGroups.nodeGroups, undefined);
    assert.equal(noGroups.zones?.StringValue, '["eu-west-1a"]');
  });

  it('storm zones count as zones', () => {
    const storm = notification({
      kind: 'STORM',
      storm: {
        state: 'ended',
        scope: 'zone',
        zones: [{ zone: 'eu-west-1c', total: 20, silent: 2 }],
        clusterTotal: 60,
        clusterSilent: 2,
      },
    });
    assert.equal(messageAttributes(storm).zones?.StringValue, '["eu-west-1c"]');
  });

  it('hostile values are sanitised; thousands of groups are cut to the byte bound', () => {
    const many = Array.from({ length: 3_000 }, (_, i) =>
      alertNode(`n${i}`, { nodeGroup: `group-${String(i).padStart(4, '0')}-${'g'.repeat(50)}` }),
    );
    const attributes = messageAttributes(
      notification({ firing: [alertNode('x', { zone: 'zone\n\u202e"a"' }), ...many] }),
    );
    const groups = JSON.parse(attributes.nodeGroups?.StringValue ?? '[]') as string[];
    assert.ok(utf8Bytes(attributes.nodeGroups?.StringValue ?? '') <= ARRAY_ATTRIBUTE_MAX_BYTES);
    assert.ok(groups.length > 10 && groups.length <= 100, `${groups.length} groups`);
    assert.deepEqual(JSON.parse(attributes.zones?.StringValue ?? '[]'), ['eu-west-1a', 'zone "a"']);
  });
});
