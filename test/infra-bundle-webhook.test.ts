/**
 * The signed webhook as it is deployed: the stack synthesized with `webhook`, its bundle run in a
 * fresh Node process as Lambda runs it (testkit/bundle-process.ts), against a simulated cluster,
 * a local Secrets Manager holding the signing key, dynalite and a local SNS endpoint. The webhook
 * is an HTTPS stand-in that verifies every request as Standard Webhooks tells a receiver to
 * (testkit/webhook-server.ts), behind a certificate the process trusts through
 * NODE_EXTRA_CA_CERTS, at the https URL of the setting itself (no test-only base URL): a node
 * that dies and comes back is one FIRING → RESOLVED pair under one incident key.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAppConfig } from '../lambda/settings/index.js';
import type { ClusterReport } from '../lambda/use-cases/invocation.js';
import { SimCluster } from '../sim/cluster.js';
import { generateSimPki } from '../sim/pki.js';
import { type SimServer, startSimServer } from '../sim/server.js';
import { type BundleProcess, startBundleProcess } from '../testkit/bundle-process.js';
import { type LocalDynamoDb, startLocalDynamoDb } from '../testkit/dynalite.js';
import { localAwsEnv } from '../testkit/local-aws-env.js';
import { type SecretsServer, startSecretsServer } from '../testkit/secrets-server.js';
import { type SnsServer, startSnsServer } from '../testkit/sns-server.js';
import { synthesizeFunction } from '../testkit/synthesized-function.js';
import type { VendorStandIn } from '../testkit/vendor-stand-in.js';
import { FakeClock, SCHEDULE_MS, TOPIC_ARN } from '../testkit/watchdog-harness.js';
import { startWebhookServer, type WebhookDelivery } from '../testkit/webhook-server.js';

const work = mkdtempSync(join(tmpdir(), 'lease-watchdog-webhook-'));
const STATE_TABLE = 'LeaseWatchdog-StateTable';
const SIGNING_KEY = `whsec_${Buffer.alloc(32, 'bundle').toString('base64')}`;

describe('the signed webhook, as deployed', () => {
  const clock = new FakeClock();
  const sim = new SimCluster({ now: clock.now, seed: 5 });
  const nodes = sim.addNodes(3, { zones: ['eu-west-1a'] });
  let server: SimServer;
  let secrets: SecretsServer;
  let dynamo: LocalDynamoDb;
  let sns: SnsServer;
  let hook: VendorStandIn<WebhookDelivery>;
  let runtime: BundleProcess<{ clusters: ClusterReport[] }>;
  let template: ReturnType<typeof synthesizeFunction>['template'];

  before(async () => {
    server = await startSimServer({ cluster: sim });
    const pki = await generateSimPki();
    const caFile = join(work, 'webhook-ca.pem');
    writeFileSync(caFile, pki.caPem);
    hook = await startWebhookServer(SIGNING_KEY, clock.now, { cert: pki.certPem, key: pki.keyPem });
    secrets = await startSecretsServer({
      'lease-watchdog/sim': server.token,
      'lease-watchdog/webhook': SIGNING_KEY,
    });
    dynamo = await startLocalDynamoDb();
    await dynamo.createStateTable(STATE_TABLE);
    sns = await startSnsServer({ now: clock.now });
    const config = parseAppConfig({
      clusters: [
        {
          name: 'sim',
          auth: {
            mode: 'token',
            server: server.url,
            caData: Buffer.from(server.caPem).toString('base64'),
            tokenSecretId: 'lease-watchdog/sim',
          },
        },
      ],
      emails: ['oncall@example.com'],
      webhook: { url: `${hook.url}/lease-watchdog`, signingKeySecret: 'lease-watchdog/webhook' },
    });
    const synthesized = synthesizeFunction(join(work, 'cdk.out'), config);
    template = synthesized.template;
    const vars = synthesized.variables as Record<string, string>;
    runtime = await startBundleProcess(synthesized.bundle, {
      cwd: work,
      env: {
        PATH: process.env.PATH ?? '',
        LEASE_WATCHDOG_SETTINGS: vars.LEASE_WATCHDOG_SETTINGS ?? '',
        POWERTOOLS_SERVICE_NAME: vars.POWERTOOLS_SERVICE_NAME ?? '',
        POWERTOOLS_METRICS_NAMESPACE: vars.POWERTOOLS_METRICS_NAMESPACE ?? '',
        ...(vars.NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: vars.NODE_OPTIONS }),
        TOPIC_ARN,
        STATE_TABLE,
        NODE_EXTRA_CA_CERTS: caFile,
        ...localAwsEnv(work, {
          sns: sns.url,
          dynamodb: dynamo.endpoint,
          secretsManager: secrets.url,
        }),
        AWS_ENDPOINT_URL_EKS: 'http://127.0.0.1:9',
        AWS_ENDPOINT_URL_STS: 'http://127.0.0.1:9',
        LW_TEST_NOW: String(clock.now()),
      },
    });
  });

  after(async () => {
    runtime?.kill();
    await Promise.all([hook?.close(), sns?.close(), secrets?.close(), server?.close()]);
    await dynamo?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  /** Scheduled checks (10 at most) until the webhook took `count` deliveries. */
  const checkUntil = async (count: number) => {
    for (let i = 0; i < 10 && hook.accepted.length < count; i++) {
      const got = await runtime.invoke({ cluster: 'sim' }, clock.now());
      assert.ok(
        'report' in got,
        `the invocation failed: ${JSON.stringify(got)}\n${runtime.output()}`,
      );
      clock.advance(SCHEDULE_MS);
    }
    assert.equal(hook.accepted.length, count, `${hook.rejected}\n${runtime.output()}`);
  };

  test('the stack grants reading the signing key, and alarms on the webhook receiver', () => {
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    assert.match(policies, /"Sid":"ReadWebhookSigningKey"/);
    const alarms = template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { AlarmName: 'LeaseWatchdog-OnCallEventsFailed-webhook' },
    });
    assert.equal(Object.keys(alarms).length, 1);
  });

  test('a node dies and comes back: a signed FIRING, then the RESOLVED under the same key', async () => {
    const victim = nodes[0] as string;
    await checkUntil(0);
    sim.stopKubelet(victim);
    await checkUntil(1);
    sim.startKubelet(victim);
    await checkUntil(2);
    const key = hook.accepted[0]?.data.incidentKey;
    assert.match(key ?? '', /^lw-node-[0-9a-f]{24}$/);
    assert.deepEqual(
      hook.accepted.map((d) => [d.type, d.data.state, d.data.incidentKey, d.data.source]),
      [
        ['incident.firing', 'firing', key, victim],
        ['incident.resolved', 'resolved', key, victim],
      ],
    );
    assert.deepEqual(hook.rejected, [], 'every request verified');
    assert.ok(!runtime.output().includes(SIGNING_KEY), 'the key is never printed');
  });
});
