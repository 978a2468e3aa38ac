/**
 * The local SNS endpoint rejects what SNS rejects, through the real SDK client — so the tests
 * that rely on it (subjects, sizes, FIFO fields) can fail.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  ListSubscriptionsByTopicCommand,
  PublishCommand,
  type PublishCommandInput,
  SNSClient,
  SubscribeCommand,
} from '@aws-sdk/client-sns';
import { SNS_MAX_MESSAGE_BYTES, type SnsServer, startSnsServer } from '../testkit/sns-server.js';

const TOPIC = 'arn:aws:sns:us-east-1:000000000000:alerts';
const FIFO = 'arn:aws:sns:us-east-1:000000000000:alerts.fifo';

let clock = 0;
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

function publish(input: Partial<PublishCommandInput>, c = client) {
  return c.send(new PublishCommand({ TopicArn: TOPIC, Message: 'hello', ...input }));
}

/** Asserts that SNS (the local one) answers 400 InvalidParameter-like errors. */
async function rejects(input: Partial<PublishCommandInput>, name: string, message: RegExp) {
  await assert.rejects(
    publish(input),
    (error: Error & { $metadata?: { httpStatusCode?: number } }) => {
      assert.equal(error.name, name);
      assert.equal(error.$metadata?.httpStatusCode, 400);
      assert.match(error.message, message);
      return true;
    },
  );
  assert.equal(sns.messages.length, 0, 'nothing recorded');
}

