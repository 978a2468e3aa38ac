/**
 * Every chat payload the renderer makes is a custom notification Amazon Q Developer in chat
 * applications can read (testkit/chat-notification-format.ts, from AWS's documented format): each
 * kind, with plain, hostile and huge inputs, and the one the real handler publishes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderChatNotification } from '../lambda/adapters/notify/render/chat.js';
import type { AlertNode, Notification } from '../lambda/core/notification.js';
import { chatFormatProblems } from '../testkit/chat-notification-format.js';
import { AT, alertNode, manyNodes, notification } from '../testkit/notifications.js';

/** Names a cluster could hand over: empty, markup only, controls, a lone surrogate, huge, emoji. */
const HOSTILE = [
  '',
  '<>',
  '`',
  '\u0000\u001b[31m\u0007',
  '\ud800',
  '\u202e\u200b',
  'x'.repeat(300),
  '🔥'.repeat(200),
  'a\nb\r\nc',
  '<!channel> <https://evil.example|click> `rm -rf /`',
];

const STORM = {
  scope: 'zone' as const,
  zones: [{ zone: 'eu-west-1a', total: 20, silent: 14 }],
  clusterTotal: 60,
  clusterSilent: 14,
};

/** One notification of each kind (and each notice topic), its nodes `nodes`. */
function everyKind(nodes: readonly AlertNode[], cluster = 'prod-eu', text = 'why'): Notification[] {
  return [
    notification({ cluster, firing: nodes }),
    notification({ cluster, kind: 'RESOLVED', severity: 'info', resolved: nodes }),
    notification({ cluster, kind: 'REMINDER', severity: 'warning', reminders: nodes }),
    notification({ cluster, kind: 'FLAPPING', severity: 'warning', flapping: nodes }),
    notification({ cluster, kind: 'STORM', firing: nodes, storm: STORM }),
    notification({ cluster, kind: 'STORM', severity: 'info', storm: { ...STORM, state: 'ended' } }),
    notification({
      cluster,
      kind: 'WATCHDOG',
      watchdog: { state: 'failing', failure: 'forbidden', message: text, since: AT },
    }),
    notification({
      cluster,
      kind: 'WATCHDOG',
      severity: 'info',
      watchdog: { state: 'resolved', failure: 'timeout', message: text, since: AT },
    }),
    notification({
      cluster,
      kind: 'NOTICE',
      severity: 'warning',
      notice: { topic: 'degraded', state: 'started', message: text, since: AT },
    }),
    notification({
      cluster,
      kind: 'NOTICE',
      severity: 'warning',
      notice: { topic: 'state-reset', message: text, copy: text },
    }),
    notification({
      cluster,
      kind: 'NOTICE',
      severity: 'warning',
      notice: { topic: 'silences-set-aside', message: text, copy: text },
    }),
  ];
}

function assertConforms(n: Notification, label: string): void {
  const message = JSON.stringify(renderChatNotification(n, { link: 'https://wiki.example.com' }));
  assert.deepEqual(chatFormatProblems(message), [], `${n.kind} ${label}`);
}

describe('chat payloads against the custom notification format', () => {
  it('the checker finds what the service would drop', () => {
    const content = { textType: 'client-markdown', description: 'x' };
    const check = (event: object) => chatFormatProblems(JSON.stringify(event)).sort();
    assert.deepEqual(check({ version: '1.0', source: 'custom', content }), []);
    assert.deepEqual(check({ version: '2.0', source: 'custom', content: { description: 'x' } }), [
      'content.textType: must be "client-markdown"',
      'version: must be "1.0"',
    ]);
    assert.deepEqual(
      check({ version: '1.0', source: 'custom', content: { ...content, keywords: [''] }, x: 1 }),
      ['content.keywords[0]: a non-empty string', 'x: not in the format'],
    );
  });

  it('every kind, plain', () => {
    for (const n of everyKind([alertNode('ip-10-0-1-5.eu-west-1.compute.internal')])) {
      assertConforms(n, 'plain');
    }
  });

  it('every kind, with hostile node names, zones, node groups, reasons and clusters', () => {
    for (const name of HOSTILE) {
      const node = alertNode(name, {
        zone: name,
        nodeGroup: name,
        instance: name,
        instanceType: name,
        capacityType: name,
        reason: name,
      });
      for (const n of everyKind([node, alertNode(`${name}2`)], name, name)) {
        assertConforms(n, JSON.stringify(name));
      }
    }
  });

  it('every kind, with 100,000 nodes', () => {
    for (const n of everyKind(manyNodes(100_000, ['eu-west-1a', 'eu-west-1b', 'eu-west-1c']))) {
      assertConforms(n, '100,000 nodes');
    }
  });
});
