/**
 * The real thing, once each: the Lambda bundle CDK builds with the local esbuild (no Docker),
 * loaded and invoked in a fresh Node process as Lambda would (against a simulated cluster, a local
 * Secrets Manager, dynalite and a local SNS endpoint), and `npx cdk synth` on a bad configuration
 * failing with one line.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { parseAppConfig } from '../lambda/settings/index.js';
import type { ClusterReport } from '../lambda/use-cases/invocation.js';
import { SimCluster } from '../sim/cluster.js';
import { type SimServer, startSimServer } from '../sim/server.js';
import { type BundleProcess, startBundleProcess } from '../testkit/bundle-process.js';
import { type ConnectProxy, startConnectProxy } from '../testkit/connect-proxy.js';
import { type LocalDynamoDb, startLocalDynamoDb } from '../testkit/dynalite.js';
import { withProxyUrl } from '../testkit/harness-parts.js';
import { localAwsEnv } from '../testkit/local-aws-env.js';
import { type SecretsServer, startSecretsServer } from '../testkit/secrets-server.js';
import { type SnsServer, startSnsServer } from '../testkit/sns-server.js';
import { synthesizeFunction } from '../testkit/synthesized-function.js';
import {
  attributesOf,
  FakeClock,
  SCHEDULE_MS,
  summary,
  TOPIC_ARN,
} from '../testkit/watchdog-harness.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'node_modules', '.bin');
const env = {
  ...process.env,
  PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
  CDK_DISABLE_VERSION_CHECK: '1',
  CDK_DISABLE_CLI_TELEMETRY: 'true',
};
const work = mkdtempSync(join(tmpdir(), 'lease-watchdog-infra-'));

/** The simulated cluster the deployed configuration names, besides the example's two. */
const SIM = 'sim';
const SIM_TOKEN_SECRET = 'lease-watchdog/sim-token';
/** The same simulated cluster, reached with a kubeconfig whose user has a client certificate. */
const SIM_CERT = 'sim-cert';
const SIM_KUBECONFIG_SECRET = 'lease-watchdog/sim-kubeconfig';
/** The same simulated cluster again, through a kubeconfig `proxy-url` (a loopback proxy). */
const SIM_PROXIED = 'sim-proxied';
const SIM_PROXIED_SECRET = 'lease-watchdog/sim-proxied-kubeconfig';
/** The same simulated cluster again, its kubeconfig user an OIDC auth provider (client-node's). */
const SIM_OIDC = 'sim-oidc';
const SIM_OIDC_SECRET = 'lease-watchdog/sim-oidc-kubeconfig';
/**
 * The sim's bearer token, shaped as an OIDC ID token that expires in 2100: the auth provider sends
 * it as it is (no refresh), and the sim accepts it as its token.
 */
const ID_TOKEN = [{ alg: 'none' }, { sub: 'lease-watchdog', exp: 4_102_444_800 }]
  .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
  .concat('unsigned')
  .join('.');
const STATE_TABLE = 'LeaseWatchdog-StateTable';

/** What the bundled function meets when it runs: a cluster, its token, state and SNS. */
interface World {
  readonly clock: FakeClock;
  readonly sim: SimCluster;
  readonly server: SimServer;
  readonly nodes: string[];
  readonly secrets: SecretsServer;
  readonly dynamo: LocalDynamoDb;
  readonly sns: SnsServer;
  readonly proxy: ConnectProxy;
}

/** The stack synthesized once from the example configuration plus the simulated cluster. */
interface Synthesized {
  readonly asset: string;
  readonly bundle: string;
  readonly variables: Record<string, string>;
}

let world: World;
let synthesized: Synthesized;

