/** SnsNotifier (and the machine topic's copy) through the real `@aws-sdk/client-sns` to the local SNS endpoint. */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { SNSClient } from '@aws-sdk/client-sns';
import { WithMachineCopy } from '../lambda/adapters/notify/delivery/machine-notifier.js';
import {
  deduplicationId,
  messageGroupId,
  PublishError,
  publishInput,
  SnsNotifier,
} from '../lambda/adapters/notify/delivery/sns-notifier.js';
import { renderBody, renderSubject } from '../lambda/adapters/notify/render/render.js';
import type { Notification } from '../lambda/core/notification.js';
import { alertNode, eksName, manyNodes, notification } from '../testkit/notifications.js';
import { type SnsServer, startSnsServer } from '../testkit/sns-server.js';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog';
const FIFO = 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog.fifo';
const MACHINE = 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog-machine';

let sns: SnsServer;
let client: SNSClient;

function clientFor(server: SnsServer, maxAttempts = 1): SNSClient {
  return new SNSClient({
    region: 'us-east-1',
    endpoint: server.url,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts,
  });
}

const firing = notification({
  firing: [alertNode(eksName(1, 5)), alertNode(eksName(2, 7), { zone: 'eu-west-1b' })],
});

describe('SnsNotifier', () => {
  before(async () => {
    sns = await startSnsServer();
    client = clientFor(sns);
  });
  after(async () => {
    client.destroy();
    await sns.close();
  });
  beforeEach(() => sns.reset());

  describe('SnsNotifier on a standard topic', () => {
    it('publishes subject and body, JSON structure, no message attributes (SNS would not send them); no FIFO fields', async () => {
      const logged: Array<Record<string, unknown>> = [];
      const notifier = new SnsNotifier({
        client,
        topicArn: TOPIC,
        logger: { info: (_message, fields) => logged.push(fields) },
      });
      await notifier.publish(firing);

      assert.equal(sns.messages.length, 1);
      const [m] = sns.messages;
      assert.equal(m?.topicArn, TOPIC);
      assert.equal(m?.subject, '[prod-eu] FIRING: 2 nodes down (ip-10-0-1-5..., ip-10-0-2-7...)');
      assert.equal(m?.message, renderBody(firing));
      assert.equal(m?.messageStructure, 'json');
      assert.deepEqual(m?.attributes, {});
      assert.equal(m?.messageGroupId, undefined);
      assert.equal(m?.messageDeduplicationId, undefined);
      assert.equal(logged.length, 1);
      assert.equal(logged[0]?.messageId, m?.messageId);
      assert.equal(logged[0]?.cluster, 'prod-eu');
      assert.equal(logged[0]?.kind, 'FIRING');
    });

    it('renders each body with the context of its cluster', async () => {
      const asked: string[] = [];
      const notifier = new SnsNotifier({
        client,
        topicArn: TOPIC,
        contextFor: (cluster) => {
          asked.push(cluster);
          return { namespace: 'leases-prod' };
        },
      });
      await notifier.publish(firing);
      assert.deepEqual(asked, ['prod-eu']);
      const [m] = sns.messages;
      assert.equal(m?.message, renderBody(firing, { namespace: 'leases-prod' }));
      assert.match(m?.message ?? '', / -n leases-prod -o yaml$/m);
    });

    it('the machine topic: every kind goes out as its document, String structure, with its own kind and severity attributes', async () => {
      const notifier = new WithMachineCopy(new SnsNotifier({ client, topicArn: TOPIC }), {
        client,
        topicArn: MACHINE,
      });
      const all: Notification[] = [
        firing,
        notification({ kind: 'RESOLVED', severity: 'info', resolved: [alertNode('a')] }),
        notification({ kind: 'REMINDER', reminders: [alertNode('a')] }),
        notification({ kind: 'FLAPPING', severity: 'warning', flapping: [alertNode('a')] }),
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
        notification({
          kind: 'WATCHDOG',
          watchdog: { state: 'failing', failure: 'unauthorized', message: '401', since: 0 },
        }),
      ];
      for (const n of all) await notifier.publish(n);
      const machine = sns.messages.filter((m) => m.topicArn === MACHINE);
      assert.ok(machine.every((m) => m.messageStructure === undefined));
      assert.deepEqual(
        machine.map((m) => JSON.parse(m.message).kind),
        all.map((n) => n.kind),
      );
      assert.deepEqual(machine[0]?.attributes.zones, {
        dataType: 'String.Array',
        stringValue: '["eu-west-1a","eu-west-1b"]',
        binaryValue: undefined,
      });
      assert.deepEqual(
        machine.map((m) => [m.attributes.kind?.stringValue, m.attributes.severity?.stringValue]),
        all.map((n) => [n.kind, n.severity]),
      );
    });

    const hostile: Array<[string, string]> = [
      ['newline', 'ip-10-0-1-5\nBcc: x@example.com'],
      ['carriage return', 'a\r\nb'],
      ['NUL', 'a\u0000b'],
      ['RTL override', 'node-\u202egnp.exe'],
      ['300 characters', 'n'.repeat(300)],
      ['emoji', '🔥💀'],
      ['non-ASCII', 'nœud-ノード'],
      ['only controls', '\u0000\n\r'],
    ];
    for (const [label, name] of hostile) {
      it(`hostile cluster and node names (${label}) pass SNS's subject rules`, async () => {
        const n = notification({
          cluster: name,
          firing: [alertNode(name), alertNode(`${name}-2`)],
        });
        const sent = new SnsNotifier({ client, topicArn: TOPIC });
        await new WithMachineCopy(sent, { client, topicArn: MACHINE }).publish(n);
        const [m, machine] = sns.messages;
        assert.ok(m?.subject && m.subject.length < 100, m?.subject);
        assert.equal(m?.subject, renderSubject(n));
        assert.equal(machine?.topicArn, MACHINE);
        const cluster = machine?.attributes.cluster?.stringValue ?? '';
        assert.ok(cluster.length > 0 && cluster.length <= 256);
        assert.doesNotMatch(cluster, /[\p{Cc}\u202e]/u);
      });
    }

    it('a 100,000-node FIRING is accepted (shortened, not rejected)', async () => {
      const n = notification({ firing: manyNodes(100_000) });
      await new SnsNotifier({ client, topicArn: TOPIC }).publish(n);
      assert.equal(sns.messages.length, 1);
      assert.match(sns.messages[0]?.message ?? '', /… and [\d,]+ more nodes/);
    });
  });

  describe('SnsNotifier on a FIFO topic', () => {
    it('sets MessageGroupId to the cluster and MessageDeduplicationId to the notification id', async () => {
      const notifier = new SnsNotifier({ client, topicArn: FIFO });
      await notifier.publish(firing);
      const [m] = sns.messages;
      assert.equal(m?.messageGroupId, 'prod-eu');
      assert.equal(m?.messageDeduplicationId, firing.id);
    });

    it('a notification published twice (a retry after a lost answer) is delivered once', async () => {
      const notifier = new SnsNotifier({ client, topicArn: FIFO });
      await notifier.publish(firing);
      await notifier.publish(firing);
      assert.equal(sns.messages.length, 1);
      assert.equal(sns.duplicates, 1);
    });

    it('hostile cluster names and long ids still make valid FIFO fields', async () => {
      const n = notification({
        id: `${'x'.repeat(200)} with spaces é`,
        cluster: 'prod eu\n🔥 é',
        firing: [alertNode('a')],
      });
      await new SnsNotifier({ client, topicArn: FIFO }).publish(n);
      const [m] = sns.messages;
      assert.equal(m?.messageGroupId, 'prod-eu-?-e');
      assert.match(m?.messageDeduplicationId ?? '', /^[0-9a-f]{64}$/);
      assert.equal(deduplicationId(n.id), m?.messageDeduplicationId, 'deterministic');
    });

    it('group and deduplication ids stay within 128 allowed characters', () => {
      const group = messageGroupId('c'.repeat(300));
      assert.equal(group.length, 128);
      assert.equal(messageGroupId('\n'), '-');
      assert.equal(messageGroupId(''), 'cluster');
      assert.equal(deduplicationId('prod-eu:123:FIRING'), 'prod-eu:123:FIRING');
      assert.equal(deduplicationId('y'.repeat(129)).length, 64);
    });
  });

  describe('SnsNotifier failures', () => {
    it('a 500 answer surfaces as a retryable PublishError, and the next check delivers it', async () => {
      const notifier = new SnsNotifier({ client, topicArn: TOPIC });
      sns.failNext(1, 'internal');
      await assert.rejects(notifier.publish(firing), (error: unknown) => {
        assert.ok(error instanceof PublishError);
        assert.equal(error.name, 'PublishError');
        assert.equal(error.retryable, true);
        assert.equal(error.statusCode, 500);
        assert.equal(error.code, 'InternalErrorException');
        assert.ok(error.cause instanceof Error);
        assert.match(
          error.message,
          /^SNS did not accept the FIRING notification for cluster prod-eu: InternalErrorException \(HTTP 500\)/,
        );
        assert.doesNotMatch(error.message, /\n|local|123456789012/);
        return true;
      });
      assert.equal(sns.messages.length, 0);
      await notifier.publish(firing);
      assert.equal(sns.messages.length, 1);
    });

    it('throttling is retryable', async () => {
      const notifier = new SnsNotifier({ client, topicArn: TOPIC });
      for (const failure of ['throttled', 'throttling'] as const) {
        sns.failNext(1, failure);
        await assert.rejects(notifier.publish(firing), (error: unknown) => {
          assert.ok(error instanceof PublishError);
          assert.equal(error.retryable, true, failure);
          return true;
        });
      }
    });

    it('with SDK retries on, a failed first attempt still delivers exactly once', async () => {
      const retrying = clientFor(sns, 3);
      try {
        sns.failNext(1, 'internal');
        await new SnsNotifier({ client: retrying, topicArn: TOPIC }).publish(firing);
        assert.equal(sns.requests, 2);
        assert.equal(sns.messages.length, 1);
      } finally {
        retrying.destroy();
      }
    });

    it('the abort signal cancels a publish that hangs (the Lambda deadline)', async () => {
      sns.failNext(1, 'hang');
      const started = Date.now();
      await assert.rejects(
        new SnsNotifier({ client, topicArn: TOPIC }).publish(firing, AbortSignal.timeout(150)),
        (error: unknown) => {
          assert.ok(error instanceof PublishError);
          assert.equal(error.retryable, true);
          assert.equal(error.code, 'AbortError');
          assert.match(error.message, /aborted/);
          return true;
        },
      );
      assert.ok(Date.now() - started < 5_000);
      assert.equal(sns.messages.length, 0);
    });

    it('a rejected request (400) is not retryable', async () => {
      // A real SNS cannot be made to reject this notifier's requests, so a fake client stands in.
      const rejecting = {
        send: async () => {
          throw Object.assign(new Error('Invalid parameter: Subject\nsecond line'), {
            name: 'InvalidParameterException',
            $metadata: { httpStatusCode: 400 },
          });
        },
      } as unknown as SNSClient;
      await assert.rejects(
        new SnsNotifier({ client: rejecting, topicArn: TOPIC }).publish(firing),
        (error: unknown) => {
          assert.ok(error instanceof PublishError);
          assert.equal(error.retryable, false);
          assert.equal(error.statusCode, 400);
          assert.match(
            error.message,
            /InvalidParameterException \(HTTP 400\): Invalid parameter: Subject$/,
          );
          return true;
        },
      );
    });

    it('refuses a topic ARN that is not one', () => {
      assert.throws(
        () => new SnsNotifier({ client, topicArn: 'lease-watchdog' }),
        /topicArn must be an SNS topic ARN/,
      );
    });
  });

  describe('publishInput', () => {
    it('is pure and matches the renderer', () => {
      const input = publishInput(firing, FIFO);
      assert.equal(input.Subject, renderSubject(firing));
      assert.equal(input.MessageStructure, 'json');
      assert.equal(JSON.parse(input.Message ?? '').default, renderBody(firing));
      assert.equal(input.MessageGroupId, 'prod-eu');
      assert.deepEqual(publishInput(firing, FIFO), input);
    });
  });
});
