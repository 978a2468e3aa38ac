/**
 * The paging tools' one retry rule (lambda/adapters/on-call/on-call-request.ts): which answers are
 * retried and which are poison, a refused key dropped from the cache, and a tool's error text
 * quoted with the key redacted (a gateway echoing the Authorization header); `Retry-After` read
 * (the pace of one key: send-slots.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postWithKey, retryAnswer } from '../lambda/adapters/on-call/on-call-request.js';
import { SecretKey } from '../lambda/adapters/on-call/secret-key.js';
import { OnCallSendError } from '../lambda/ports/index.js';
import { type LocalEndpoint, serveOnLoopback } from '../testkit/aws-endpoint.js';
import { type SecretsServer, startSecretsServer } from '../testkit/secrets-server.js';

const KEY = 'eb243592-faa2-4ba2-a551-5ecre7K3Y000';

describe('on-call requests: the retry rule', () => {
  for (const [status, text, retryable, keyRefused] of [
    [400, '{"status":"invalid event","errors":["\'payload.summary\' is missing"]}', false, false],
    [422, '{"message":"Request body is not processable"}', false, false],
    [400, '{"status":"invalid event","errors":["\'routing_key\' is invalid"]}', true, true],
    [401, '{"message":"Could not authenticate"}', true, true],
    [403, '', true, true],
    [404, '', true, false],
    [429, '', true, false],
    [503, '', true, false],
  ] as const) {
    it(`${status} ${text || '(no body)'}: ${retryable ? 'retried' : 'poison'}`, () => {
      assert.deepEqual(retryAnswer(status, text), { retryable, keyRefused });
    });
  }
});

describe('on-call requests: a refused key', () => {
  let secrets: SecretsServer;
  let tool: LocalEndpoint;
  before(async () => {
    secrets = await startSecretsServer({ 'og-key': KEY });
    // A gateway that echoes the request's Authorization header in its 401.
    tool = await serveOnLoopback((req, res) => {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: `bad credentials: ${req.headers.authorization}` }));
    });
  });
  after(async () => {
    await tool.close();
    await secrets.close();
  });

  it('is retried, quoted redacted, and read again from the secret at the next attempt', async () => {
    const key = new SecretKey(secrets.client, 'og-key', () => 0);
    const send = () =>
      postWithKey({ key }, 'Opsgenie', AbortSignal.timeout(5_000), (value) => ({
        url: `${tool.url}/v2/alerts`,
        body: '{}',
        headers: { Authorization: `GenieKey ${value}` },
      }));
    for (let attempt = 1; attempt <= 2; attempt++) {
      const error = await send().then(
        () => assert.fail('a 401 must reject'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof OnCallSendError);
      assert.equal(error.retryable, true);
      assert.match(error.message, /Opsgenie answered 401: .*GenieKey \[redacted\]/);
      assert.ok(!error.message.includes(KEY), 'the key never reaches the error');
      assert.equal(secrets.callsFor('og-key'), attempt, 'the refused key was not kept');
    }
  });
});

describe('on-call requests: rate limits', () => {
  it('a 429 carries its Retry-After', async () => {
    const tool = await serveOnLoopback((_req, res) => {
      res.writeHead(429, { 'Retry-After': '120' });
      res.end();
    });
    try {
      const key = new SecretKey((await secretsWith('k')).client, 'k', () => 0);
      const error = await postWithKey({ key }, 'PagerDuty', AbortSignal.timeout(5_000), () => ({
        url: tool.url,
        body: '{}',
      })).catch((e: unknown) => e);
      assert.ok(error instanceof OnCallSendError);
      assert.deepEqual([error.status, error.retryable, error.retryAfterMs], [429, true, 120_000]);
    } finally {
      await tool.close();
      await opened.pop()?.close();
    }
  });
});

const opened: SecretsServer[] = [];
async function secretsWith(id: string): Promise<SecretsServer> {
  const server = await startSecretsServer({ [id]: KEY });
  opened.push(server);
  return server;
}