describe('infra bundle', () => {
  before(async () => {
    const clock = new FakeClock();
    const sim = new SimCluster({ now: clock.now, seed: 11 });
    const nodes = sim.addNodes(3, { zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] });
    const server = await startSimServer({ cluster: sim, token: ID_TOKEN });
    const proxy = await startConnectProxy();
    const secrets = await startSecretsServer({
      [SIM_TOKEN_SECRET]: server.token,
      [SIM_KUBECONFIG_SECRET]: server.kubeconfig({ clientCertificate: true }),
      [SIM_PROXIED_SECRET]: withProxyUrl(server.kubeconfig(), proxy.url),
      [SIM_OIDC_SECRET]: withOidcUser(server.kubeconfig()),
    });
    const dynamo = await startLocalDynamoDb();
    await dynamo.createStateTable(STATE_TABLE);
    const sns = await startSnsServer({ now: clock.now });
    world = { clock, sim, server, nodes, secrets, dynamo, sns, proxy };

    const example = JSON.parse(
      readFileSync(join(root, 'infra', 'config.example.json'), 'utf8'),
    ) as {
      clusters: unknown[];
    };
    const config = parseAppConfig({
      ...example,
      clusters: [
        ...example.clusters,
        {
          name: SIM,
          auth: {
            mode: 'token',
            server: server.url,
            caData: Buffer.from(server.caPem).toString('base64'),
            tokenSecretId: SIM_TOKEN_SECRET,
          },
        },
        { name: SIM_CERT, auth: { mode: 'kubeconfig', secretId: SIM_KUBECONFIG_SECRET } },
        { name: SIM_PROXIED, auth: { mode: 'kubeconfig', secretId: SIM_PROXIED_SECRET } },
        { name: SIM_OIDC, auth: { mode: 'kubeconfig', secretId: SIM_OIDC_SECRET } },
      ],
    });
    const { asset, bundle, variables } = synthesizeFunction(join(work, 'cdk.out'), config);
    synthesized = { asset, bundle, variables: variables as Record<string, string> };
  });

  after(async () => {
    await world?.sns.close();
    await world?.dynamo.stop();
    await world?.secrets.close();
    await world?.server.close();
    await world?.proxy.close();
    rmSync(work, { recursive: true, force: true });
  });

  describe('the Lambda bundle', () => {
    test('is built locally by esbuild from lambda/handler/handler.ts, as ESM that loads in Node and exports handler', () => {
      const { asset, bundle } = synthesized;
      assert.ok(existsSync(bundle), `${bundle} exists`);
      const code = readFileSync(bundle, 'utf8');
      assert.ok(
        code.startsWith("import { createRequire as __lwCreateRequire } from 'node:module';"),
        'the require banner',
      );

      const map = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as { sources: string[] };
      // Sources are relative to esbuild's output directory, a sibling-named staging directory of the asset.
      const own = map.sources
        .filter((s) => !s.includes('node_modules'))
        .map((s) => relative(root, resolve(asset, s)));
      assert.ok(
        own.includes('lambda/handler/handler.ts'),
        `the entry point is lambda/handler/handler.ts: ${own.join(', ')}`,
      );
      assert.ok(
        own.includes('lambda/settings/parse.ts'),
        'the same settings validation as the stack',
      );
      assert.ok(
        own.includes('lambda/handler/create-handler.ts'),
        'the handler createHandler builds',
      );
      // Packages the Lambda never uses are aliased to a module that throws if used.
      const leftOut = map.sources.filter((s) =>
        /node_modules\/(undici|socks|socks-proxy-agent|hpagent|jsonpath-plus|ip-address)\//.test(s),
      );
      assert.deepEqual(leftOut, [], 'no undici, proxy agents or jsonpath in the bundle');

      const settings = synthesized.variables.LEASE_WATCHDOG_SETTINGS as string;
      const load = (vars: Record<string, string>) =>
        spawnSync(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            // Node's own undici too (its getters on node:http load it): loaded at import, not
            // used. And zod: loaded only to validate settings the cluster file does not vouch for.
            `const m = await import(${JSON.stringify(bundle)}); console.log(typeof m.handler, process.moduleLoadList.filter((n) => n.includes('undici')).join() || 'no undici', '__zod_globalConfig' in globalThis ? 'zod' : 'no zod');`,
          ],
          {
            cwd: work,
            encoding: 'utf8',
            timeout: 60_000,
            env: {
              PATH: process.env.PATH ?? '',
              AWS_REGION: 'eu-west-1',
              ...nodeOptions(),
              ...vars,
            },
          },
        );
      const loaded = load({
        LEASE_WATCHDOG_SETTINGS: settings,
        TOPIC_ARN,
        STATE_TABLE,
      });
      assert.equal(loaded.status, 0, loaded.stderr);
      assert.equal(
        loaded.stdout.trim(),
        'function no undici no zod',
        'the handler, no undici loaded, and the settings as synth validated them: no schema built',
      );

      // Settings changed since synth (by hand, in the console): validated with the schemas.
      const changed = settings.replace('"gracePeriodSeconds":50', '"gracePeriodSeconds":51');
      assert.notEqual(changed, settings);
      const revalidated = load({ LEASE_WATCHDOG_SETTINGS: changed, TOPIC_ARN, STATE_TABLE });
      assert.equal(revalidated.status, 0, revalidated.stderr);
      assert.equal(revalidated.stdout.trim(), 'function no undici zod');
      const invalid = load({
        LEASE_WATCHDOG_SETTINGS: settings.replace(
          '"gracePeriodSeconds":50',
          '"gracePeriodSeconds":0',
        ),
        TOPIC_ARN,
        STATE_TABLE,
      });
      assert.notEqual(invalid.status, 0);
      assert.match(
        invalid.stderr,
        /LEASE_WATCHDOG_SETTINGS \+ lease-watchdog-clusters\.json: gracePeriodSeconds must be a whole number from 1 to 86400 \(got 0\)/,
      );

      const unconfigured = load({
        TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog',
        STATE_TABLE: 't',
      });
      assert.notEqual(unconfigured.status, 0);
      assert.match(unconfigured.stderr, /LEASE_WATCHDOG_SETTINGS is required/);

      // TLS verification off for the whole process: the cold start fails with one clear line.
      const insecure = load({
        LEASE_WATCHDOG_SETTINGS: settings,
        TOPIC_ARN,
        STATE_TABLE,
        NODE_TLS_REJECT_UNAUTHORIZED: '0',
      });
      assert.notEqual(insecure.status, 0);
      assert.match(insecure.stderr, /NODE_TLS_REJECT_UNAUTHORIZED=0 turns off TLS verification/);
    });
  });

  test("leaves client-node's KubeConfig out of index.mjs: kube-auth.mjs beside it, imported only when a kubeconfig user needs it", () => {
    const { asset, bundle } = synthesized;
    const sourcesOf = (file: string) =>
      (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources;
    const clientNode = sourcesOf(bundle).filter(
      (s) => s.includes('node_modules/@kubernetes/client-node/') && !s.endsWith('config_types.ts'),
    );
    assert.deepEqual(clientNode, [], 'no client-node code in index.mjs but its config types');
    assert.match(
      readFileSync(bundle, 'utf8'),
      /import\("\.\/kube-auth\.mjs"\)/,
      'index.mjs imports kube-auth.mjs when it needs it',
    );

    const kubeAuth = join(asset, 'kube-auth.mjs');
    assert.ok(existsSync(kubeAuth), `${kubeAuth} exists`);
    const its = sourcesOf(kubeAuth);
    for (const source of ['client-node/src/config.ts', 'client-node/src/oidc_auth.ts']) {
      assert.ok(
        its.some((s) => s.endsWith(source)),
        `kube-auth.mjs holds ${source}: ${its.length} sources`,
      );
    }
    // Packages the Lambda never uses are aliased to a module that throws if used.
    assert.deepEqual(
      its.filter((s) =>
        /node_modules\/(undici|socks|socks-proxy-agent|hpagent|jsonpath-plus)\//.test(s),
      ),
      [],
      'no undici, proxy agents or jsonpath in kube-auth.mjs',
    );
    assert.ok(
      its.some((s) => s.endsWith('infra/absent-in-lambda.ts')),
      'their stand-in is in kube-auth.mjs',
    );
  });

  /** NODE_OPTIONS and GLIBC_TUNABLES as the function's environment sets them (if it does). */
  function nodeOptions(): { NODE_OPTIONS?: string; GLIBC_TUNABLES?: string } {
    const { NODE_OPTIONS, GLIBC_TUNABLES } = synthesized.variables;
    return {
      ...(NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS }),
      ...(GLIBC_TUNABLES === undefined ? {} : { GLIBC_TUNABLES }),
    };
  }

  describe('the bundled handler, invoked as Lambda invokes it', () => {
    let runtime: BundleProcess<{ clusters: ClusterReport[] }>;
    let output = '';
    /** One scheduled invocation for a simulated cluster, at the fake clock's now. */
    const invoke = async (cluster = SIM): Promise<ClusterReport> => {
      const got = await runtime.invoke({ cluster }, world.clock.now());
      output = runtime.output();
      assert.ok('report' in got, `the invocation failed: ${JSON.stringify(got)}\n${output}`);
      const [report] = got.report.clusters;
      assert.ok(report, `a report: ${JSON.stringify(got.report)}`);
      return report;
    };

    before(async () => {
      const { variables } = synthesized;
      // A fresh Node process with the function's environment, AWS endpoints pointed at the local
      // servers (the SDK reads AWS_ENDPOINT_URL_<SERVICE>), and no tsx: Lambda runs plain Node.
      runtime = await startBundleProcess(synthesized.bundle, {
        cwd: work,
        env: {
          PATH: process.env.PATH ?? '',
          LEASE_WATCHDOG_SETTINGS: variables.LEASE_WATCHDOG_SETTINGS as string,
          POWERTOOLS_SERVICE_NAME: variables.POWERTOOLS_SERVICE_NAME as string,
          POWERTOOLS_METRICS_NAMESPACE: variables.POWERTOOLS_METRICS_NAMESPACE as string,
          ...nodeOptions(),
          TOPIC_ARN,
          STATE_TABLE,
          ...localAwsEnv(work, {
            sns: world.sns.url,
            dynamodb: world.dynamo.endpoint,
            secretsManager: world.secrets.url,
          }),
          // Token mode calls neither: a closed port proves it if it ever does.
          AWS_ENDPOINT_URL_EKS: 'http://127.0.0.1:9',
          AWS_ENDPOINT_URL_STS: 'http://127.0.0.1:9',
          LW_TEST_NOW: String(world.clock.now()),
        },
      });
    });
    after(() => runtime?.kill());

    test('reads the cluster with its token from Secrets Manager, keeps state in DynamoDB, and publishes one FIRING to SNS', async () => {
      const { clock, sim, nodes, sns, secrets, dynamo } = world;
      const first = await invoke();
      assert.deepEqual(
        { status: first.lastStatus, alerting: first.alerting, published: first.published },
        { status: 'checked', alerting: 0, published: 0 },
        output,
      );
      assert.equal(secrets.callsFor(SIM_TOKEN_SECRET), 1, 'the token came from Secrets Manager');
      const saved = await dynamo.client.send(new ScanCommand({ TableName: STATE_TABLE }));
      assert.ok((saved.Count ?? 0) > 0, 'the check saved its state in DynamoDB');

      clock.advance(SCHEDULE_MS);
      await invoke();
      const victim = nodes[0] as string;
      clock.at(clock.now() + 23_000, () => sim.stopKubelet(victim));
      clock.advance(SCHEDULE_MS);
      await invoke();
      clock.advance(SCHEDULE_MS);
      const fired = await invoke();

      assert.equal(fired.lastStatus, 'checked');
      assert.equal(sns.messages.length, 1, `one message: ${summary(sns.messages)}`);
      const [firing] = sns.messages;
      assert.ok(firing, summary(sns.messages));
      assert.equal(attributesOf(firing).kind, 'FIRING', summary(sns.messages));
      assert.equal(attributesOf(firing).cluster, SIM);
      assert.ok(
        firing?.subject?.includes(victim.slice(0, 12)),
        `names the node: ${firing?.subject}`,
      );
      assert.match(
        output,
        /"function_request_id":"run-4"/,
        'Powertools logs carry the Lambda context',
      );
    });

    test('reads a cluster whose kubeconfig (from Secrets Manager) authenticates with a client certificate, over node:https without undici', async () => {
      const { server, secrets } = world;
      server.resetStats();
      const report = await invoke(SIM_CERT);
      assert.equal(report.lastStatus, 'checked', output);
      assert.equal(
        secrets.callsFor(SIM_KUBECONFIG_SECRET),
        1,
        'the kubeconfig came from Secrets Manager',
      );
      assert.ok(server.stats.requests >= 2, `it listed leases and nodes: ${server.stats.requests}`);
      assert.doesNotMatch(output, /undici/, 'nothing reached the stand-in for undici');
    });

    test("reads a cluster whose kubeconfig user is an OIDC auth provider, with client-node's KubeConfig from kube-auth.mjs", async () => {
      const { server, secrets } = world;
      server.resetStats();
      const report = await invoke(SIM_OIDC);
      assert.equal(report.lastStatus, 'checked', output);
      assert.equal(
        secrets.callsFor(SIM_OIDC_SECRET),
        1,
        'the kubeconfig came from Secrets Manager',
      );
      assert.ok(server.stats.requests >= 2, `it listed leases and nodes: ${server.stats.requests}`);
      assert.doesNotMatch(output, /was called in the Lambda bundle/, 'no stand-in was reached');
    });

    test('reads a cluster through its kubeconfig proxy-url (a CONNECT tunnel), the proxy agents left out', async () => {
      const { server, proxy } = world;
      server.resetStats();
      const report = await invoke(SIM_PROXIED);
      assert.equal(report.lastStatus, 'checked', output);
      const target = new URL(server.url).host;
      assert.ok(proxy.connects.length >= 1, 'through the proxy');
      assert.ok(
        proxy.connects.every((c) => c.target === target),
        'tunnels to the API server',
      );
      assert.ok(server.stats.requests >= 2, `it listed leases and nodes: ${server.stats.requests}`);
      assert.doesNotMatch(
        output,
        /hpagent|was called in the Lambda bundle/,
        'no stand-in was reached',
      );
    });
  });

  describe('cdk synth with a bad configuration', () => {
    test('exits 1 with one line on stderr naming the field and the fix, no stack trace', () => {
      const bad = join(work, 'bad.json');
      writeFileSync(
        bad,
        JSON.stringify({
          clusters: [{ name: 'prod', auth: { mode: 'eks' } }],
          emails: ['oncall@example.com'],
          scheduleMinutes: 0.5,
        }),
      );
      // -o: the CDK CLI makes its output folder before it runs the app; not in the work tree.
      const out = join(work, 'bad.out');
      const run = spawnSync(
        'npx',
        ['cdk', 'synth', '--no-notices', '-c', `config=${bad}`, '-o', out],
        {
          cwd: root,
          env,
          encoding: 'utf8',
          timeout: 170_000,
        },
      );
      assert.equal(run.status, 1, run.stderr);
      const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
      // The CDK CLI adds its own last line about the app's exit status; the app's is the one before.
      const ours = lines.filter((line) => !/Subprocess exited with error 1$/.test(line));
      assert.deepEqual(ours, [
        `lease-watchdog config: ${bad}: scheduleMinutes must be a whole number ≥ 1 (got 0.5); the looks queue checks between scheduled runs`,
      ]);
      assert.ok(!lines.some((line) => /^\s+at /.test(line)), 'no stack trace');
    });

    test('LEASE_WATCHDOG_CONFIG_FILE picks the file when -c config is not given', () => {
      const bad = join(work, 'env.json');
      writeFileSync(bad, JSON.stringify({ clusters: [{ name: 'prod', auth: { mode: 'ekss' } }] }));
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
        cwd: root,
        env: { ...env, LEASE_WATCHDOG_CONFIG_FILE: bad, CDK_OUTDIR: join(work, 'env.out') },
        encoding: 'utf8',
        timeout: 120_000,
      });
      assert.equal(run.status, 1, run.stderr);
      assert.equal(
        run.stderr,
        `lease-watchdog config: ${bad}: clusters[0].auth.mode must be one of kubeconfig, token, eks (got "ekss")\n`,
      );
    });
  });
});

/** The kubeconfig with its user's token replaced by an OIDC auth provider holding `ID_TOKEN`. */
function withOidcUser(kubeconfig: string): string {
  return kubeconfig.replace(
    /^( +)token: .*$/m,
    [
      '$1auth-provider:',
      '$1  name: oidc',
      '$1  config:',
      `$1    id-token: ${JSON.stringify(ID_TOKEN)}`,
      '$1    client-id: lease-watchdog',
      '$1    idp-issuer-url: https://idp.example.com',
    ].join('\n'),
  );
}
