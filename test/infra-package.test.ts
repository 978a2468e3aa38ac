/**
 * The construct as a library: a separate CDK app, docs/DEPLOY.md's example as a user copies it,
 * imports `lease-watchdog/infra` from the packed and installed package (compiled JavaScript, its
 * props types, the handler bundle it ships), gives it its own SNS topic and VPC and times as
 * `Duration`s, outputs the names the Deploy step needs, and synthesizes with cdk-nag's
 * AwsSolutions pack: no finding, no second topic, the function in the given VPC.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { linkInstalled, packAndInstall, ROOT, run } from '../testkit/packed-package.js';

/**
 * docs/DEPLOY.md's example (section "In your own CDK app"), as a user writes it: the ts block
 * after the comment that names this file, so the page shows what this test builds.
 */
function readmeApp(): string {
  const page = readFileSync(join(ROOT, 'docs', 'DEPLOY.md'), 'utf8');
  const block = /<!-- test\/infra-package\.test\.ts [^>]*-->\n```ts\n([\s\S]*?)\n```/.exec(page);
  assert.ok(block?.[1], "docs/DEPLOY.md has the construct's example app");
  return `${block[1]}\n`;
}

const TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    target: 'es2022',
    strict: true,
    skipLibCheck: true,
    outDir: 'out',
    types: ['node'],
  },
  files: ['user-app.ts'],
};

// biome-ignore lint/suspicious/noExplicitAny: template properties, typed as Template.findResources types them
type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

