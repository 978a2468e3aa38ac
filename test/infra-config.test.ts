/**
 * Configuration: lambda/config.ts (settings, runtime environment) and lambda/adapters/config/deployment-file.ts (the
 * deployment file). Every invalid configuration fails with its one-line message.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadConfigFile } from '../lambda/adapters/config/deployment-file.js';
import {
  ConfigError,
  functionSettingsOf,
  loadRuntimeConfig,
  parseAppConfig,
  parseDeploymentConfig,
  parseWatchdogSettings,
  policiesOf,
  watchdogSettingsOf,
} from '../lambda/settings/index.js';
import { synthesizedRuntimeConfig } from '../lambda/settings/runtime-environment.js';

const eks = {
  name: 'prod-eu',
  auth: { mode: 'eks', clusterName: 'prod-eu-eks', region: 'eu-west-1' },
};
const token = {
  name: 'edge-lab',
  auth: {
    mode: 'token',
    server: 'https://k8s.example.com:6443',
    tokenSecretId: 'lease-watchdog/edge-lab',
  },
};
const kubeconfig = {
  name: 'onprem',
  auth: { mode: 'kubeconfig', secretId: 'kube/onprem', context: 'admin' },
};
const valid = { clusters: [eks, token], emails: ['oncall@example.com'] };

/** Runs `parse` and returns the ConfigError's message (failing when it does not throw one). */
function messageOf(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    assert.equal(error.name, 'ConfigError');
    assert.ok(!error.message.includes('\n'), `message must be one line: ${error.message}`);
    return error.message;
  }
  assert.fail('expected a ConfigError');
}

