/**
 * incident.io, a signed webhook and Jira Service Management through the real handler
 * (testkit/watchdog-harness.ts), each against a stand-in that checks every request as its vendor
 * or specification documents it (testkit/incident-io-server.ts, webhook-server.ts,
 * opsgenie-server.ts with JSM's path): one incident is a FIRING → RESOLVED pair under one key on
 * each; each stand-in refuses a wrong request, so its 2xx proves something; a JSM close by alias
 * that is refused (404: not documented there) is given up at once, not retried for 30 minutes;
 * no token, key or signing secret reaches a log line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { webhookHeaders } from '../lambda/adapters/on-call/webhook-sender.js';
import { startIncidentIoServer } from '../testkit/incident-io-server.js';
import { tickUntil } from '../testkit/on-call-fixture.js';
import { type OpsgenieServer, startOpsgenieServer } from '../testkit/opsgenie-server.js';
import { type Harness, startWatchdogHarness } from '../testkit/watchdog-harness.js';
import { startWebhookServer } from '../testkit/webhook-server.js';

const TOKEN = 'inc_T0KEN0123456789abcdefSECRET';
const SOURCE = '01GW2G3V0S59R238FAHPDS1R66';
const SIGNING_KEY = `whsec_${Buffer.alloc(32, 'lease-watchdog').toString('base64')}`;
const JSM_KEY = 'e0d1c2b3-a4f5-4e6d-8c7b-J5MK3Y000000';
const SECRETS = {
  'lease-watchdog/incident-io': TOKEN,
  'lease-watchdog/webhook': SIGNING_KEY,
  'lease-watchdog/jsm': JSM_KEY,
};

/** POSTs `body` (JSON) to `url` with `headers`; the status. */
async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: text,
  });
  return answer.status;
}