describe('lease-watchdog/infra, installed from the packed package into a CDK app of its own', () => {
  let dir: string;
  let app: string;
  let synth: ReturnType<typeof spawnSync>;
  let resources: Resources;
  let outputs: Record<string, { Value: unknown }>;
  const idOf = (type: string, prefix: string): string => {
    const ids = Object.keys(resources).filter(
      (id) => resources[id]?.Type === type && id.startsWith(prefix),
    );
    assert.equal(ids.length, 1, `one ${type} ${prefix}: ${ids.join(', ')}`);
    return ids[0] as string;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-construct-'));
    app = await packAndInstall(dir, { esm: true });
    // The user's own CDK app already has these.
    await linkInstalled(app, ['aws-cdk-lib', 'constructs', 'cdk-nag', '@types/node']);
    await writeFile(join(app, 'user-app.ts'), readmeApp());
    await writeFile(join(app, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    await run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', app], { timeout: 300_000 });
    // `cdk synth` tells the app where to write the same way (CDK_OUTDIR).
    synth = spawnSync(process.execPath, [join(app, 'out', 'user-app.js')], {
      cwd: app,
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, CDK_OUTDIR: join(app, 'cdk.out') },
    });
    const template = join(app, 'cdk.out', 'Platform.template.json');
    const synthesized = existsSync(template)
      ? (JSON.parse(readFileSync(template, 'utf8')) as {
          Resources: Resources;
          Outputs?: typeof outputs;
        })
      : { Resources: {} };
    resources = synthesized.Resources;
    outputs = synthesized.Outputs ?? {};
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('type-checks against the shipped props types and synthesizes with zero cdk-nag findings', () => {
    assert.equal(synth.status, 0, String(synth.stderr));
    assert.ok(Object.keys(resources).length > 0, 'the template has resources');
  });

  it('installs no TypeScript sources and no esbuild: the function is the bundle the package ships', () => {
    const installed = join(app, 'node_modules', 'lease-watchdog');
    // infra/ holds the example configuration and its schema (the package ships them), no sources.
    const infra = existsSync(join(installed, 'infra')) ? readdirSync(join(installed, 'infra')) : [];
    assert.deepEqual(
      infra.filter((file) => file.endsWith('.ts')),
      [],
      'no infra/*.ts',
    );
    assert.ok(!existsSync(join(app, 'node_modules', 'esbuild')), 'no esbuild');
    const fn = resources[idOf('AWS::Lambda::Function', 'NodeWatchdogFunction')]?.Properties;
    assert.equal(fn?.Handler, 'index.handler');
    assert.equal(fn?.Runtime, 'nodejs24.x');
    const asset = join(app, 'cdk.out', `asset.${String(fn?.Code.S3Key).replace(/\.zip$/, '')}`);
    const shipped = join(installed, 'dist', 'handler-bundle', 'index.mjs');
    assert.ok(
      readFileSync(join(asset, 'index.mjs')).equals(readFileSync(shipped)),
      'the asset is the shipped bundle',
    );
    // ASCII alone: one character past it and V8 holds the whole text (which stays in the heap for
    // the functions compiled on their first call) at two bytes a character.
    for (const file of ['index.mjs', 'kube-auth.mjs']) {
      const text = readFileSync(join(installed, 'dist', 'handler-bundle', file));
      const at = text.findIndex((byte) => byte > 0x7f);
      const around = text.subarray(Math.max(0, at - 60), at + 20).toString();
      assert.equal(at, -1, `${file}: a byte past ASCII at ${at}: ${JSON.stringify(around)}`);
    }
    const loaded = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(join(asset, 'index.mjs'))}); console.log(typeof m.handler);`,
      ],
      {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '',
          AWS_REGION: 'eu-west-1',
          LEASE_WATCHDOG_SETTINGS: fn?.Environment.Variables.LEASE_WATCHDOG_SETTINGS,
          TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:alerts',
          STATE_TABLE: 'state',
        },
      },
    );
    assert.equal(loaded.stdout.trim(), 'function', loaded.stderr);
  });

  it('publishes to the given topic: no second topic or key, alarms and the function use it', () => {
    const topic = idOf('AWS::SNS::Topic', 'Alerts');
    const key = idOf('AWS::KMS::Key', 'AlertsKey');
    const fn = resources[idOf('AWS::Lambda::Function', 'NodeWatchdogFunction')]?.Properties;
    assert.deepEqual(fn?.Environment.Variables.TOPIC_ARN, { Ref: topic });
    const alarms = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    assert.equal(
      alarms.length,
      7,
      'errors, throttles, dead letters, parked looks, looks stopped, abandoned notifications, one dead-man switch',
    );
    for (const alarm of alarms) assert.deepEqual(alarm.Properties.AlarmActions, [{ Ref: topic }]);
    const role = idOf('AWS::IAM::Role', 'NodeWatchdogFunctionRole');
    const policy = Object.values(resources).find(
      (r) =>
        r.Type === 'AWS::IAM::Policy' &&
        JSON.stringify(r.Properties.Roles) === JSON.stringify([{ Ref: role }]),
    );
    const statements = policy?.Properties.PolicyDocument.Statement as {
      Sid?: string;
      Resource: unknown;
    }[];
    const bySid = (sid: string) => statements.find((s) => s.Sid === sid)?.Resource;
    assert.deepEqual(bySid('PublishNotifications'), { Ref: topic });
    assert.deepEqual(bySid('EncryptNotifications'), { 'Fn::GetAtt': [key, 'Arn'] });
  });

  it("runs in the given VPC's private subnets, with a security group of its own there", () => {
    const vpc = idOf('AWS::EC2::VPC', 'Vpc');
    const fn = resources[idOf('AWS::Lambda::Function', 'NodeWatchdogFunction')]?.Properties;
    const privateSubnets = Object.keys(resources)
      .filter((id) => resources[id]?.Type === 'AWS::EC2::Subnet' && /PrivateSubnet/.test(id))
      .map((id) => ({ Ref: id }));
    assert.equal(privateSubnets.length, 2);
    assert.deepEqual(fn?.VpcConfig.SubnetIds, privateSubnets);
    const group = idOf('AWS::EC2::SecurityGroup', 'NodeWatchdogFunctionSecurityGroup');
    assert.deepEqual(fn?.VpcConfig.SecurityGroupIds, [{ 'Fn::GetAtt': [group, 'GroupId'] }]);
    assert.deepEqual(resources[group]?.Properties.VpcId, { Ref: vpc });
  });

  it('takes times as Durations and outputs the names the Deploy step needs', () => {
    const fn = resources[idOf('AWS::Lambda::Function', 'NodeWatchdogFunction')]?.Properties;
    const settings = JSON.parse(fn?.Environment.Variables.LEASE_WATCHDOG_SETTINGS) as {
      gracePeriodSeconds: number;
      reminderIntervalSeconds: number;
    };
    assert.equal(settings.gracePeriodSeconds, 50);
    assert.equal(settings.reminderIntervalSeconds, 7_200, 'Duration.hours(2)');
    const logGroup = idOf('AWS::Logs::LogGroup', 'NodeWatchdogLogGroup');
    assert.equal(resources[logGroup]?.Properties.RetentionInDays, 90, 'Duration.days(90)');
    assert.deepEqual(outputs.FunctionName?.Value, {
      Ref: idOf('AWS::Lambda::Function', 'NodeWatchdogFunction'),
    });
    assert.deepEqual(outputs.LogGroupName?.Value, { Ref: logGroup });
    const role = idOf('AWS::IAM::Role', 'NodeWatchdogFunctionRole');
    assert.deepEqual(outputs.FunctionRoleArn?.Value, { 'Fn::GetAtt': [role, 'Arn'] });
    const entry = resources[idOf('AWS::EKS::AccessEntry', 'NodeWatchdogAccessEntry')]?.Properties;
    assert.deepEqual(entry?.KubernetesGroups, ['lease-watchdog'], 'accessEntry: true, as shown');
  });
});