describe('parseWatchdogSettings', () => {
  test('fills in the defaults and freezes the result', () => {
    const settings = parseWatchdogSettings({ clusters: [eks] });
    assert.deepEqual(settings, {
      clusters: [
        {
          name: 'prod-eu',
          auth: { mode: 'eks', clusterName: 'prod-eu-eks', region: 'eu-west-1' },
          namespace: 'kube-node-lease',
        },
      ],
      gracePeriodSeconds: 50,
      startupGraceSeconds: 60,
      reminderIntervalSeconds: 14_400,
      readFailuresBeforePage: 2,
      stuckRemovalSeconds: 1800,
      storm: { zoneFraction: 0.55, zoneMinNodes: 3, clusterFraction: 0.55, clusterMinNodes: 3 },
      dispatch: false,
      nodeRefreshSeconds: 900,
      requestTimeoutSeconds: 15,
    });
    assert.ok(Object.isFrozen(settings));
    assert.ok(Object.isFrozen(settings.clusters[0]?.auth));
    assert.ok(Object.isFrozen(settings.storm));
  });

  test('readFailuresBeforePage reaches the alert policy (1 restores paging the first failure)', () => {
    const eks = { name: 'prod', auth: { mode: 'eks' } };
    const byDefault = parseWatchdogSettings({ clusters: [eks] });
    const first = parseWatchdogSettings({ clusters: [eks], readFailuresBeforePage: 1 });
    assert.equal(policiesOf(byDefault, {}).alertPolicy.readFailuresBeforePage, 2);
    assert.equal(policiesOf(first, {}).alertPolicy.readFailuresBeforePage, 1);
  });

  test('stuckRemovalSeconds reaches the alert policy (default 30 min)', () => {
    const eks = { name: 'prod', auth: { mode: 'eks' } };
    const byDefault = parseWatchdogSettings({ clusters: [eks] });
    const hour = parseWatchdogSettings({ clusters: [eks], stuckRemovalSeconds: 3600 });
    assert.equal(policiesOf(byDefault, {}).alertPolicy.stuckRemovalSeconds, 1800);
    assert.equal(policiesOf(hour, {}).alertPolicy.stuckRemovalSeconds, 3600);
  });

  test('keeps every auth mode with its own fields, and defaults the EKS name to the cluster name', () => {
    const settings = parseWatchdogSettings({
      clusters: [
        token,
        kubeconfig,
        { name: 'plain', auth: { mode: 'eks' }, excludeSelector: 'role=batch,!critical' },
      ],
      reminderIntervalSeconds: 0,
      storm: { zoneMinNodes: 5 },
    });
    assert.deepEqual(
      settings.clusters.map((c) => c.auth),
      [
        {
          mode: 'token',
          server: 'https://k8s.example.com:6443',
          tokenSecretId: 'lease-watchdog/edge-lab',
        },
        { mode: 'kubeconfig', secretId: 'kube/onprem', context: 'admin' },
        { mode: 'eks', clusterName: 'plain' },
      ],
    );
    assert.equal(settings.clusters[2]?.excludeSelector, 'role=batch,!critical');
    assert.equal(settings.reminderIntervalSeconds, 0);
    assert.deepEqual(settings.storm, {
      zoneFraction: 0.55,
      zoneMinNodes: 5,
      clusterFraction: 0.55,
      clusterMinNodes: 3,
    });
  });

  test('is idempotent: parsed settings parse to themselves', () => {
    const once = parseWatchdogSettings({ clusters: [eks, token, kubeconfig] });
    assert.deepEqual(parseWatchdogSettings(JSON.parse(JSON.stringify(once))), once);
  });

  const invalid: [string, unknown, string][] = [
    ['not an object', [], 'the configuration must be an object (the watchdog settings), got []'],
    [
      'no clusters',
      {},
      'clusters is required: list at least one cluster to watch, or set discover',
    ],
    [
      'empty cluster list',
      { clusters: [] },
      'clusters must list at least one cluster to watch (it is empty), or set discover',
    ],
    [
      'missing cluster name',
      { clusters: [{ auth: eks.auth }] },
      'clusters[0].name is required: give each cluster a unique name, e.g. "prod-eu"',
    ],
    [
      'bad cluster name',
      { clusters: [{ ...eks, name: 'prod eu' }] },
      `clusters[0].name must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit (got "prod eu")`,
    ],
    [
      'duplicate cluster',
      { clusters: [eks, token, { ...kubeconfig, name: 'prod-eu' }] },
      'clusters[2].name "prod-eu" is already used by clusters[0]; cluster names must be unique',
    ],
    [
      'unknown auth mode',
      { clusters: [eks, { name: 'b', auth: { mode: 'ekss' } }] },
      'clusters[1].auth.mode must be one of kubeconfig, token, eks (got "ekss")',
    ],
    [
      'missing auth',
      { clusters: [{ name: 'a' }] },
      'clusters[0].auth is required: {"mode": "kubeconfig" | "token" | "eks", ...}',
    ],
    [
      'field of another mode',
      { clusters: [{ name: 'a', auth: { mode: 'eks', secretId: 'x' } }] },
      'clusters[0].auth.secretId is not a known setting; remove it or use one of: mode, clusterName, region, roleArn',
    ],
    [
      'token without a secret',
      { clusters: [{ name: 'a', auth: { mode: 'token', server: 'https://k8s.example.com' } }] },
      'clusters[0].auth.tokenSecretId is required: the Secrets Manager secret name or ARN',
    ],
    [
      'token over http',
      { clusters: [{ name: 'a', auth: { ...token.auth, server: 'http://k8s.example.com' } }] },
      'clusters[0].auth.server must be the https:// URL of the Kubernetes API server (got "http://k8s.example.com")',
    ],
    [
      'bad secret ARN',
      { clusters: [{ name: 'a', auth: { mode: 'kubeconfig', secretId: 'arn:aws:s3:::bucket' } }] },
      'clusters[0].auth.secretId must be a Secrets Manager secret name or ARN like arn:aws:secretsmanager:eu-west-1:123456789012:secret:my-secret (got "arn:aws:s3:::bucket")',
    ],
    [
      'bad region',
      { clusters: [{ name: 'a', auth: { mode: 'eks', region: 'Ireland' } }] },
      'clusters[0].auth.region must be an AWS region like eu-west-1 (got "Ireland")',
    ],
    [
      'bad selector',
      { clusters: [{ ...eks, excludeSelector: 'a in (b' }] },
      'clusters[0].excludeSelector must be a label selector like "role=batch,!critical": invalid label key "a in (b" in selector term "a in (b"',
    ],
    [
      'bad namespace',
      { clusters: [{ ...eks, namespace: 'Kube_Node' }] },
      'clusters[0].namespace must be a Kubernetes namespace name, e.g. kube-node-lease (got "Kube_Node")',
    ],
    [
      'runbook over http',
      { clusters: [{ ...eks, runbookUrl: 'http://wiki.example.com/runbook' }] },
      'clusters[0].runbookUrl must be an https:// URL of at most 1000 characters, e.g. https://wiki.example.com/runbooks/node-down (got "http://wiki.example.com/runbook")',
    ],
    [
      'runbook with a password',
      { clusters: [{ ...eks, runbookUrl: 'https://me:pw@wiki.example.com/runbook' }] },
      'clusters[0].runbookUrl must not carry a user or password (https://user:pass@host): every recipient of the alerts sees it',
    ],
    [
      'zero grace period',
      { clusters: [eks], gracePeriodSeconds: 0 },
      'gracePeriodSeconds must be a whole number from 1 to 86400 (got 0)',
    ],
    [
      'fractional startup grace',
      { clusters: [eks], startupGraceSeconds: 1.5 },
      'startupGraceSeconds must be a whole number from 0 to 86400 (got 1.5)',
    ],
    [
      'string number',
      { clusters: [eks], gracePeriodSeconds: '50' },
      'gracePeriodSeconds must be a whole number from 1 to 86400 (got "50")',
    ],
    [
      'reminder too often',
      { clusters: [eks], reminderIntervalSeconds: 30 },
      'reminderIntervalSeconds must be 0 (no reminders) or at least 60 (got 30)',
    ],
    [
      'storm fraction over 1',
      { clusters: [eks], storm: { zoneFraction: 55 } },
      'storm.zoneFraction must be a fraction greater than 0 and at most 1, e.g. 0.55 (got 55)',
    ],
    [
      'storm minimum zero',
      { clusters: [eks], storm: { clusterMinNodes: 0 } },
      'storm.clusterMinNodes must be a whole number from 1 to 100000 (got 0)',
    ],
    [
      'the removed fastMode, naming what replaced it',
      { clusters: [eks], fastMode: { checksPerInvocation: 6, intervalSeconds: 10 } },
      'fastMode was removed: the looks queue (SQS) checks between scheduled runs and re-checks each suspect at its deadline, so a dead node pages 50-60 s after its last renewal; delete fastMode',
    ],
    [
      'an Opsgenie region that is not one',
      { clusters: [eks], opsgenie: { apiKeySecret: 'lease-watchdog/opsgenie', region: 'asia' } },
      'opsgenie.region must be "us" (api.opsgenie.com), "eu" (api.eu.opsgenie.com) or "jsm" (Jira Service Management), got "asia"',
    ],
    [
      'a webhook URL that is not https',
      { clusters: [eks], webhook: { url: 'http://hooks.example.com/lw', signingKeySecret: 'k' } },
      'webhook.url must be the https:// URL of the webhook (got "http://hooks.example.com/lw")',
    ],
    [
      'a webhook URL with a password in it',
      { clusters: [eks], webhook: { url: 'https://u:p@hooks.example.com', signingKeySecret: 'k' } },
      'webhook.url must not carry a user or password (https://user:pass@host): keep credentials in the secret',
    ],
    [
      'an incident.io alert source id that is a URL',
      {
        clusters: [eks],
        incidentIo: { alertSourceId: 'https://api.incident.io/x', tokenSecret: 'k' },
      },
      'incidentIo.alertSourceId must be letters and digits, like 01GW2G3V0S59R238FAHPDS1R66 (got "https://api.incident.io/x")',
    ],
    [
      'an Alertmanager URL with a password in it',
      {
        clusters: [eks],
        alertmanager: { url: 'https://am:pw@am.example.com', authSecret: 'lease-watchdog/am' },
      },
      'alertmanager.url must be the https:// URL of the Alertmanager without a user or password (keep them in authSecret), e.g. https://alertmanager.example.com:9093',
    ],
    [
      'typo in a setting',
      { clusters: [eks], gracePeriodSecond: 50 },
      'gracePeriodSecond is not a known setting; remove it or use one of: clusters, discover, gracePeriodSeconds, startupGraceSeconds, reminderIntervalSeconds, readFailuresBeforePage, stuckRemovalSeconds, storm, dispatch, nodeRefreshSeconds, requestTimeoutSeconds, chatNotifications, machineTopic, eventBus, pagerDuty, opsgenie, incidentIo, webhook, alertmanager',
    ],
  ];
  for (const [name, input, message] of invalid) {
    test(`rejects ${name}`, () => {
      assert.equal(
        messageOf(() => parseWatchdogSettings(input)),
        message,
      );
    });
  }

  test('prefixes the message with where the settings came from', () => {
    assert.equal(
      messageOf(() => parseWatchdogSettings({ clusters: [] }, 'mine.json')),
      'mine.json: clusters must list at least one cluster to watch (it is empty), or set discover',
    );
  });
});