describe('lambda e2e: incident.io, a signed webhook, Jira Service Management', () => {
  let h: Harness;
  let incident: Awaited<ReturnType<typeof startIncidentIoServer>>;
  let hook: Awaited<ReturnType<typeof startWebhookServer>>;
  let jsm: OpsgenieServer;
  before(async () => {
    incident = await startIncidentIoServer(TOKEN, SOURCE);
    hook = await startWebhookServer(SIGNING_KEY, () => h.clock.now());
    jsm = await startOpsgenieServer(JSM_KEY, '/jsm/ops/integration');
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 4 } },
      settings: {
        incidentIo: { alertSourceId: SOURCE, tokenSecret: 'lease-watchdog/incident-io' },
        webhook: {
          url: 'https://hooks.example.com/lw',
          signingKeySecret: 'lease-watchdog/webhook',
        },
        opsgenie: { apiKeySecret: 'lease-watchdog/jsm', region: 'jsm' },
      },
      onCallBaseUrls: { 'incident-io': incident.url, webhook: hook.url, opsgenie: jsm.url },
    });
    for (const [id, value] of Object.entries(SECRETS)) h.secrets.put(id, value);
  });
  after(async () => {
    await h.close();
    await Promise.all([incident.close(), hook.close(), jsm.close()]);
  });

  it('each receiver: a FIRING → RESOLVED pair under one key', async () => {
    const target = h.target('prod');
    const victim = target.nodes[0] as string;
    await h.run();
    target.sim.stopKubelet(victim);
    await tickUntil(h, 'FIRING', 1);
    target.sim.startKubelet(victim);
    await tickUntil(h, 'RESOLVED', 1);

    const key = incident.accepted[0]?.deduplication_key ?? '';
    assert.match(key, /^lw-node-[0-9a-f]{24}$/);
    assert.deepEqual(
      incident.accepted.map((e) => [e.status, e.deduplication_key, e.metadata?.source]),
      [
        ['firing', key, victim],
        ['resolved', key, victim],
      ],
    );
    assert.match(
      incident.accepted[0]?.title ?? '',
      new RegExp(`^\\[prod\\] node ${victim} expired`),
    );
    assert.deepEqual(
      hook.accepted.map((d) => [d.type, d.data.state, d.data.incidentKey, d.data.source]),
      [
        ['incident.firing', 'firing', key, victim],
        ['incident.resolved', 'resolved', key, victim],
      ],
    );
    assert.deepEqual(
      jsm.accepted.map((c) => [c.action, c.alias]),
      [
        ['create', key],
        ['close', key],
      ],
    );
    assert.deepEqual([incident.rejected, hook.rejected, jsm.rejected], [[], [], []]);
    assert.deepEqual(h.metrics.of('OnCallEventsFailed'), []);
    const lines = JSON.stringify(h.logger.entries);
    for (const secret of Object.values(SECRETS)) assert.ok(!lines.includes(secret));
  });

  it('JSM refusing a close by alias: given up at once and counted once, the others resolve', async () => {
    const target = h.target('prod');
    const victim = target.nodes[1] as string;
    jsm.refuseCloseByAlias(true);
    target.sim.stopKubelet(victim);
    await tickUntil(h, 'FIRING', 2);
    assert.equal(jsm.accepted.at(-1)?.action, 'create');
    target.sim.startKubelet(victim);
    await tickUntil(h, 'RESOLVED', 2);
    await h.tick();
    await h.tick();
    assert.deepEqual(
      jsm.answers.filter((s) => s === 404),
      [404],
      'one close tried, never again',
    );
    const failed = h.metrics.of('OnCallEventsFailed').map((m) => m.extra?.receiver);
    assert.deepEqual(failed, ['opsgenie']);
    const lines = JSON.stringify(h.logger.entries);
    assert.match(lines, /Jira Service Management answered 404/);
    assert.match(lines, /close that alert by hand/);
    assert.match(lines, /"givenUp":true/);
    assert.equal(incident.accepted.at(-1)?.status, 'resolved');
    assert.equal(hook.accepted.at(-1)?.data.state, 'resolved');
    jsm.refuseCloseByAlias(false);
  });

  it('each stand-in refuses a wrong request', async () => {
    const event = { title: 't', status: 'firing', deduplication_key: 'k' };
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const at = `${incident.url}/v2/alert_events/http/${SOURCE}`;
    assert.equal(await post(at, event, { Authorization: 'Bearer wrong' }), 401);
    assert.equal(await post(at, { ...event, status: 'triggered' }, auth), 422);
    assert.equal(await post(at, { ...event, severity: 'critical' }, auth), 422);
    assert.equal(await post(`${incident.url}/v2/alert_events/http/other`, event, auth), 404);
    assert.equal(await post(at, event, auth), 202, 'the right one is taken');

    const doc = JSON.stringify({
      type: 'incident.firing',
      data: { incidentKey: 'k', state: 'firing' },
    });
    const now = Math.floor(h.clock.now() / 1000);
    const signed = (id: string, seconds: number, body: string, key = SIGNING_KEY) =>
      webhookHeaders(id, seconds, body, key);
    assert.equal(await post(hook.url, doc, signed('a', now, doc, 'whsec_d3Jvbmc=')), 401);
    assert.equal(await post(hook.url, doc, signed('a', now - 301, doc)), 401, 'a replay');
    assert.equal(await post(hook.url, doc, signed('a', now, `${doc} `)), 401, 'another body');
    const wrong = doc.replace('"state":"firing"', '"state":"resolved"');
    assert.equal(await post(hook.url, wrong, signed('b', now, wrong)), 400);
    assert.equal(await post(hook.url, doc, signed('c', now, doc)), 200, 'the right one is taken');
    assert.equal(await post(hook.url, doc, signed('c', now, doc)), 204, 'taken once by its id');

    const genie = { Authorization: `GenieKey ${JSM_KEY}` };
    const jsmBase = jsm.url.replace('/jsm/ops/integration', '');
    assert.equal(await post(`${jsm.url}/v2/alerts`, { message: 'm' }), 401);
    assert.equal(await post(`${jsmBase}/v2/alerts`, { message: 'm' }, genie), 404);
    assert.equal(await post(`${jsm.url}/v2/alerts`, { message: '' }, genie), 422);
    assert.equal(await post(`${jsm.url}/v2/alerts`, { message: 'm' }, genie), 202);
  });

  it('signs as the Standard Webhooks libraries do (their test vector)', () => {
    // standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts, "sign function works".
    const body = '{"test": 2432232314}';
    const signed = webhookHeaders(
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      body,
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    );
    assert.equal(signed['webhook-signature'], 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});
