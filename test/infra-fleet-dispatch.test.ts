/**
 * A thousand clusters through the dispatcher (`dispatch: true`), synthesized once, offline (no
 * bundle): one schedule for all, one queue with its dead-letter queue and alarm, an event source
 * mapping that runs one check an invocation at a bounded concurrency, the fleet-wide dead-man's
 * switch (two alarms on one metric) instead of a schedule and a switch per cluster, least
 * privilege, and every stack within CloudFormation's limits. infra-fleet.test.ts keeps the
 * 300 clusters of their own schedules.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import {
  FLEET_SECRETS_PREFIX,
  grantFleetAccess,
  MOST_SECRETS_ONE_BY_ONE,
} from '../infra/cluster-access.js';
import { dispatchConcurrency } from '../infra/dispatch.js';
import { DEAD_MAN_PERIODS } from '../lambda/settings/defaults.js';
import { ConfigError, DEFAULTS, type DeployedCluster } from '../lambda/settings/index.js';
import { ONE_CLUSTER, synthDeployment, type TemplateJson } from '../testkit/synth-stack.js';

const FLEET = 1_000;
/** The fleet's secrets: under its stack's own prefix (the default stack name's). */
const PREFIX = `${FLEET_SECRETS_PREFIX}${DEFAULTS.stackName}/`;

/**
 * Two in five clusters `eks` (every 50th in another account), three `token` or `kubeconfig`: 600
 * secrets, named under the fleet's prefix (by name here, by ARN in another region), but for 20
 * granted one by one (docs/FLEET.md).
 */
function cluster(i: number): object {
  const name = `fleet-${String(i).padStart(4, '0')}`;
  const token = (tokenSecretId: string) => ({
    name,
    auth: { mode: 'token', server: `https://${name}.example.com`, tokenSecretId },
  });
  if (i % 5 === 1) return token(`${PREFIX}${name}`);
  if (i % 5 === 2) {
    return {
      name,
      auth: { mode: 'kubeconfig', secretId: `${PREFIX}${name}-config` },
    };
  }
  if (i % 5 === 3) {
    if (i % 50 === 3) return token(`kube/${name}`);
    return token(`${OTHER_REGION_SECRETS}${name}`);
  }
  const roleArn = `arn:aws:iam::2100000${String(i).padStart(5, '0')}:role/reader`;
  const eks = { mode: 'eks', clusterName: `${name}-eks`, ...(i % 50 === 0 ? { roleArn } : {}) };
  return { name, auth: eks };
}

/** Where the fixture's secrets given by ARN are: under the prefix, in another region. */
const OTHER_REGION_SECRETS = `arn:aws:secretsmanager:us-east-1:123456789012:secret:${PREFIX}`;

type Resource = TemplateJson['Resources'][string];