describe('loadRuntimeConfig', () => {
  const settings = JSON.stringify({ clusters: [eks] });
  const env = {
    LEASE_WATCHDOG_SETTINGS: settings,
    TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog',
    STATE_TABLE: 'LeaseWatchdog-StateTable-1ABC',
  };

  test('reads the three variables into a frozen configuration', () => {
    const config = loadRuntimeConfig(env);
    assert.equal(config.topicArn, env.TOPIC_ARN);
    assert.equal(config.stateTable, env.STATE_TABLE);
    assert.equal(config.settings.clusters[0]?.name, 'prod-eu');
    assert.equal(config.settings.gracePeriodSeconds, 50);
    assert.ok(Object.isFrozen(config));
  });

  test('NODE_TLS_REJECT_UNAUTHORIZED=1 (verification on) is fine', () => {
    assert.equal(
      loadRuntimeConfig({ ...env, NODE_TLS_REJECT_UNAUTHORIZED: '1' }).topicArn,
      env.TOPIC_ARN,
    );
  });

  const invalid: [string, Record<string, string | undefined>, string][] = [
    [
      'no settings',
      { ...env, LEASE_WATCHDOG_SETTINGS: undefined },
      'LEASE_WATCHDOG_SETTINGS is required (JSON of the watchdog settings; the CDK stack sets it)',
    ],
    [
      'no topic',
      { ...env, TOPIC_ARN: undefined },
      'TOPIC_ARN is required (the SNS topic that receives the notifications)',
    ],
    [
      'blank topic',
      { ...env, TOPIC_ARN: '  ' },
      'TOPIC_ARN is required (the SNS topic that receives the notifications)',
    ],
    [
      'no table',
      { ...env, STATE_TABLE: '' },
      'STATE_TABLE is required (the DynamoDB table that keeps the watchdog state)',
    ],
    [
      'a queue for a topic',
      { ...env, TOPIC_ARN: 'arn:aws:sqs:eu-west-1:123456789012:q' },
      'TOPIC_ARN must be an SNS topic ARN like arn:aws:sns:eu-west-1:123456789012:alerts (got "arn:aws:sqs:eu-west-1:123456789012:q")',
    ],
    [
      'settings not JSON',
      { ...env, LEASE_WATCHDOG_SETTINGS: '{clusters:' },
      `LEASE_WATCHDOG_SETTINGS must be JSON of the watchdog settings: ${(() => {
        try {
          JSON.parse('{clusters:');
        } catch (error) {
          return (error as Error).message;
        }
        return '';
      })()}`,
    ],
    [
      'an environment that turns TLS verification off',
      { ...env, NODE_TLS_REJECT_UNAUTHORIZED: '0' },
      'NODE_TLS_REJECT_UNAUTHORIZED=0 turns off TLS verification, and the watchdog would send its cluster tokens to any server; remove it from the function environment',
    ],
    [
      'invalid settings',
      { ...env, LEASE_WATCHDOG_SETTINGS: '{"clusters":[{"name":"a","auth":{"mode":"ekss"}}]}' },
      'LEASE_WATCHDOG_SETTINGS: clusters[0].auth.mode must be one of kubeconfig, token, eks (got "ekss")',
    ],
  ];
  for (const [name, input, message] of invalid) {
    test(`rejects ${name}`, () => {
      assert.equal(
        messageOf(() => loadRuntimeConfig(input)),
        message,
      );
    });
  }

  const noClusters = {
    ...env,
    LEASE_WATCHDOG_SETTINGS: JSON.stringify({ gracePeriodSeconds: 70 }),
  };
  const file = (text: string) => ({
    path: '/var/task/lease-watchdog-clusters.json',
    read: () => text,
  });

  test('takes the clusters from the cluster file, every field of each, with the global settings of the environment', () => {
    const withSelector = { ...eks, name: 'second', namespace: 'leases', excludeSelector: 'spot' };
    const config = loadRuntimeConfig(
      noClusters,
      file(JSON.stringify({ clusters: [eks, withSelector] })),
    );
    assert.equal(config.settings.gracePeriodSeconds, 70);
    assert.deepEqual(
      config.settings.clusters,
      parseWatchdogSettings({ clusters: [eks, withSelector] }).clusters,
    );
  });

  test('adds the clusters the environment keeps (deploy-time values) after those of the file', () => {
    const config = loadRuntimeConfig(
      {
        ...env,
        LEASE_WATCHDOG_SETTINGS: JSON.stringify({ clusters: [{ ...eks, name: 'resolved' }] }),
      },
      file(JSON.stringify({ clusters: [eks] })),
    );
    assert.deepEqual(
      config.settings.clusters.map((c) => c.name),
      ['prod-eu', 'resolved'],
    );
  });

  const badFiles: [string, Parameters<typeof loadRuntimeConfig>[1], string][] = [
    [
      'no cluster file and no clusters',
      undefined,
      "LEASE_WATCHDOG_SETTINGS lists no clusters and there is no lease-watchdog-clusters.json: the CDK stack writes it into the function's code",
    ],
    [
      'an unreadable cluster file',
      {
        path: '/var/task/lease-watchdog-clusters.json',
        read: () => {
          throw new Error(
            "ENOENT: no such file or directory, open '/var/task/lease-watchdog-clusters.json'",
          );
        },
      },
      "/var/task/lease-watchdog-clusters.json cannot be read (ENOENT: no such file or directory, open '/var/task/lease-watchdog-clusters.json'): the CDK stack writes it into the function's code; deploy again",
    ],
    [
      'a cluster file that is not JSON',
      file('{"clusters": ['),
      /^\/var\/task\/lease-watchdog-clusters.json must be JSON of \{"clusters": \[\.\.\.\]\}: /
        .source,
    ],
    [
      'a cluster file without a list',
      file('{"cluster": []}'),
      '/var/task/lease-watchdog-clusters.json must be {"clusters": [...]}; deploy again',
    ],
    [
      'an invalid cluster in the file',
      file(JSON.stringify({ clusters: [{ ...eks, auth: { mode: 'ekss' } }] })),
      'LEASE_WATCHDOG_SETTINGS + lease-watchdog-clusters.json: clusters[0].auth.mode must be one of kubeconfig, token, eks (got "ekss")',
    ],
  ];
  for (const [name, clusterFile, message] of badFiles) {
    test(`rejects ${name} with one line`, () => {
      const got = messageOf(() => loadRuntimeConfig(noClusters, clusterFile));
      if (message.startsWith('^')) assert.match(got, new RegExp(message));
      else assert.equal(got, message);
      assert.ok(!got.includes('\n'));
    });
  }
});

