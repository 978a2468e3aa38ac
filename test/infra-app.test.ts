/**
 * The CDK app without a configuration: `cdk deploy` is refused with one line saying how to pass
 * one (infra/config.example.json has fake clusters and oncall@example.com), while the commands
 * that only look (`cdk ls`, `cdk synth`) keep showing the example. And cdk.json carries the
 * recommended feature flags of the installed aws-cdk-lib, without changing a logical id.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { cdkCommand, type ProcessTable } from '../infra/cdk-command.js';
import { buildStack } from '../infra/stack.js';
import { parseAppConfig } from '../lambda/settings/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const NO_CONFIGURATION =
  'lease-watchdog config: no configuration: copy infra/config.example.json (fake clusters, oncall@example.com), edit it, and pass -c config=<your file> (or set LEASE_WATCHDOG_CONFIG_FILE); only cdk synth shows the example without one';

/** A process table: pid → [parent, argv]. */
function table(processes: Record<number, [number, string[]]>): ProcessTable {
  return {
    parentOf: (pid) => processes[pid]?.[0],
    argvOf: (pid) => processes[pid]?.[1],
  };
}

describe('which CDK command runs the app', () => {
  // The app's ancestors under `npx cdk deploy`: tsx's node, npx, sh, the CDK CLI, npx, a shell.
  const tree = (cli: string[]): ProcessTable =>
    table({
      40: [39, ['node', '/repo/node_modules/tsx/dist/cli.mjs', 'infra/app.ts']],
      39: [38, ['npm exec tsx infra/app.ts']],
      38: [30, ['sh', '-c', 'npx tsx infra/app.ts']],
      30: [20, cli],
      20: [10, ['npm exec cdk deploy']],
      10: [1, ['-bash']],
    });
  const cases: [string, string[], string][] = [
    ['deploy', ['node', '/repo/node_modules/.bin/cdk', 'deploy'], 'deploy'],
    [
      'deploy after options with values',
      ['node', '/usr/local/bin/cdk', '--profile', 'prod', '-c', 'x=y', 'deploy', '--all'],
      'deploy',
    ],
    ['watch', ['node', '/repo/node_modules/aws-cdk/bin/cdk', 'watch'], 'watch'],
    ['synth', ['node', '/repo/node_modules/.bin/cdk', 'synth', '--quiet'], 'synth'],
    ['synth of a stack named deploy', ['node', 'cdk', 'synth', 'deploy'], 'synth'],
    ['ls', ['node', '/repo/node_modules/.bin/cdk', 'ls'], 'ls'],
    ['no command', ['node', '/repo/node_modules/.bin/cdk', '--version'], 'unknown'],
  ];
  for (const [name, cli, expected] of cases) {
    test(name, () => {
      assert.equal(cdkCommand(tree(cli), 40), expected);
    });
  }

  test('none: the app started by hand or by a test', () => {
    assert.equal(
      cdkCommand(table({ 40: [10, ['node', 'infra/app.ts']], 10: [1, ['bash']] }), 40),
      'none',
    );
  });

  test('unknown where the process table cannot be read (fail safe: no example deployed)', () => {
    assert.equal(cdkCommand(null, 40), 'unknown');
  });

  test('this very test runs under no cdk', () => {
    assert.equal(cdkCommand(), 'none');
  });
});

describe('the real CDK CLI without -c config', () => {
  const env = {
    ...process.env,
    PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
    CDK_DISABLE_VERSION_CHECK: '1',
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    LEASE_WATCHDOG_CONFIG_FILE: '',
    // No credentials reach AWS: the refusal comes first.
    AWS_ACCESS_KEY_ID: '',
    AWS_SECRET_ACCESS_KEY: '',
    AWS_PROFILE: '',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  const cdk = (...args: string[]) =>
    spawnSync(
      'npx',
      ['cdk', ...args, '--no-notices', '-o', mkdtempSync(join(tmpdir(), 'lw-app-'))],
      {
        cwd: root,
        env,
        encoding: 'utf8',
        timeout: 300_000,
      },
    );

  test('cdk deploy is refused with one line that says how to pass a configuration', () => {
    const run = cdk('deploy', '--require-approval', 'never');
    assert.notEqual(run.status, 0);
    const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
    // The CDK CLI adds its own last line about the app's exit status; ours is the one before.
    const ours = lines.filter((line) => !/Subprocess exited with error 1$/.test(line));
    assert.deepEqual(ours, [NO_CONFIGURATION]);
  });

  test('cdk ls still reads the example', () => {
    const run = cdk('ls');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'LeaseWatchdog');
  });
});

describe('cdk.json', () => {
  const cdkJson = JSON.parse(readFileSync(join(root, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const recommended = JSON.parse(
    readFileSync(
      join(root, 'node_modules', 'aws-cdk-lib', 'recommended-feature-flags.json'),
      'utf8',
    ),
  ) as Record<string, unknown>;

  test('carries every feature flag the installed aws-cdk-lib recommends, at its value', () => {
    assert.ok(Object.keys(recommended).length > 80);
    for (const [flag, value] of Object.entries(recommended)) {
      assert.deepEqual(cdkJson.context[flag], value, flag);
    }
  });

  test('the flags change no logical id (a renamed one would replace the resource)', () => {
    const config = parseAppConfig({
      clusters: [
        { name: 'prod-eu', auth: { mode: 'eks', region: 'eu-west-1' } },
        { name: 'onprem', auth: { mode: 'kubeconfig', secretId: 'kube/onprem' } },
      ],
      emails: ['oncall@example.com'],
      alarmEmails: ['ops@example.com'],
      vpc: { vpcId: 'vpc-0123456789abcdef0', subnetIds: ['subnet-0123456789abcdef0'] },
      account: '123456789012',
      region: 'eu-west-1',
    });
    const ids = (context: Record<string, unknown>) => {
      const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
      const resources = Template.fromStack(buildStack(app, config)).toJSON().Resources as Record<
        string,
        { Type: string }
      >;
      return Object.entries(resources)
        .map(([id, r]) => `${id} ${r.Type}`)
        .sort();
    };
    const withFlags = ids(cdkJson.context);
    assert.ok(withFlags.length > 25);
    assert.deepEqual(withFlags, ids({}));
  });
});
