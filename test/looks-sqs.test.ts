/**
 * The SQS adapter of the `Looks` port, driven by the real `@aws-sdk/client-sqs` against a small
 * scripted SQS endpoint (AWS JSON 1.0, as the client speaks it): one SendMessage per look, to the
 * queue, its body the event of the invocation it causes, its DelaySeconds the whole seconds up to
 * the moment asked for (0–900); a refusal is one clear error. The dispatcher's fan-out
 * (SqsChecks) on the same endpoint: ten checks a SendMessageBatch, each with its own delay, what
 * SQS refused tried once more, then returned. Never AWS.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsChecks } from '../lambda/adapters/dispatch/sqs-checks.js';
import { SqsLooks } from '../lambda/adapters/looks/sqs-looks.js';
import { queuedEventOf } from '../lambda/handler/queued-body.js';

const QUEUE = 'https://sqs.us-east-1.amazonaws.com/123456789012/lease-watchdog-rechecks';

interface Received {
  readonly target: string | undefined;
  readonly body: Record<string, unknown>;
}

describe('SqsLooks, through the real SQS client', () => {
  let server: Server;
  let client: SQSClient;
  const received: Received[] = [];
  let refuse = false;
  let failEntry = false;

  before(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => {
        text += chunk;
      });
      req.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        received.push({ target: req.headers['x-amz-target'] as string | undefined, body });
        res.setHeader('content-type', 'application/x-amz-json-1.0');
        if (refuse) {
          res.statusCode = 400;
          res.end(
            JSON.stringify({
              __type: 'com.amazonaws.sqs#QueueDoesNotExist',
              message: 'The specified queue does not exist.',
            }),
          );
          return;
        }
        const md5 = (text: unknown) =>
          createHash('md5')
            .update(String(text ?? ''))
            .digest('hex');
        if (Array.isArray(body.Entries)) {
          const entries = body.Entries as { Id: string; MessageBody: string }[];
          const [refused, ...taken] = failEntry ? entries : [undefined, ...entries];
          res.end(
            JSON.stringify({
              Successful: taken.map((e) => ({
                Id: e?.Id,
                MessageId: `m-${e?.Id}`,
                MD5OfMessageBody: md5(e?.MessageBody),
              })),
              Failed: refused
                ? [
                    {
                      Id: refused.Id,
                      Code: 'InternalError',
                      SenderFault: false,
                      Message: 'try again',
                    },
                  ]
                : [],
            }),
          );
          return;
        }
        res.end(
          JSON.stringify({
            MessageId: `m-${received.length}`,
            MD5OfMessageBody: md5(body.MessageBody),
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    client = new SQSClient({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
  });
  after(async () => {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends one delayed message whose body is the look it asks for', async () => {
    const now = 1_000_000;
    const rechecks = new SqsLooks({ client, queueUrl: QUEUE, clock: () => now });
    await rechecks.schedule('prod', ['ip-10-0-1-12', 'ip-10-0-2-7'], now + 37_200);
    const sent = received.at(-1);
    assert.equal(sent?.target, 'AmazonSQS.SendMessage');
    assert.equal(sent?.body.QueueUrl, QUEUE);
    assert.equal(sent?.body.DelaySeconds, 38, 'rounded up: never before the moment asked for');
    const look = queuedEventOf(String(sent?.body.MessageBody));
    assert.deepEqual(look, {
      cluster: 'prod',
      look: { suspects: ['ip-10-0-1-12', 'ip-10-0-2-7'] },
    });
  });

  it('a moment already past is sent at once; one beyond SQS’s 900 s waits 900 s', async () => {
    const now = 5_000_000;
    const rechecks = new SqsLooks({ client, queueUrl: QUEUE, clock: () => now });
    await rechecks.schedule('prod', [], now - 3_000);
    assert.equal(received.at(-1)?.body.DelaySeconds, 0);
    await rechecks.schedule('prod', [], now + 3_600_000);
    assert.equal(received.at(-1)?.body.DelaySeconds, 900);
  });

  it('names at most 20 suspects (a frozen cluster has thousands; the look reads them all)', async () => {
    const rechecks = new SqsLooks({ client, queueUrl: QUEUE, clock: () => 0 });
    const many = Array.from({ length: 5_000 }, (_, i) => `node-${i}`);
    await rechecks.schedule('prod', many, 12_000);
    const look = queuedEventOf(String(received.at(-1)?.body.MessageBody));
    assert.equal(look.look?.suspects.length, 20);
  });

  it('a refusal rejects with one line naming the cluster and what SQS said', async () => {
    refuse = true;
    try {
      const rechecks = new SqsLooks({ client, queueUrl: QUEUE, clock: () => 0 });
      await assert.rejects(rechecks.schedule('prod', [], 1_000), (error: Error) => {
        assert.equal(error.name, 'LookRequestError');
        assert.match(error.message, /^SQS did not take a re-check of cluster prod: .*exist/);
        assert.ok(!error.message.includes('\n'));
        return true;
      });
    } finally {
      refuse = false;
    }
  });

  it('asks for a run’s routine looks in one SendMessageBatch, each with its own delay and the run', async () => {
    const now = 2_000_000;
    const rechecks = new SqsLooks({ client, queueUrl: QUEUE, clock: () => now });
    const before = received.length;
    await rechecks.scheduleLooks('prod', [now + 10_000, now + 39_500, now + 80_000], now - 300);
    assert.equal(received.length - before, 1, 'one request');
    const sent = received.at(-1);
    assert.equal(sent?.target, 'AmazonSQS.SendMessageBatch');
    const entries = sent?.body.Entries as { DelaySeconds: number; MessageBody: string }[];
    assert.deepEqual(
      entries.map((e) => e.DelaySeconds),
      [10, 40, 80],
    );
    for (const e of entries)
      assert.deepEqual(queuedEventOf(e.MessageBody), {
        cluster: 'prod',
        look: { suspects: [], run: now - 300 },
      });
  });

  it('a look of the batch that SQS did not take rejects with one line', async () => {
    failEntry = true;
    try {
      const rechecks = new SqsLooks({ client, queueUrl: QUEUE, clock: () => 0 });
      await assert.rejects(rechecks.scheduleLooks('prod', [40_000, 80_000], 0), (error: Error) => {
        assert.equal(error.name, 'LookRequestError');
        assert.match(
          error.message,
          /^SQS did not take 1 of 2 looks at cluster prod: InternalError/,
        );
        assert.ok(!error.message.includes('\n'));
        return true;
      });
    } finally {
      failEntry = false;
    }
  });

  it('fans 25 checks out in 3 SendMessageBatch requests, each with its delay and its cluster', async () => {
    const before = received.length;
    const checks = Array.from({ length: 25 }, (_, i) => ({
      cluster: `c-${i}`,
      delaySeconds: i % 10,
    }));
    const refused = await new SqsChecks({ client, queueUrl: QUEUE }).send(checks);
    assert.deepEqual(refused, []);
    const sent = received.slice(before);
    assert.equal(sent.length, 3);
    const entries = sent.flatMap(
      (r) => r.body.Entries as { DelaySeconds: number; MessageBody: string }[],
    );
    assert.deepEqual(
      entries
        .map((e) => queuedEventOf(e.MessageBody))
        .sort((a, b) => Number(a.cluster?.slice(2)) - Number(b.cluster?.slice(2))),
      checks.map((c) => ({ cluster: c.cluster })),
    );
    assert.deepEqual(
      entries.map((e) => e.DelaySeconds).sort(),
      checks.map((c) => c.delaySeconds).sort(),
    );
  });

  it('a check SQS refuses is sent once more, then returned; a refused request returns its batch', async () => {
    failEntry = true;
    try {
      const checks = [
        { cluster: 'a', delaySeconds: 0 },
        { cluster: 'b', delaySeconds: 1 },
      ];
      // The first entry of every batch is refused: `a`, then `a` again on its own.
      assert.deepEqual(await new SqsChecks({ client, queueUrl: QUEUE }).send(checks), ['a']);
    } finally {
      failEntry = false;
    }
    refuse = true;
    try {
      const checks = [
        { cluster: 'a', delaySeconds: 0 },
        { cluster: 'b', delaySeconds: 1 },
      ];
      assert.deepEqual(await new SqsChecks({ client, queueUrl: QUEUE }).send(checks), ['a', 'b']);
    } finally {
      refuse = false;
    }
  });

  it('a queued check is a scheduled check of its cluster; a look stays a look', () => {
    assert.deepEqual(queuedEventOf('{"cluster": "prod"}'), { cluster: 'prod' });
    assert.deepEqual(queuedEventOf('{"cluster": "prod", "look": {"suspects": []}}'), {
      cluster: 'prod',
      look: { suspects: [] },
    });
    // A routine look carries its run; a run that is not a number is left out (the look runs).
    assert.deepEqual(queuedEventOf('{"cluster": "prod", "look": {"suspects": [], "run": 7}}'), {
      cluster: 'prod',
      look: { suspects: [], run: 7 },
    });
    assert.deepEqual(queuedEventOf('{"cluster": "prod", "look": {"suspects": [], "run": "7"}}'), {
      cluster: 'prod',
      look: { suspects: [] },
    });
    assert.throws(() => queuedEventOf('{"cluster": 3}'), /: cluster: /);
  });

  it('a queued message that is neither is refused with one line naming where', () => {
    assert.throws(() => queuedEventOf('nope'), /^Error: the message body is not JSON$/);
    assert.throws(() => queuedEventOf('{"cluster": "prod", "look": {}}'), /: look\.suspects: /);
    assert.throws(() => queuedEventOf('{"cluster": "prod", "lok": {}}'), /: the body: .*"lok"/);
    assert.throws(() => queuedEventOf('[]'), /: the body: /);
  });

  it('a look queued by the previous version (`recheck`) is still a look after a deploy', () => {
    assert.deepEqual(queuedEventOf('{"cluster": "prod", "recheck": ["ip-10-0-1-12"]}'), {
      cluster: 'prod',
      look: { suspects: ['ip-10-0-1-12'] },
    });
  });
});