describe('synthesizedRuntimeConfig (the cold start, without the schemas)', () => {
  // What the stack writes for a deployment: the environment's settings and the cluster file.
  const deployed = parseAppConfig({
    ...valid,
    clusters: [eks, token, kubeconfig],
    storm: { zoneFraction: 0.6 },
    opsgenie: { apiKeySecret: 'oncall/opsgenie' },
    chatNotifications: {},
  });
  const { environment, clusterFile } = functionSettingsOf(watchdogSettingsOf(deployed));
  const env = {
    LEASE_WATCHDOG_SETTINGS: environment,
    TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog',
    STATE_TABLE: 'LeaseWatchdog-StateTable-1ABC',
    CHAT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:chat',
  };
  const file = (text: string) => ({
    path: '/var/task/lease-watchdog-clusters.json',
    read: () => text,
  });

  test('takes the settings the cluster file vouches for as they are: what validating them gives', () => {
    const config = synthesizedRuntimeConfig(env, file(clusterFile));
    assert.ok(config, 'the file vouches for the settings the stack wrote');
    assert.deepEqual(config, loadRuntimeConfig(env, file(clusterFile)));
    assert.ok(Object.isFrozen(config.settings.clusters[0]?.auth));
  });

  const changed = JSON.parse(clusterFile) as { clusters: { namespace: string }[] };
  const unvouched: [string, Record<string, string>, string][] = [
    [
      'settings changed since synth',
      {
        ...env,
        LEASE_WATCHDOG_SETTINGS: environment.replace(
          '"gracePeriodSeconds":50',
          '"gracePeriodSeconds":51',
        ),
      },
      clusterFile,
    ],
    [
      'a cluster changed since synth',
      env,
      JSON.stringify({
        ...changed,
        clusters: [{ ...changed.clusters[0], namespace: 'x' }, ...changed.clusters.slice(1)],
      }),
    ],
    ['a file without the digest', env, JSON.stringify({ clusters: changed.clusters })],
  ];
  for (const [name, input, text] of unvouched) {
    test(`leaves ${name} to be validated`, () => {
      assert.equal(synthesizedRuntimeConfig(input, file(text)), undefined);
      assert.ok(loadRuntimeConfig(input, file(text)).settings.clusters.length === 3);
    });
  }

  test('rejects the environment with the messages of loadRuntimeConfig', () => {
    for (const bad of [
      { ...env, TOPIC_ARN: 'arn:aws:sqs:eu-west-1:123456789012:q' },
      { ...env, STATE_TABLE: 'no table' },
      { ...env, CHAT_TOPIC_ARN: undefined },
      { ...env, NODE_TLS_REJECT_UNAUTHORIZED: '0' },
      { ...env, RECHECK_QUEUE_URL: 'https://example.com/q' },
    ]) {
      const expected = messageOf(() => loadRuntimeConfig(bad, file(clusterFile)));
      assert.equal(
        messageOf(() => synthesizedRuntimeConfig(bad, file(clusterFile))),
        expected,
      );
    }
  });
});

