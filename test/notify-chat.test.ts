/**
 * Chat notifications: the Amazon Q Developer in chat applications custom notification per kind,
 * the copy to the chat topic through the real SNS client to the local endpoint, its setting, and
 * the whole path through the real handler.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { SNSClient } from '@aws-sdk/client-sns';
import { WithChatCopy } from '../lambda/adapters/notify/delivery/chat-notifier.js';
import { SnsNotifier } from '../lambda/adapters/notify/delivery/sns-notifier.js';
import {
  CHAT_DESCRIPTION_MAX_CHARS,
  type ChatNotification,
  renderChatNotification,
} from '../lambda/adapters/notify/render/chat.js';
import type { Notification } from '../lambda/core/notification.js';
import { checksOverdueNotice, composeNotice } from '../lambda/core/watchdog-alerts.js';
import { ConfigError, loadRuntimeConfig, parseWatchdogSettings } from '../lambda/settings/index.js';
import { chatFormatProblems } from '../testkit/chat-notification-format.js';
import { AT, alertNode, eksName, manyNodes, notification } from '../testkit/notifications.js';
import { type SnsServer, startSnsServer } from '../testkit/sns-server.js';
import { type Harness, startWatchdogHarness, summary } from '../testkit/watchdog-harness.js';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog';
const CHAT = 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog-chat';
const LINK = 'https://wiki.example.com/runbooks/lease-watchdog';

const firing = notification({
  firing: [
    alertNode(eksName(1, 5), { nodeGroup: 'general-purpose', instanceType: 'm7g.xlarge' }),
    alertNode(eksName(2, 7), { zone: 'eu-west-1b', capacityType: 'spot' }),
  ],
});

describe('the custom notification', () => {
  it('its kubectl next steps name the context the cluster settings give', () => {
    const chat = renderChatNotification(firing, {
      kube: { eks: { clusterName: 'prod-eu', region: 'eu-west-1' } },
    });
    assert.deepEqual(chat.content.nextSteps.slice(0, 2), [
      '`aws eks update-kubeconfig --name prod-eu --region eu-west-1 --alias prod-eu`',
      '`kubectl --context prod-eu get nodes -o wide`',
    ]);
  });

  it('FIRING: title, description per node, kubectl next steps and the link', () => {
    const chat = renderChatNotification(firing, { link: LINK });
    assert.equal(chat.version, '1.0');
    assert.equal(chat.source, 'custom');
    assert.equal(chat.id, firing.id);
    assert.equal(chat.content.textType, 'client-markdown');
    assert.equal(chat.content.title, '🔴 [prod-eu] FIRING: 2 nodes down');
    assert.equal(
      chat.content.description,
      [
        '*Cluster:* prod-eu',
        '*Down (2):*',
        `• *${eksName(1, 5)}* — expired (eu-west-1a, node group general-purpose, i-0abc1234567890def, m7g.xlarge): lease not renewed for 200 s (grace period 50 s)`,
        `• *${eksName(2, 7)}* — expired (eu-west-1b, i-0abc1234567890def, spot): lease not renewed for 200 s (grace period 50 s)`,
      ].join('\n'),
    );
    assert.deepEqual(chat.content.nextSteps, [
      '`# prod-eu: your kubeconfig context for this cluster (kubectl config get-contexts)`',
      '`kubectl --context prod-eu get nodes -o wide`',
      `\`kubectl --context prod-eu describe node ${eksName(1, 5)}\``,
      `\`kubectl --context prod-eu get lease ${eksName(1, 5)} -n kube-node-lease -o yaml\``,
      `\`kubectl --context prod-eu get events -A --field-selector involvedObject.name=${eksName(1, 5)}\``,
      '`aws ec2 describe-instance-status --instance-ids i-0abc1234567890def --include-all-instances --region eu-west-1`',
      '`aws ssm start-session --target i-0abc1234567890def --region eu-west-1`',
      `Runbook: ${LINK}`,
    ]);
    assert.deepEqual(chat.content.keywords, [
      'FIRING',
      'critical',
      'prod-eu',
      'eu-west-1a',
      'eu-west-1b',
    ]);
    assert.equal(chat.metadata.eventType, 'FIRING');
    assert.equal(chat.metadata.summary, '[prod-eu] FIRING: 2 nodes down');
  });

  it('RESOLVED, REMINDER, FLAPPING, STORM and WATCHDOG each say what happened', () => {
    const cases: [Notification, RegExp, RegExp][] = [
      [
        notification({
          kind: 'RESOLVED',
          severity: 'info',
          resolved: [alertNode('a', { resolution: 'cordoned' })],
        }),
        /^🟢 \[prod-eu\] RESOLVED: 1 node removed$/,
        /\*Resolved \(1\):\*\n• \*a\* — cordoned/,
      ],
      [
        notification({ kind: 'REMINDER', severity: 'warning', reminders: [alertNode('a')] }),
        /^🟠 \[prod-eu\] REMINDER: 1 node still down$/,
        /\*Still down \(1\):\*/,
      ],
      [
        notification({ kind: 'FLAPPING', severity: 'warning', flapping: [alertNode('a')] }),
        /^🟠 \[prod-eu\] FLAPPING/,
        /\*Flapping \(1\):\*/,
      ],
      [
        notification({
          kind: 'STORM',
          firing: manyNodes(14),
          storm: {
            scope: 'zone',
            zones: [{ zone: 'eu-west-1a', total: 20, silent: 14 }],
            clusterTotal: 60,
            clusterSilent: 14,
          },
        }),
        /^🔴 \[prod-eu\] STORM: 14 of 20 nodes silent in eu-west-1a$/,
        /Storm: 14 of 20 nodes silent in eu-west-1a\. .*\n\*Down \(14\):\*(\n.*){10}\n… and 4 more nodes$/,
      ],
      [
        notification({
          kind: 'WATCHDOG',
          watchdog: { state: 'failing', failure: 'forbidden', message: '403', since: AT },
        }),
        /^🔴 \[prod-eu\] WATCHDOG: cannot read cluster \(forbidden\)$/,
        /cannot read this cluster \(forbidden\): 403\./,
      ],
    ];
    for (const [n, title, description] of cases) {
      const chat = renderChatNotification(n);
      assert.match(chat.content.title, title);
      assert.match(chat.content.description, description);
      assert.ok(chat.content.nextSteps.length > 0, n.kind);
    }
  });

  it("discovery's NOTICE and the fleet's checks-overdue NOTICE each say what happened", () => {
    const discovery = composeNotice('payments', AT, {
      topic: 'discovery',
      change: 'appeared',
      message: 'payments (eu-west-1) appeared',
      advice: 'aws eks x',
    });
    const overdue = checksOverdueNotice(
      'started',
      ['bravo', 'alpha'],
      { overdue: 2, afterMs: 180_000 },
      AT,
    );
    const cases: [Notification, RegExp, RegExp][] = [
      [discovery, /^🟢 \[payments\] NOTICE: discovered/, /appeared\nTo run: `aws eks x`/],
      [
        overdue,
        /^🟠 \[\(fleet\)\] NOTICE: checks stopped for 2 clusters/,
        /3 minutes.*alpha, bravo/,
      ],
    ];
    for (const [n, title, description] of cases) {
      const chat = renderChatNotification(n, {});
      assert.match(chat.content.title, title);
      assert.match(chat.content.description, description);
    }
  });

  it('hostile text loses link, mention and code markup; 100,000 nodes stay within bounds', () => {
    const hostile = 'x <!channel> <https://evil.example|click> `rm -rf` \u202e';
    const chat = renderChatNotification(
      notification({
        cluster: hostile,
        firing: [alertNode('a', { reason: hostile }), ...manyNodes(100_000)],
      }),
    );
    const text = JSON.stringify(chat.content);
    assert.doesNotMatch(text, /<|>|\u202e/);
    assert.doesNotMatch(chat.content.description, /`/);
    assert.ok(chat.content.description.length <= CHAT_DESCRIPTION_MAX_CHARS);
    assert.ok(chat.content.title.length <= 250);
    assert.match(chat.content.description, /… and 99,991 more nodes$/);
  });
});

describe('WithChatCopy through the local SNS endpoint', () => {
  let sns: SnsServer;
  let client: SNSClient;
  before(async () => {
    sns = await startSnsServer();
    client = new SNSClient({
      region: 'us-east-1',
      endpoint: sns.url,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
  });
  after(async () => {
    client.destroy();
    await sns.close();
  });
  beforeEach(() => sns.reset());

  const warnings: Record<string, unknown>[] = [];
  const logger = {
    info: () => undefined,
    warn: (_: string, f: Record<string, unknown>) => warnings.push(f),
  };
  const notifier = () =>
    new WithChatCopy(new SnsNotifier({ client, topicArn: TOPIC }), {
      client,
      topicArn: CHAT,
      logger,
      contextFor: () => ({ link: LINK }),
    });

  it('the topic gets the notification, then the chat topic its custom notification', async () => {
    await notifier().publish(firing);
    assert.deepEqual(
      sns.messages.map((m) => [m.topicArn, m.messageStructure]),
      [
        [TOPIC, 'json'],
        [CHAT, undefined],
      ],
    );
    const chat = JSON.parse(sns.messages[1]?.message ?? '') as ChatNotification;
    assert.deepEqual(
      chat,
      JSON.parse(JSON.stringify(renderChatNotification(firing, { link: LINK }))),
    );
  });

  it('a chat failure is logged and does not fail the notification; a topic failure sends no chat', async () => {
    warnings.length = 0;
    sns.failNext(1, 'accept');
    sns.failNext(1, 'internal');
    await notifier().publish(firing);
    assert.deepEqual(
      sns.messages.map((m) => m.topicArn),
      [TOPIC],
    );
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]?.error, 'InternalErrorException');

    sns.reset();
    sns.failNext(1, 'internal');
    await assert.rejects(notifier().publish(firing), /SNS did not accept the FIRING notification/);
    assert.equal(sns.messages.length, 0);
    assert.equal(sns.requests, 1, 'no chat publish for a notification the topic refused');
  });

  it('refuses a FIFO chat topic (the chat integration reads standard topics)', () => {
    assert.throws(
      () =>
        new WithChatCopy(new SnsNotifier({ client, topicArn: TOPIC }), {
          client,
          topicArn: `${CHAT}.fifo`,
        }),
      /the chat topic must be a standard SNS topic ARN/,
    );
  });
});

describe('the chatNotifications setting', () => {
  const cluster = {
    name: 'prod',
    auth: { mode: 'token', server: 'https://k8s.example.com', tokenSecretId: 't' },
  };
  const env = (settings: object, extra: Record<string, string> = {}) => ({
    LEASE_WATCHDOG_SETTINGS: JSON.stringify({ clusters: [cluster], ...settings }),
    TOPIC_ARN: TOPIC,
    STATE_TABLE: 'lease-watchdog-state',
    ...extra,
  });

  it('takes {} or an https link, and refuses anything else in one line', () => {
    assert.deepEqual(
      parseWatchdogSettings({ clusters: [cluster], chatNotifications: {} }).chatNotifications,
      {},
    );
    assert.equal(
      parseWatchdogSettings({ clusters: [cluster], chatNotifications: { link: LINK } })
        .chatNotifications?.link,
      LINK,
    );
    for (const link of [
      'http://wiki.example.com',
      'https://x.example.com/<!channel>',
      'https://a b',
    ]) {
      assert.throws(
        () => parseWatchdogSettings({ clusters: [cluster], chatNotifications: { link } }),
        (error: unknown) =>
          error instanceof ConfigError &&
          /^chatNotifications\.link must be an https URL/.test(error.message) &&
          !error.message.includes('\n'),
      );
    }
  });

  it('the function needs CHAT_TOPIC_ARN when it is set, and ignores it when not', () => {
    assert.throws(
      () => loadRuntimeConfig(env({ chatNotifications: {} })),
      (error: unknown) =>
        error instanceof ConfigError && /^CHAT_TOPIC_ARN is required/.test(error.message),
    );
    assert.equal(
      loadRuntimeConfig(env({ chatNotifications: {} }, { CHAT_TOPIC_ARN: CHAT })).chatTopicArn,
      CHAT,
    );
    assert.equal(loadRuntimeConfig(env({}, { CHAT_TOPIC_ARN: CHAT })).chatTopicArn, undefined);
  });
});

describe('lambda e2e: a FIRING reaches the chat topic as a custom notification', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 6 } },
      settings: { chatNotifications: { link: LINK } },
      chatTopicArn: CHAT,
    });
  });
  after(() => h.close());

  it('one message on each topic, the chat one naming the node, the commands and the link', async () => {
    const target = h.target('prod');
    const victim = target.nodes[2] as string;
    await h.run();
    target.sim.stopKubelet(victim);
    for (let i = 0; i < 3 && h.messages('FIRING').length === 0; i++) await h.tick();
    assert.equal(h.messages('FIRING').length, 1, summary(h.messages()));
    const chats = h.sns.messages.filter((m) => m.topicArn === CHAT);
    assert.equal(chats.length, 1);
    assert.deepEqual(chatFormatProblems(chats[0]?.message ?? ''), [], 'the documented format');
    const chat = JSON.parse(chats[0]?.message ?? '') as ChatNotification;
    assert.equal(chat.source, 'custom');
    assert.equal(chat.content.title, '🔴 [prod] FIRING: 1 node down');
    assert.ok(chat.content.description.includes(`*${victim}*`));
    assert.ok(
      chat.content.nextSteps.includes(`\`kubectl --context prod describe node ${victim}\``),
    );
    assert.ok(chat.content.nextSteps.includes(`Runbook: ${LINK}`));
  });
});