describe('sns-server', () => {
  before(async () => {
    sns = await startSnsServer({ now: () => clock });
    client = clientFor(sns);
  });
  after(async () => {
    client.destroy();
    await sns.close();
  });
  beforeEach(() => {
    sns.reset();
    clock = 1_000_000;
  });

  describe('sns-server accepts what SNS accepts', () => {
    it('records a publish, decoded, and answers a MessageId the SDK parses', async () => {
      const out = await publish({
        Subject: '[prod] FIRING: a+b & <c> 100%',
        Message: 'héllo\nworld 🔥 &amp; +',
        MessageAttributes: {
          cluster: { DataType: 'String', StringValue: 'prod-eu' },
          count: { DataType: 'Number', StringValue: '3' },
        },
      });
      assert.match(out.MessageId ?? '', /^[0-9a-f-]{36}$/);
      assert.equal(out.$metadata.httpStatusCode, 200);
      assert.ok(out.$metadata.requestId, 'request id from x-amzn-requestid');
      assert.equal(sns.messages.length, 1);
      const [m] = sns.messages;
      assert.equal(m?.messageId, out.MessageId);
      assert.equal(m?.topicArn, TOPIC);
      assert.equal(m?.subject, '[prod] FIRING: a+b & <c> 100%');
      assert.equal(m?.message, 'héllo\nworld 🔥 &amp; +');
      assert.deepEqual(m?.attributes, {
        cluster: { dataType: 'String', stringValue: 'prod-eu', binaryValue: undefined },
        count: { dataType: 'Number', stringValue: '3', binaryValue: undefined },
      });
      assert.equal(m?.messageGroupId, undefined);
    });

    it('accepts a 99-character subject and a message of exactly 262,144 bytes', async () => {
      await publish({ Subject: 'S'.repeat(99) });
      await publish({ Message: 'x'.repeat(SNS_MAX_MESSAGE_BYTES) });
      assert.equal(sns.messages.length, 2);
    });
  });

  describe('sns-server rejects what SNS rejects', () => {
    const subjects: Array<[string, string, RegExp]> = [
      ['100 characters', 'S'.repeat(100), /less than 100 characters/],
      ['a newline', 'two\nlines', /line breaks or control characters/],
      ['a carriage return', 'a\rb', /line breaks or control characters/],
      ['a NUL', 'a\u0000b', /line breaks or control characters/],
      ['a line separator', 'a\u2028b', /line breaks or control characters/],
      ['a leading space', ' leading', /must begin with a letter, number or punctuation/],
      ['an emoji', '🔥 fire', /must begin|ASCII/],
      ['non-ASCII', 'nœud down', /must be ASCII text/],
    ];
    for (const [label, subject, message] of subjects) {
      it(`a subject with ${label}`, async () => {
        await rejects({ Subject: subject }, 'InvalidParameterException', message);
      });
    }

    it('an empty message', async () => {
      await rejects({ Message: '' }, 'InvalidParameterException', /Empty message/);
    });

    it('a message one byte over 262,144 bytes (counted in UTF-8)', async () => {
      await rejects(
        { Message: `${'x'.repeat(SNS_MAX_MESSAGE_BYTES - 1)}é` },
        'InvalidParameterException',
        /Message too long/,
      );
    });

    it('a payload over the limit once attributes are counted', async () => {
      await rejects(
        {
          Message: 'x'.repeat(SNS_MAX_MESSAGE_BYTES - 10),
          MessageAttributes: { cluster: { DataType: 'String', StringValue: 'prod-eu-west' } },
        },
        'InvalidParameterException',
        /Message too long/,
      );
    });

    it('an empty String attribute', async () => {
      await rejects(
        { MessageAttributes: { cluster: { DataType: 'String', StringValue: '' } } },
        'InvalidParameterValueException',
        /must contain non-empty message attribute value/,
      );
    });

    it('an attribute with an unknown data type', async () => {
      await rejects(
        { MessageAttributes: { cluster: { DataType: 'Text', StringValue: 'x' } } },
        'InvalidParameterValueException',
        /invalid message attribute type/,
      );
    });

    it('a FIFO publish without MessageGroupId', async () => {
      await rejects(
        { TopicArn: FIFO, MessageDeduplicationId: 'd-1' },
        'InvalidParameterException',
        /MessageGroupId parameter is required/,
      );
    });

    it('a FIFO publish without MessageDeduplicationId', async () => {
      await rejects(
        { TopicArn: FIFO, MessageGroupId: 'g' },
        'InvalidParameterException',
        /MessageDeduplicationId provided explicitly/,
      );
    });

    it('a FIFO id longer than 128 characters or with a space', async () => {
      await rejects(
        { TopicArn: FIFO, MessageGroupId: 'g'.repeat(129), MessageDeduplicationId: 'd' },
        'InvalidParameterException',
        /MessageGroupId/,
      );
      await rejects(
        { TopicArn: FIFO, MessageGroupId: 'g', MessageDeduplicationId: 'a b' },
        'InvalidParameterException',
        /MessageDeduplicationId/,
      );
    });

    it('a deduplication id on a standard topic', async () => {
      await rejects(
        { MessageDeduplicationId: 'd-1' },
        'InvalidParameterException',
        /not valid for this topic type/,
      );
    });

    it('a request without a SigV4 signature', async () => {
      const response = await fetch(sns.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `Action=Publish&Version=2010-03-31&TopicArn=${encodeURIComponent(TOPIC)}&Message=x`,
      });
      assert.equal(response.status, 403);
      assert.match(await response.text(), /<Code>MissingAuthenticationToken<\/Code>/);
      assert.equal(sns.messages.length, 0);
    });
  });

  describe('sns-server FIFO deduplication', () => {
    const fifo = { TopicArn: FIFO, MessageGroupId: 'prod-eu', MessageDeduplicationId: 'n-1' };

    it('delivers a repeated deduplication id once within 5 minutes, again after', async () => {
      const first = await publish(fifo);
      clock += 4 * 60_000;
      const second = await publish(fifo);
      assert.equal(second.MessageId, first.MessageId);
      assert.ok(first.SequenceNumber && second.SequenceNumber);
      assert.equal(sns.messages.length, 1);
      assert.equal(sns.duplicates, 1);
      clock += 60_000 + 1;
      await publish(fifo);
      assert.equal(sns.messages.length, 2);
      assert.equal(sns.messages[1]?.messageGroupId, 'prod-eu');
      assert.equal(sns.messages[1]?.messageDeduplicationId, 'n-1');
    });
  });

  describe('sns-server injected failures, as the SDK sees them', () => {
    const failures: Array<['internal' | 'throttled' | 'throttling', string, number]> = [
      ['internal', 'InternalErrorException', 500],
      ['throttled', 'ThrottledException', 429],
      ['throttling', 'Throttling', 400],
    ];
    for (const [failure, name, status] of failures) {
      it(`${failure} → ${name} (HTTP ${status}), then success`, async () => {
        sns.failNext(1, failure);
        await assert.rejects(
          publish({}),
          (error: Error & { $metadata?: { httpStatusCode?: number } }) => {
            assert.equal(error.name, name);
            assert.equal(error.$metadata?.httpStatusCode, status);
            return true;
          },
        );
        assert.equal(sns.messages.length, 0);
        await publish({});
        assert.equal(sns.messages.length, 1);
        assert.equal(sns.requests, 2);
      });
    }

    it('the SDK retries all three by itself when allowed more than one attempt', async () => {
      const retrying = clientFor(sns, 4);
      try {
        sns.failNext(1, 'internal');
        sns.failNext(1, 'throttled');
        sns.failNext(1, 'throttling');
        const out = await publish({}, retrying);
        assert.equal(out.$metadata.attempts, 4);
        assert.equal(sns.requests, 4);
        assert.equal(sns.messages.length, 1);
      } finally {
        retrying.destroy();
      }
    });

    it('hang: no answer until the caller gives up', async () => {
      sns.failNext(1, 'hang');
      await assert.rejects(
        client.send(new PublishCommand({ TopicArn: TOPIC, Message: 'x' }), {
          abortSignal: AbortSignal.timeout(200),
        }),
        { name: 'AbortError' },
      );
      assert.equal(sns.messages.length, 0);
    });
  });

  describe('sns-server subscriptions (Subscribe, ListSubscriptionsByTopic)', () => {
    const subscribe = (Protocol: string, Endpoint: string, c = client) =>
      c.send(new SubscribeCommand({ TopicArn: TOPIC, Protocol, Endpoint }));
    const list = (NextToken?: string, c = client) =>
      c.send(new ListSubscriptionsByTopicCommand({ TopicArn: TOPIC, NextToken }));

    it('an email subscription is pending until confirmed; an sqs one is confirmed at once', async () => {
      const email = await subscribe('email', 'oncall@example.com');
      assert.equal(email.SubscriptionArn, 'pending confirmation');
      const queue = await subscribe('sqs', 'arn:aws:sqs:us-east-1:000000000000:q');
      assert.match(
        queue.SubscriptionArn ?? '',
        /^arn:aws:sns:us-east-1:000000000000:alerts:[0-9a-f-]{36}$/,
      );
      const withArn = await client.send(
        new SubscribeCommand({
          TopicArn: TOPIC,
          Protocol: 'email',
          Endpoint: 'platform@example.com',
          ReturnSubscriptionArn: true,
        }),
      );
      assert.match(withArn.SubscriptionArn ?? '', /^arn:aws:sns:/);

      const before = await list();
      assert.deepEqual(
        before.Subscriptions?.map((s) => [s.Protocol, s.Endpoint, s.SubscriptionArn, s.Owner]),
        [
          ['email', 'oncall@example.com', 'PendingConfirmation', '000000000000'],
          ['sqs', 'arn:aws:sqs:us-east-1:000000000000:q', queue.SubscriptionArn, '000000000000'],
          ['email', 'platform@example.com', 'PendingConfirmation', '000000000000'],
        ],
      );
      assert.equal(before.NextToken, undefined);
      sns.confirm('oncall@example.com');
      sns.unsubscribe('arn:aws:sqs:us-east-1:000000000000:q');
      const after = await list();
      assert.deepEqual(
        after.Subscriptions?.map((s) => [s.Endpoint, s.SubscriptionArn?.startsWith('arn:')]),
        [
          ['oncall@example.com', true],
          ['platform@example.com', false],
        ],
      );
    });

    it('lists 100 a page, then follows NextToken; other topics are not listed', async () => {
      for (let i = 0; i < 101; i++)
        await subscribe('sqs', `arn:aws:sqs:us-east-1:000000000000:q${i}`);
      await client.send(
        new SubscribeCommand({
          TopicArn: `${TOPIC}-other`,
          Protocol: 'sqs',
          Endpoint: 'arn:aws:sqs:us-east-1:000000000000:x',
        }),
      );
      const first = await list();
      assert.equal(first.Subscriptions?.length, 100);
      assert.ok(first.NextToken);
      const second = await list(first.NextToken);
      assert.deepEqual(
        second.Subscriptions?.map((s) => s.Endpoint),
        ['arn:aws:sqs:us-east-1:000000000000:q100'],
      );
      assert.equal(second.NextToken, undefined);
      assert.equal(sns.listRequests, 2);
      assert.equal(sns.requests, 0, 'requests counts publishes only');
    });

    it('rejects what SNS rejects: an unknown protocol, a malformed topic or NextToken', async () => {
      await assert.rejects(subscribe('pigeon', 'coop'), { name: 'InvalidParameterException' });
      await assert.rejects(
        client.send(new ListSubscriptionsByTopicCommand({ TopicArn: 'not-an-arn' })),
        { name: 'InvalidParameterException' },
      );
      await assert.rejects(list('bogus'), { name: 'InvalidParameterException' });
    });

    it('failures are scripted per action: a failed listing leaves publishes alone', async () => {
      sns.failNext(1, 'authorization', 'ListSubscriptionsByTopic');
      await publish({});
      assert.equal(sns.messages.length, 1);
      await assert.rejects(list(), (error: Error & { $metadata?: { httpStatusCode?: number } }) => {
        assert.equal(error.name, 'AuthorizationErrorException');
        assert.equal(error.$metadata?.httpStatusCode, 403);
        return true;
      });
      assert.deepEqual((await list()).Subscriptions, []);
    });
  });
});
