/**
 * A fleet in one deployment: 300 clusters (eks, token with caData, kubeconfig) synthesized once,
 * offline, with the real bundle: the one the package ships (dist/handler-bundle, bundled once per
 * test run; infra-bundle.test.ts bundles from source as `cdk synth` does). Each cluster keeps its
 * own schedule and dead-man's switch; every stack stays within CloudFormation's limits; the
 * environment stays small; the clusters are in the function's code, where the function's own
 * loader reads them back.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { App } from 'aws-cdk-lib';
import { CLUSTERS_IN_ONE_STACK } from '../infra/cluster-stacks.js';
import { buildStack, type LeaseWatchdogStack } from '../infra/stack.js';
import { HANDLER_BUNDLE_CONTEXT } from '../infra/watchdog-function.js';
import {
  CLUSTER_FILE,
  DEFAULTS,
  loadRuntimeConfig,
  parseAppConfig,
  parseWatchdogSettings,
  watchdogSettingsOf,
} from '../lambda/settings/index.js';
import { shippedBundle } from '../testkit/packed-package.js';

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const FLEET = 300;
/** A CA certificate's size in a kubeconfig: ~1.5 KB of PEM, ~2 KB of base64. */
const CA_DATA = Buffer.from(
  `-----BEGIN CERTIFICATE-----\n${'MIIC'.repeat(360)}\n-----END CERTIFICATE-----\n`,
).toString('base64');

function roleOf(i: number): string {
  return `arn:aws:iam::2100000${String(i).padStart(5, '0')}:role/lease-watchdog-reader`;
}

function fleetCluster(i: number): object {
  const name = `fleet-${String(i).padStart(3, '0')}`;
  switch (i % 3) {
    case 0:
      // Every tenth eks cluster is in another account, read through a role there.
      return i % 30 === 0
        ? {
            name,
            auth: { mode: 'eks', clusterName: `${name}-eks`, region: REGION, roleArn: roleOf(i) },
          }
        : { name, auth: { mode: 'eks', clusterName: `${name}-eks`, region: REGION } };
    case 1:
      return {
        name,
        auth: {
          mode: 'token',
          server: `https://${name}.example.com:6443`,
          caData: CA_DATA,
          tokenSecretId: `kube/${name}`,
        },
        excludeSelector: 'pool in (spot)',
      };
    default:
      return {
        name,
        auth: { mode: 'kubeconfig', secretId: `kube/${name}-config`, context: name },
        namespace: 'leases',
      };
  }
}

const clusters = Array.from({ length: FLEET }, (_, i) => fleetCluster(i));
const names = clusters.map((c) => (c as { name: string }).name);

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;
interface Template {
  Resources: Resources;
  Outputs?: Record<string, unknown>;
  Parameters?: Record<string, unknown>;
}

const config = parseAppConfig({
  clusters,
  emails: ['oncall@example.com'],
  account: ACCOUNT,
  region: REGION,
});

type Resource = Resources[string];