describe(`${FLEET} clusters through the dispatcher`, () => {
  let app: App;
  let parent: TemplateJson;
  let templates: TemplateJson[];
  let all: Resource[];
  const ofType = (type: string) => all.filter((r) => r.Type === type);
  const idOf = (type: string, prefix: string) =>
    Object.entries(parent.Resources).find(([id, r]) => r.Type === type && id.includes(prefix))?.[0];

  before(() => {
    const synth = synthDeployment({
      ...ONE_CLUSTER,
      clusters: Array.from({ length: FLEET }, (_, i) => cluster(i)),
      dispatch: true,
    });
    app = synth.app;
    parent = synth.parent;
    templates = [synth.parent, ...synth.nested];
    all = templates.flatMap((t) => Object.values(t.Resources));
  });

  test('one schedule dispatches every period; no cluster has a schedule of its own', () => {
    const schedules = ofType('AWS::Scheduler::Schedule');
    assert.equal(schedules.length, 1);
    const target = schedules[0]?.Properties.Target as { Input: string } | undefined;
    const input = JSON.parse(target?.Input ?? 'null');
    assert.deepEqual(input, { dispatch: { periodSeconds: 60 } });
    assert.equal(schedules[0]?.Properties.ScheduleExpression, 'rate(1 minute)');
  });

  test('each check runs in an invocation of its own, at most half the reserved concurrency at once', (t) => {
    const queue = idOf('AWS::SQS::Queue', 'DispatchQueue');
    assert.ok(queue);
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter((m) =>
      JSON.stringify(m.Properties.EventSourceArn).includes(queue),
    );
    assert.equal(mappings.length, 1);
    const mapping = mappings[0]?.Properties;
    assert.equal(mapping?.BatchSize, 1);
    assert.deepEqual(mapping?.FunctionResponseTypes, ['ReportBatchItemFailures']);
    const max = (mapping?.ScalingConfig as { MaximumConcurrency?: number } | undefined)
      ?.MaximumConcurrency;
    assert.equal(max, dispatchConcurrency(DEFAULTS.reservedConcurrencyCap));
    const fn = ofType('AWS::Lambda::Function')[0];
    assert.equal(fn?.Properties.ReservedConcurrentExecutions, DEFAULTS.reservedConcurrencyCap);
    t.diagnostic(`MaximumConcurrency ${max} of ${DEFAULTS.reservedConcurrencyCap} reserved`);
    const dlq = idOf('AWS::SQS::Queue', 'DispatchDeadLetterQueue');
    const redrive = parent.Resources[queue]?.Properties.RedrivePolicy as {
      deadLetterTargetArn: unknown;
      maxReceiveCount: number;
    };
    assert.equal(redrive.maxReceiveCount, 3);
    assert.match(JSON.stringify(redrive.deadLetterTargetArn), new RegExp(String(dlq)));
  });

  test("the fleet has one dead-man's switch, the dispatcher its own, and no cluster a $0.40 one", () => {
    const alarms = ofType('AWS::CloudWatch::Alarm');
    assert.equal(alarms.filter((a) => a.Properties.MetricName === 'CheckSucceeded').length, 0);
    const overdue = alarms.filter((a) => a.Properties.MetricName === 'ClustersOverdue');
    assert.deepEqual(
      overdue.map((a) => [a.Properties.Statistic, a.Properties.TreatMissingData]).sort(),
      [
        ['Maximum', 'notBreaching'],
        ['SampleCount', 'breaching'],
      ],
    );
    const stopped = overdue.find((a) => a.Properties.Statistic === 'SampleCount');
    assert.equal(stopped?.Properties.EvaluationPeriods, DEAD_MAN_PERIODS);
    for (const a of overdue) assert.ok((a.Properties.AlarmActions as unknown[]).length > 0);
    assert.ok(
      alarms.some((a) => JSON.stringify(a.Properties).includes('dispatch dead-letter queue')),
      'checks parked in the dispatch dead-letter queue alarm',
    );
    // The names docs/OPERATE.md's alarm table gives them.
    const names = alarms.map((a) => String(a.Properties.AlarmName).replace(/^.*?-(?=[A-Z])/, ''));
    for (const name of [
      'ClustersOverdueAlarm',
      'DispatcherStoppedAlarm',
      'DispatchDeadLetterAlarm',
    ])
      assert.ok(names.includes(name), `${name} among ${names.join(', ')}`);
  });

  test('the function may send to the dispatch queue and nothing more on it; the mapping receives', () => {
    const queue = idOf('AWS::SQS::Queue', 'DispatchQueue') as string;
    const statements = ofType('AWS::IAM::Policy').flatMap(
      (p) =>
        (p.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] })
          .Statement,
    );
    const onQueue = statements.filter((s) => JSON.stringify(s.Resource).includes(`"${queue}"`));
    const actions = onQueue
      .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]))
      .sort();
    assert.deepEqual(
      [...new Set(actions)],
      [
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
      ],
    );
    const variables = (
      ofType('AWS::Lambda::Function')[0]?.Properties.Environment as
        | { Variables: Record<string, unknown> }
        | undefined
    )?.Variables;
    assert.match(JSON.stringify(variables?.DISPATCH_QUEUE_URL), new RegExp(queue));
  });

  test("every stack stays within CloudFormation's limits", (t) => {
    const counts = templates.map((tpl) => Object.keys(tpl.Resources).length);
    for (const template of templates) {
      assert.ok(Object.keys(template.Resources).length <= 500, 'resources per stack ≤ 500');
      assert.ok(Object.keys(template.Outputs ?? {}).length <= 200, 'outputs per stack ≤ 200');
      assert.ok(Object.keys(template.Parameters ?? {}).length <= 200, 'parameters ≤ 200');
      assert.ok(Buffer.byteLength(JSON.stringify(template)) < 1_000_000, 'template < 1 MB');
    }
    t.diagnostic(
      `resources: ${counts[0]} in the parent stack, ${counts.slice(1).reduce((a, b) => a + b, 0)} in ${counts.length - 1} nested stacks (the access entries), ${all.length} in all`,
    );
    assert.ok(all.length < FLEET, 'fewer resources than clusters');
  });

  test("the function role holds every cluster's access within IAM's counts", (t) => {
    const managed = ofType('AWS::IAM::ManagedPolicy');
    t.diagnostic(`${managed.length} managed policies`);
    assert.ok(managed.length <= 10, `${managed.length} managed policies: a role takes 10`);
    const statements = [...ofType('AWS::IAM::Policy'), ...managed].flatMap(
      (p) =>
        (p.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] })
          .Statement,
    );
    const describe = statements.filter((st) => st.Action === 'eks:DescribeCluster');
    assert.deepEqual(
      describe.map((st) => JSON.stringify(st.Resource)),
      [
        JSON.stringify({
          'Fn::Join': [
            '',
            ['arn:', { Ref: 'AWS::Partition' }, ':eks:eu-west-1:123456789012:cluster/*'],
          ],
        }),
      ],
    );
    const assumed = statements.filter((st) => st.Action === 'sts:AssumeRole');
    assert.equal(assumed.flatMap((st) => st.Resource as string[]).length, 20);
    // 600 secrets: the prefix in each region they are in, and the 20 named otherwise one by one.
    const secrets = statements
      .filter((st) => st.Action === 'secretsmanager:GetSecretValue')
      .flatMap((st) => (Array.isArray(st.Resource) ? st.Resource : [st.Resource]))
      .map((r) => JSON.stringify(r).replaceAll('{"Ref":"AWS::Partition"}', '"aws"'));
    const wildcards = secrets.filter((r) => r.includes('*'));
    assert.deepEqual(wildcards.sort(), [
      `"${OTHER_REGION_SECRETS}*"`,
      JSON.stringify({
        'Fn::Join': [
          '',
          ['arn:', 'aws', `:secretsmanager:eu-west-1:123456789012:secret:${PREFIX}*`],
        ],
      }),
    ]);
    const oneByOne = secrets.filter((r) => !r.includes('*'));
    assert.equal(oneByOne.length, 20);
    for (const r of oneByOne) assert.match(r, /secret:kube\/fleet-\d{4}-\?{6}/);
  });

  test("cdk-nag's AwsSolutions pack finds nothing unacknowledged", () => {
    const report = new AwsSolutionsChecks().validateScope(app);
    const findings = report.violations.flatMap((v) =>
      v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath ?? '?'}`),
    );
    assert.deepEqual(findings, []);
  });

  test('secrets the role could not hold one by one are refused at synth, with the fix', () => {
    // A bare stack and role: the grant alone, no second synth of the fleet.
    const stack = new Stack(new App(), 'Grants', {
      env: { account: '123456789012', region: 'eu-west-1' },
    });
    const role = new iam.Role(stack, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    const secrets = (count: number) =>
      Array.from({ length: count }, (_, i) => {
        const auth = {
          mode: 'token',
          server: 'https://k.example.com',
          tokenSecretId: `kube/c${i}`,
        };
        return { name: `c${i}`, auth, accessEntry: false } as unknown as DeployedCluster;
      });
    assert.throws(
      () => grantFleetAccess(role, secrets(MOST_SECRETS_ONE_BY_ONE + 1), () => stack),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(
          error.message,
          `clusters: ${MOST_SECRETS_ONE_BY_ONE + 1} secret ARNs of token/kubeconfig clusters would be granted one by one, and the function's role holds at most ${MOST_SECRETS_ONE_BY_ONE}: name the secrets lease-watchdog/Grants/<anything> (read by one grant, docs/FLEET.md)`,
        );
        return true;
      },
    );
  });

  test("two deployments in one account and region (staging beside prod): neither reads the other's fleet secrets", () => {
    const fleet = (stackName: string) => {
      const stack = new Stack(new App(), stackName, {
        env: { account: '123456789012', region: 'eu-west-1' },
      });
      const role = new iam.Role(stack, 'Role', {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      });
      const clusters = ['a', 'b'].map((name) => {
        const auth = {
          mode: 'token',
          server: 'https://k.example.com',
          tokenSecretId: `${FLEET_SECRETS_PREFIX}${stackName}/${name}`,
        };
        return { name, auth, accessEntry: false } as unknown as DeployedCluster;
      });
      // One of the other deployment's secrets named here too: granted by its own ARN, not its prefix.
      const other = stackName === 'Prod' ? 'Staging' : 'Prod';
      const borrowed = {
        name: 'shared',
        auth: {
          mode: 'token',
          server: 'https://k.example.com',
          tokenSecretId: `${FLEET_SECRETS_PREFIX}${other}/shared`,
        },
        accessEntry: false,
      } as unknown as DeployedCluster;
      grantFleetAccess(role, [...clusters, borrowed], () => stack);
      const template = Template.fromStack(stack);
      const policies = Object.values(template.findResources('AWS::IAM::Policy'));
      return (
        policies
          .flatMap(
            (p) => p.Properties.PolicyDocument.Statement as { Action: string; Resource: unknown }[],
          )
          .filter((st) => st.Action === 'secretsmanager:GetSecretValue')
          .flatMap((st) => (Array.isArray(st.Resource) ? st.Resource : [st.Resource]))
          // `arn:${Partition}:…` as its Fn::Join, read as `arn:aws:…`.
          .map((r: string | { 'Fn::Join': [string, unknown[]] }) =>
            typeof r === 'string'
              ? r
              : r['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : 'aws')).join(''),
          )
          .sort()
      );
    };
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:lease-watchdog';
    assert.deepEqual(fleet('Prod'), [`${arn}/Prod/*`, `${arn}/Staging/shared-??????`]);
    assert.deepEqual(fleet('Staging'), [`${arn}/Prod/shared-??????`, `${arn}/Staging/*`]);
  });
});