describe('deployment configuration', () => {
  test("sizes the function's memory from the largest cluster's node count unless memoryMb is set", () => {
    const memory = (extra: Record<string, unknown>) =>
      parseDeploymentConfig({ ...valid, ...extra }).memoryMb;
    assert.equal(memory({ largestClusterNodes: 1_000 }), 512);
    assert.equal(memory({ largestClusterNodes: 20_000 }), 512);
    assert.equal(memory({ largestClusterNodes: 50_000 }), 512);
    assert.equal(memory({ largestClusterNodes: 100_000 }), 512);
    assert.equal(memory({ largestClusterNodes: 150_000 }), 640);
    assert.equal(memory({ largestClusterNodes: 1_000_000 }), 2_816);
    assert.equal(memory({ largestClusterNodes: 100_000, memoryMb: 768 }), 768, 'memoryMb wins');
    assert.equal(memory({ memoryMb: 2_048 }), 2_048);
  });

  test('fills in the stack defaults', () => {
    const config = parseDeploymentConfig(valid);
    assert.equal(config.scheduleMinutes, 1);
    assert.equal(config.logRetentionDays, 30);
    assert.equal(config.reservedConcurrency, 5, 'clusters × 2 + 1');
    assert.equal(config.memoryMb, 512);
    assert.equal(config.largestClusterNodes, undefined);
    assert.deepEqual(config.emails, ['oncall@example.com']);
    assert.deepEqual(
      config.clusters.map((c) => [c.name, c.accessEntry]),
      [
        ['prod-eu', true],
        ['edge-lab', false],
      ],
    );
    assert.equal(config.existingTopicArn, undefined);
    assert.ok(Object.isFrozen(config));
  });

  test('hands the function exactly the watchdog settings, without the stack fields', () => {
    const config = parseDeploymentConfig({
      ...valid,
      clusters: [{ ...eks, accessEntry: false }, token],
    });
    const settings = watchdogSettingsOf(config);
    assert.deepEqual(settings, parseWatchdogSettings({ clusters: [eks, token] }));
    assert.equal(config.clusters[0]?.accessEntry, false);
  });

  test('is idempotent (the construct re-validates what the app parsed)', () => {
    const once = parseDeploymentConfig({
      ...valid,
      vpc: { vpcId: 'vpc-0123456789abcdef0', subnetIds: ['subnet-0123456789abcdef0'] },
    });
    assert.deepEqual(parseDeploymentConfig(once), once);
  });

  test('reads account and region from the file, else from CDK_DEPLOY_ACCOUNT / CDK_DEPLOY_REGION', () => {
    const fromFile = parseAppConfig({
      ...valid,
      account: '123456789012',
      region: 'eu-west-1',
      stackName: 'Watch',
    });
    assert.deepEqual(
      [fromFile.account, fromFile.region, fromFile.stackName],
      ['123456789012', 'eu-west-1', 'Watch'],
    );
    const fromEnv = parseAppConfig(valid, undefined, {
      CDK_DEPLOY_ACCOUNT: '210987654321',
      CDK_DEPLOY_REGION: 'eu-west-1',
    });
    assert.deepEqual(
      [fromEnv.account, fromEnv.region, fromEnv.stackName],
      ['210987654321', 'eu-west-1', 'LeaseWatchdog'],
    );
    const agnostic = parseAppConfig(valid);
    assert.deepEqual([agnostic.account, agnostic.region], [undefined, undefined]);
  });

  test('an existing topic needs no emails', () => {
    const config = parseDeploymentConfig({
      clusters: [eks],
      existingTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alerts',
    });
    assert.deepEqual(config.emails, []);
  });

  const invalid: [string, unknown, string][] = [
    [
      'bad email',
      { ...valid, emails: ['oncall@example.com', 'oncall at example.com'] },
      'emails[1] must be an email address like oncall@example.com (got "oncall at example.com")',
    ],
    [
      'duplicate email',
      { ...valid, emails: ['a@example.com', 'A@example.com'] },
      'emails[1] "A@example.com" is listed twice; remove the duplicate',
    ],
    [
      'nobody to notify',
      { clusters: [eks] },
      'emails must list at least one address to notify (or set existingTopicArn to publish to a topic you already have)',
    ],
    [
      'schedule under a minute',
      { ...valid, scheduleMinutes: 0.5 },
      'scheduleMinutes must be a whole number ≥ 1 (got 0.5); the looks queue checks between scheduled runs',
    ],
    [
      'schedule of zero',
      { ...valid, scheduleMinutes: 0 },
      'scheduleMinutes must be a whole number ≥ 1 (got 0); the looks queue checks between scheduled runs',
    ],
    [
      'schedule over an hour',
      { ...valid, scheduleMinutes: 90 },
      'scheduleMinutes must be at most 60 (got 90): check each cluster at least hourly',
    ],
    [
      'the removed fastMode, in a deployment file',
      { ...valid, fastMode: { checksPerInvocation: 7, intervalSeconds: 10 } },
      'fastMode was removed: the looks queue (SQS) checks between scheduled runs and re-checks each suspect at its deadline, so a dead node pages 50-60 s after its last renewal; delete fastMode',
    ],
    [
      'unknown auth mode',
      { ...valid, clusters: [eks, { name: 'x', auth: { mode: 'ekss' } }] },
      'clusters[1].auth.mode must be one of kubeconfig, token, eks (got "ekss")',
    ],
    [
      'missing cluster name',
      { ...valid, clusters: [eks, { auth: token.auth }] },
      'clusters[1].name is required: give each cluster a unique name, e.g. "prod-eu"',
    ],
    [
      'duplicate cluster',
      { ...valid, clusters: [eks, { ...token, name: 'prod-eu' }] },
      'clusters[1].name "prod-eu" is already used by clusters[0]; cluster names must be unique',
    ],
    [
      'empty cluster list',
      { ...valid, clusters: [] },
      'clusters must list at least one cluster to watch (it is empty), or set discover',
    ],
    [
      'access entry on a token cluster',
      { ...valid, clusters: [eks, { ...token, accessEntry: true }] },
      'clusters[1].accessEntry applies only to eks clusters; remove it from this "token" cluster',
    ],
    [
      'access entry not a boolean',
      { ...valid, clusters: [{ ...eks, accessEntry: 'yes' }] },
      'clusters[0].accessEntry must be true or false (got "yes")',
    ],
    [
      'bad log retention',
      { ...valid, logRetentionDays: 10 },
      'logRetentionDays must be one of 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653 (got 10)',
    ],
    [
      'bad existing topic',
      { clusters: [eks], existingTopicArn: 'alerts' },
      'existingTopicArn must be an SNS topic ARN like arn:aws:sns:eu-west-1:123456789012:alerts (got "alerts")',
    ],
    [
      'zero reserved concurrency',
      { ...valid, reservedConcurrency: 0 },
      'reservedConcurrency must be a whole number from 1 to 900 (got 0); an account has 1,000 concurrent executions by default and Lambda keeps 100 unreserved; the default is clusters × 2 + 1, at most 200',
    ],
    [
      'reserved concurrency past what an account may reserve',
      { ...valid, reservedConcurrency: 901 },
      'reservedConcurrency must be a whole number from 1 to 900 (got 901); an account has 1,000 concurrent executions by default and Lambda keeps 100 unreserved; the default is clusters × 2 + 1, at most 200',
    ],
    [
      'node refresh over an hour',
      { ...valid, nodeRefreshSeconds: 7200 },
      'nodeRefreshSeconds must be a whole number from 0 to 3600 (got 7200); 0 lists whole Nodes on every check',
    ],
    [
      'memory below what a check needs',
      { ...valid, memoryMb: 128 },
      'memoryMb must be a whole number from 256 to 10240 (got 128); Lambda allows 128-10240 MB; the watchdog needs ~512 MB for 100,000 nodes',
    ],
    [
      'a node count that is no count',
      { ...valid, largestClusterNodes: 0 },
      "largestClusterNodes must be a whole number from 1 to 1000000 (got 0); the node count of the largest cluster, e.g. 100000; the function's memory is sized from it",
    ],
    [
      'a node count given as text',
      { ...valid, largestClusterNodes: '100k' },
      'largestClusterNodes must be a whole number from 1 to 1000000 (got "100k"); the node count of the largest cluster, e.g. 100000; the function\'s memory is sized from it',
    ],
    [
      'vpc without subnets',
      { ...valid, vpc: { vpcId: 'vpc-0123456789abcdef0', subnetIds: [] } },
      'vpc.subnetIds must be a non-empty list, e.g. ["subnet-0123456789abcdef0"] (got [])',
    ],
    [
      'bad security group',
      {
        ...valid,
        vpc: {
          vpcId: 'vpc-0123456789abcdef0',
          subnetIds: ['subnet-0123456789abcdef0'],
          securityGroupIds: ['default'],
        },
      },
      'vpc.securityGroupIds[0] must be an id like sg-0123456789abcdef0 (got "default")',
    ],
    [
      'no read failure before a page',
      { ...valid, readFailuresBeforePage: 0 },
      'readFailuresBeforePage must be a whole number from 1 to 60 (got 0)',
    ],
    [
      'a stuck-removal limit shorter than a reboot',
      { ...valid, stuckRemovalSeconds: 60 },
      'stuckRemovalSeconds must be a whole number from 300 to 604800 (got 60)',
    ],
    [
      'a FIFO alarm topic',
      { ...valid, alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops.fifo' },
      'alarmTopicArn must be a standard topic: CloudWatch alarms cannot publish to a FIFO topic (got "arn:aws:sns:eu-west-1:123456789012:ops.fifo")',
    ],
    [
      'unknown field',
      { ...valid, email: ['a@example.com'] },
      'email is not a known setting; remove it or use one of: clusters, discover, gracePeriodSeconds, startupGraceSeconds, reminderIntervalSeconds, readFailuresBeforePage, stuckRemovalSeconds, storm, dispatch, nodeRefreshSeconds, requestTimeoutSeconds, chatNotifications, machineTopic, eventBus, pagerDuty, opsgenie, incidentIo, webhook, alertmanager, emails, existingTopicArn, alarmEmails, alarmTopicArn, dashboard, scheduleMinutes, logRetentionDays, reservedConcurrency, memoryMb, largestClusterNodes, vpc',
    ],
  ];
  for (const [name, input, message] of invalid) {
    test(`rejects ${name}`, () => {
      assert.equal(
        messageOf(() => parseDeploymentConfig(input)),
        message,
      );
    });
  }

  test('rejects a bad account or region in the file', () => {
    assert.equal(
      messageOf(() => parseAppConfig({ ...valid, account: '1234' })),
      'account must be a 12-digit AWS account id (got "1234")',
    );
    assert.equal(
      messageOf(() => parseAppConfig({ ...valid, region: 'EU' })),
      'region must be an AWS region like eu-west-1 (got "EU")',
    );
  });

  describe('loadConfigFile', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-watchdog-config-'));

    test('names the file in its message', () => {
      const path = join(dir, 'bad.json');
      writeFileSync(path, JSON.stringify({ ...valid, scheduleMinutes: 0 }));
      assert.equal(
        messageOf(() => loadConfigFile(path)),
        `${path}: scheduleMinutes must be a whole number ≥ 1 (got 0); the looks queue checks between scheduled runs`,
      );
    });

    test('says how to start when the file is missing', () => {
      const path = join(dir, 'missing.json');
      assert.equal(
        messageOf(() => loadConfigFile(path)),
        `${path} not found: copy infra/config.example.json and pass -c config=<your file>`,
      );
    });

    test('reports JSON syntax errors on one line', () => {
      const path = join(dir, 'broken.json');
      writeFileSync(path, '{\n  "clusters": [\n');
      assert.match(
        messageOf(() => loadConfigFile(path)),
        new RegExp(`^${path} is not valid JSON: `),
      );
    });

    test('the committed example is valid: two clusters, one eks and one token', () => {
      const config = loadConfigFile(
        new URL('../infra/config.example.json', import.meta.url).pathname,
      );
      assert.deepEqual(
        config.clusters.map((c) => c.auth.mode),
        ['eks', 'token'],
      );
      assert.equal(config.account, undefined, 'the example stays environment-agnostic');
    });
  });
});