describe(`${FLEET} clusters in one deployment`, () => {
  let synthSeconds: number;
  let stack: LeaseWatchdogStack;
  let parent: Template;
  let nested: Template[];
  let templates: Template[];
  let all: Resource[];
  let fn: Resource;
  let variables: Record<string, unknown>;
  let asset: string;
  const ofType = (type: string) => all.filter((r) => r.Type === type);

  before(() => {
    const started = Date.now();
    const app = new App({ context: { [HANDLER_BUNDLE_CONTEXT]: shippedBundle() } });
    stack = buildStack(app, config);
    const assembly = app.synth();
    synthSeconds = (Date.now() - started) / 1000;
    parent = assembly.getStackByName(stack.stackName).template as Template;
    nested = readdirSync(assembly.directory)
      .filter((file) => file.endsWith('.nested.template.json'))
      .map((file) => JSON.parse(readFileSync(join(assembly.directory, file), 'utf8')) as Template);
    templates = [parent, ...nested];
    all = templates.flatMap((t) => Object.values(t.Resources));
    const found = Object.values(parent.Resources).find((r) => r.Type === 'AWS::Lambda::Function');
    assert.ok(found, 'the function is in the parent stack');
    fn = found;
    variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    asset = join(
      assembly.directory,
      `asset.${(fn.Properties.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '')}`,
    );
  });

  test('synthesizes offline, bundle included', (t) => {
    // The time is in the test's output, for CI logs; no assertion on it (bench/ is for timings).
    t.diagnostic(`${FLEET} clusters took ${synthSeconds.toFixed(1)} s to synthesize`);
    assert.ok(nested.length > 1, 'the clusters are spread over nested stacks');
  });

  test('every cluster has its own schedule, invoking the one function with its name', () => {
    const inputs = ofType('AWS::Scheduler::Schedule').map(
      (s) => JSON.parse((s.Properties.Target as { Input: string }).Input).cluster as string,
    );
    assert.deepEqual([...inputs].sort(), names);
    assert.equal(ofType('AWS::Lambda::Function').length, 1);
  });

  test("every cluster has its own dead-man's switch, on its own metric, that the topic lets publish", () => {
    const switches = ofType('AWS::CloudWatch::Alarm').filter(
      (a) => a.Properties.MetricName === 'CheckSucceeded',
    );
    const watched = switches.map(
      (a) =>
        (a.Properties.Dimensions as { Name: string; Value: string }[]).find(
          (d) => d.Name === 'cluster',
        )?.Value,
    );
    assert.deepEqual([...watched].sort(), names);
    for (const alarm of switches) {
      assert.equal(alarm.Properties.TreatMissingData, 'breaching');
      assert.equal(alarm.Properties.EvaluationPeriods, 3);
      assert.ok((alarm.Properties.AlarmActions as unknown[]).length > 0, 'it notifies');
      assert.match(
        alarm.Properties.AlarmName as string,
        new RegExp(`^${stack.stackName}-NoSuccessfulCheck-fleet-\\d{3}$`),
      );
    }
    const policy = Object.values(parent.Resources).find((r) => r.Type === 'AWS::SNS::TopicPolicy');
    const allowed = JSON.stringify(policy?.Properties.PolicyDocument);
    assert.ok(allowed.includes(`:alarm:${stack.stackName}-NoSuccessfulCheck-*`));
    assert.ok(Buffer.byteLength(allowed) < 30 * 1024, "within SNS's 30 KB of topic policy");
  });

  test('every eks cluster has its access entry for the function role', () => {
    const entries = ofType('AWS::EKS::AccessEntry').map((e) => e.Properties.ClusterName);
    assert.deepEqual(
      [...entries].sort(),
      names.filter((_, i) => i % 3 === 0 && i % 30 !== 0).map((name) => `${name}-eks`),
    );
  });

  test('every eks cluster in another account has its role to assume, and no access entry here', () => {
    const statements = Object.values(parent.Resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy')
      .flatMap(
        (r) =>
          (r.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] })
            .Statement,
      );
    const assumable = statements
      .filter((st) => st.Action === 'sts:AssumeRole')
      .flatMap((st) => (Array.isArray(st.Resource) ? st.Resource : [st.Resource]));
    const expected = names.flatMap((_, i) => (i % 30 === 0 ? [roleOf(i)] : []));
    assert.equal(expected.length, 10);
    assert.deepEqual([...assumable].sort(), expected);
  });

  test("every stack stays within CloudFormation's limits", () => {
    for (const template of templates) {
      assert.ok(Object.keys(template.Resources).length < 500, 'resources per stack < 500');
      assert.ok(Object.keys(template.Outputs ?? {}).length <= 200, 'outputs per stack ≤ 200');
      assert.ok(Object.keys(template.Parameters ?? {}).length <= 200, 'parameters ≤ 200');
      assert.ok(Buffer.byteLength(JSON.stringify(template)) < 1_000_000, 'template < 1 MB');
    }
  });

  test("the function role's policies stay within IAM's sizes and counts", () => {
    const managed = Object.values(parent.Resources).filter(
      (r) => r.Type === 'AWS::IAM::ManagedPolicy',
    );
    assert.ok(managed.length <= 10, `${managed.length} managed policies: a role takes 10`);
    for (const policy of managed) {
      // The ARNs resolved (a Ref is at most an account id or a region): IAM counts characters.
      const resolved = JSON.stringify(policy.Properties.PolicyDocument, (_key, value) =>
        value !== null && typeof value === 'object' && 'Fn::Join' in value
          ? (value['Fn::Join'][1] as unknown[])
              .map((part) => (typeof part === 'string' ? part : 'x'.repeat(14)))
              .join(value['Fn::Join'][0])
          : value,
      );
      assert.ok(
        resolved.length < 6_144,
        `${resolved.length} characters: a managed policy takes 6,144`,
      );
    }
  });

  test('the environment keeps the global settings only, far from its 4 KB', () => {
    const settings = variables.LEASE_WATCHDOG_SETTINGS as string;
    assert.equal('clusters' in JSON.parse(settings), false);
    const literal = Object.entries(variables).filter(([, v]) => typeof v === 'string');
    const bytes = literal.reduce((sum, [k, v]) => sum + k.length + (v as string).length, 0);
    assert.ok(bytes < 1_024, `${bytes} bytes of literal environment`);
  });

  test("the function's code holds the cluster file, and the function's loader reads every cluster back", () => {
    const file = join(asset, CLUSTER_FILE);
    assert.ok(existsSync(file), `${CLUSTER_FILE} is next to the handler`);
    const runtime = loadRuntimeConfig(
      {
        LEASE_WATCHDOG_SETTINGS: variables.LEASE_WATCHDOG_SETTINGS as string,
        TOPIC_ARN: `arn:aws:sns:${REGION}:${ACCOUNT}:topic`,
        STATE_TABLE: 'state',
      },
      { path: file, read: () => readFileSync(file, 'utf8') },
    );
    assert.deepEqual(runtime.settings, watchdogSettingsOf(config));
    assert.deepEqual(runtime.settings, parseWatchdogSettings({ clusters }));
    const secrets = readFileSync(file, 'utf8');
    assert.ok(secrets.includes('"tokenSecretId":"kube/fleet-001"'), 'the secrets by id only');
  });

  test('the bundled function starts with the clusters of its code (its cold start parses them)', () => {
    const loaded = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(join(asset, 'index.mjs'))}); console.log(typeof m.handler);`,
      ],
      {
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '',
          AWS_REGION: REGION,
          LEASE_WATCHDOG_SETTINGS: variables.LEASE_WATCHDOG_SETTINGS as string,
          TOPIC_ARN: `arn:aws:sns:${REGION}:${ACCOUNT}:topic`,
          STATE_TABLE: 'state',
        },
      },
    );
    assert.equal(loaded.stderr.trim(), '');
    assert.equal(loaded.stdout.trim(), 'function');
  });

  test(`reserved concurrency stays within the account's quota (at most ${DEFAULTS.reservedConcurrencyCap})`, () => {
    assert.equal(fn.Properties.ReservedConcurrentExecutions, DEFAULTS.reservedConcurrencyCap);
    assert.ok(FLEET * 2 + 1 > DEFAULTS.reservedConcurrencyCap, 'the cap is what applies here');
    assert.ok(FLEET > CLUSTERS_IN_ONE_STACK);
  });
});
