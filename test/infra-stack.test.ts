/**
 * The stack's intent, asserted on the synthesized template (bundling skipped: see
 * infra-bundle.test.ts for the one real bundle), plus cdk-nag's AwsSolutions pack.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

import { buildStack, type LeaseWatchdogStack } from '../infra/stack.js';
import { STATE_TABLE_ACTIONS } from '../infra/state-table.js';
import {
  CLUSTER_FILE,
  ConfigError,
  functionSettingsOf,
  loadRuntimeConfig,
  parseAppConfig,
  parseWatchdogSettings,
  watchdogSettingsOf,
} from '../lambda/settings/index.js';

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const eks = { name: 'prod-eu', auth: { mode: 'eks', clusterName: 'prod-eu-eks', region: REGION } };
const token = {
  name: 'edge-lab',
  auth: {
    mode: 'token',
    server: 'https://k8s.example.com:6443',
    tokenSecretId: 'lease-watchdog/edge-lab',
  },
};
const secretArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:kube/onprem';
const kubeconfig = { name: 'onprem', auth: { mode: 'kubeconfig', secretId: secretArn } };
const base = { clusters: [eks, token], emails: ['oncall@example.com', 'platform@example.com'] };

interface Synth {
  app: App;
  stack: LeaseWatchdogStack;
  template: Template;
  /** Logical id of a construct's CloudFormation resource. */
  id(construct: IConstruct): string;
}

function synth(
  input: object,
  env: { account?: string; region?: string } = { account: ACCOUNT, region: REGION },
): Synth {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = buildStack(app, parseAppConfig({ ...input, ...env }));
  const template = Template.fromStack(stack);
  const id = (construct: IConstruct): string => {
    const element = (construct.node.defaultChild ?? construct) as CfnElement;
    return stack.resolve(element.logicalId) as string;
  };
  return { app, stack, template, id };
}

/** Flattens CloudFormation intrinsics into readable strings: `${Logical.Arn}`, `${Logical}`, `aws`. */
function flat(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(flat);
  if (typeof value !== 'object' || value === null) return value;
  const obj = value as Record<string, unknown>;
  if ('Ref' in obj) return obj.Ref === 'AWS::Partition' ? 'aws' : `\${${String(obj.Ref)}}`;
  if ('Fn::GetAtt' in obj) return `\${${(obj['Fn::GetAtt'] as string[]).join('.')}}`;
  if ('Fn::Join' in obj) {
    const [sep, parts] = obj['Fn::Join'] as [string, unknown[]];
    return parts.map((p) => String(flat(p))).join(sep);
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, flat(v)]));
}

type Statement = {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
};

/** The statements of the IAM policy attached to a role. */
function statementsOf(s: Synth, roleLogicalId: string): Statement[] {
  const policies = Object.values(s.template.findResources('AWS::IAM::Policy')).filter((p) =>
    (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleLogicalId),
  );
  assert.equal(policies.length, 1, `one policy for ${roleLogicalId}`);
  return flat(policies[0]?.Properties.PolicyDocument.Statement) as Statement[];
}

function nagFindings(app: App): string[] {
  const report = new AwsSolutionsChecks().validateScope(app);
  return report.violations.flatMap((v) =>
    v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath ?? '?'}`),
  );
}

/** The three kinds of cluster, synthesized once for most tests below, and its logical ids. */
let main: Synth;
let fn: string;
let role: string;
let topic: string;
let key: string;
let table: string;
let logGroup: string;
let dlq: string;
let schedulerRole: string;
/** The base configuration without account and region (an environment-agnostic stack). */
let unplaced: Synth;

describe('the stack', () => {
  before(() => {
    main = synth({ ...base, clusters: [eks, token, kubeconfig], dashboard: true });
    fn = main.id(main.stack.watchdog.function);
    role = main.id(main.stack.watchdog.role);
    topic = main.id(main.stack.watchdog.topic);
    key = main.id(main.stack.watchdog.topicKey!);
    table = main.id(main.stack.watchdog.table);
    logGroup = main.id(main.stack.watchdog.logGroup);
    dlq = main.id(main.stack.watchdog.deadLetterQueue);
    schedulerRole = main.id(main.stack.watchdog.schedulerRole);
    unplaced = synth(base, {});
  });

  describe('the function', () => {
    test('runs Node 24 on ARM64 with explicit memory, timeout, concurrency cap, tracing and its log group', () => {
      main.template.resourceCountIs('AWS::Lambda::Function', 1);
      main.template.hasResourceProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 512,
        Timeout: 60,
        ReservedConcurrentExecutions: 7, // 3 clusters × 2 + 1
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: logGroup } },
        Role: { 'Fn::GetAtt': [role, 'Arn'] },
      });
      main.template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
      main.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: fn },
        MaximumRetryAttempts: 0,
        MaximumEventAgeInSeconds: 60,
      });
    });

    test('memoryMb sizes the function for large clusters', () => {
      const large = synth({ ...base, memoryMb: 1536 });
      large.template.hasResourceProperties('AWS::Lambda::Function', {
        MemorySize: 1536,
        // The old space follows the memory as Lambda's runtime would size it; the semi-space stays.
        Environment: {
          Variables: Match.objectLike({
            NODE_OPTIONS: '--max-semi-space-size=8 --max-old-space-size=1383',
          }),
        },
      });
    });

    test('largestClusterNodes sizes the function when memoryMb is not set', () => {
      const sized = synth({ ...base, largestClusterNodes: 150_000 });
      sized.template.hasResourceProperties('AWS::Lambda::Function', { MemorySize: 640 });
    });

    test('its environment is what loadRuntimeConfig reads at cold start', () => {
      const props = main.template.findResources('AWS::Lambda::Function')[fn]?.Properties;
      const vars = props.Environment.Variables as Record<string, unknown>;
      assert.deepEqual(Object.keys(vars).sort(), [
        'GLIBC_TUNABLES',
        'LEASE_WATCHDOG_SETTINGS',
        'NODE_OPTIONS',
        'POWERTOOLS_METRICS_NAMESPACE',
        'POWERTOOLS_SERVICE_NAME',
        'RECHECK_QUEUE_URL',
        'STATE_TABLE',
        'TOPIC_ARN',
      ]);
      assert.deepEqual(vars.RECHECK_QUEUE_URL, { Ref: 'WatchdogRecheckQueue2F3EC50C' });
      assert.equal(vars.POWERTOOLS_SERVICE_NAME, 'lease-watchdog');
      assert.equal(vars.POWERTOOLS_METRICS_NAMESPACE, 'LeaseWatchdog');
      assert.deepEqual(vars.TOPIC_ARN, { Ref: topic });
      assert.deepEqual(vars.STATE_TABLE, { Ref: table });
      // Both heap sizes, so that Lambda's runtime leaves them as set; what `npm run bench` runs with.
      assert.equal(vars.NODE_OPTIONS, '--max-semi-space-size=8 --max-old-space-size=461');
      // glibc's malloc with a fixed mmap threshold (function-memory.ts), as `npm run bench` runs.
      assert.equal(
        vars.GLIBC_TUNABLES,
        'glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072',
      );
      // The clusters are in the function's code (infra-fleet.test.ts reads them from the bundle).
      assert.equal('clusters' in JSON.parse(vars.LEASE_WATCHDOG_SETTINGS as string), false);
      const { clusterFile } = functionSettingsOf(watchdogSettingsOf(main.stack.watchdog.config));
      const runtime = loadRuntimeConfig(
        {
          LEASE_WATCHDOG_SETTINGS: vars.LEASE_WATCHDOG_SETTINGS as string,
          TOPIC_ARN: `arn:aws:sns:${REGION}:${ACCOUNT}:topic`,
          STATE_TABLE: 'state',
        },
        { path: CLUSTER_FILE, read: () => clusterFile },
      );
      assert.deepEqual(
        runtime.settings,
        parseWatchdogSettings({ clusters: [eks, token, kubeconfig] }),
      );
    });
  });

  describe('the schedules', () => {
    test('one schedule per cluster, every minute, invoking the one function with the cluster named', () => {
      const two = synth(base);
      two.template.resourceCountIs('AWS::Lambda::Function', 1);
      const schedules = Object.values(two.template.findResources('AWS::Scheduler::Schedule'));
      assert.equal(schedules.length, 2);
      const targetFn = two.id(two.stack.watchdog.function);
      const inputs = schedules.map((s) => {
        const p = s.Properties;
        assert.equal(p.ScheduleExpression, 'rate(1 minute)');
        assert.equal(p.State, 'ENABLED');
        assert.deepEqual(p.FlexibleTimeWindow, { Mode: 'OFF' });
        assert.deepEqual(p.Target.Arn, { 'Fn::GetAtt': [targetFn, 'Arn'] });
        assert.deepEqual(p.Target.RoleArn, {
          'Fn::GetAtt': [two.id(two.stack.watchdog.schedulerRole), 'Arn'],
        });
        assert.deepEqual(p.Target.RetryPolicy, {
          MaximumEventAgeInSeconds: 120,
          MaximumRetryAttempts: 2,
        });
        assert.deepEqual(p.Target.DeadLetterConfig, {
          Arn: { 'Fn::GetAtt': [two.id(two.stack.watchdog.deadLetterQueue), 'Arn'] },
        });
        return JSON.parse(p.Target.Input as string);
      });
      assert.deepEqual(
        inputs.sort((a, b) => a.cluster.localeCompare(b.cluster)),
        [{ cluster: 'edge-lab' }, { cluster: 'prod-eu' }],
      );
    });

    test('scheduleMinutes sets the rate (plural) and the dead-man period', () => {
      const slow = synth({ ...base, scheduleMinutes: 5 });
      const schedules = Object.values(slow.template.findResources('AWS::Scheduler::Schedule'));
      assert.deepEqual(
        schedules.map((s) => s.Properties.ScheduleExpression),
        ['rate(5 minutes)', 'rate(5 minutes)'],
      );
      slow.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'CheckSucceeded',
        Period: 300,
        EvaluationPeriods: 3,
      });
    });

    test('the dead-letter queue is encrypted and SSL-only', () => {
      main.template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
      main.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: dlq }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    });
  });

  describe('IAM: every statement, actions and resources', () => {
    test('the function role may write its logs, trace, publish, keep state and read the configured clusters only', () => {
      const partialSecret =
        'arn:aws:secretsmanager:eu-west-1:123456789012:secret:lease-watchdog/edge-lab-??????';
      assert.deepEqual(statementsOf(main, role), [
        {
          Sid: 'WriteOwnLogs',
          Effect: 'Allow',
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: `\${${logGroup}.Arn}`,
        },
        {
          Effect: 'Allow',
          Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
          Resource: '*',
        },
        // EC2 evidence of a FIRING: read-only, and neither action supports resource-level permissions.
        {
          Sid: 'ReadInstanceEvidence',
          Effect: 'Allow',
          Action: ['ec2:DescribeInstanceStatus', 'ec2:DescribeInstances'],
          Resource: '*',
        },
        {
          Sid: 'PublishNotifications',
          Effect: 'Allow',
          Action: 'sns:Publish',
          Resource: `\${${topic}}`,
        },
        {
          Sid: 'EncryptNotifications',
          Effect: 'Allow',
          Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
          Resource: `\${${key}.Arn}`,
          Condition: { StringEquals: { 'kms:EncryptionContext:aws:sns:topicArn': `\${${topic}}` } },
        },
        {
          Sid: 'CountConfirmedSubscriptions',
          Effect: 'Allow',
          Action: 'sns:ListSubscriptionsByTopic',
          Resource: `\${${topic}}`,
        },
        {
          Sid: 'ReadWriteStateTable',
          Effect: 'Allow',
          Action: [
            'dynamodb:GetItem',
            'dynamodb:Query',
            'dynamodb:PutItem',
            'dynamodb:BatchWriteItem',
            'dynamodb:UpdateItem',
          ],
          Resource: `\${${table}.Arn}`,
        },
        {
          Sid: 'Cluster0DescribeEksCluster',
          Effect: 'Allow',
          Action: 'eks:DescribeCluster',
          Resource: 'arn:aws:eks:eu-west-1:123456789012:cluster/prod-eu-eks',
        },
        {
          Sid: 'Cluster1ReadSecret',
          Effect: 'Allow',
          Action: 'secretsmanager:GetSecretValue',
          Resource: partialSecret,
        },
        {
          Sid: 'Cluster2ReadSecret',
          Effect: 'Allow',
          Action: 'secretsmanager:GetSecretValue',
          Resource: [secretArn, `${secretArn}-??????`],
        },
        // The watchdog's own looks: the event source mapping receives them, the function sends them.
        {
          Effect: 'Allow',
          Action: [
            'sqs:ReceiveMessage',
            'sqs:ChangeMessageVisibility',
            'sqs:GetQueueUrl',
            'sqs:DeleteMessage',
            'sqs:GetQueueAttributes',
          ],
          Resource: `\${WatchdogRecheckQueue2F3EC50C.Arn}`,
        },
        {
          Effect: 'Allow',
          Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
          Resource: `\${WatchdogRecheckQueue2F3EC50C.Arn}`,
        },
      ]);
    });

    test("the watchdog's own looks: an encrypted queue with a dead-letter queue, mapped to the function", () => {
      main.template.hasResourceProperties('AWS::SQS::Queue', {
        SqsManagedSseEnabled: true,
        VisibilityTimeout: 6 * 60,
        MessageRetentionPeriod: 3600,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': ['WatchdogRecheckDeadLetterQueueDC8F2D36', 'Arn'] },
          maxReceiveCount: 3,
        },
      });
      main.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
      main.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': ['WatchdogRecheckQueue2F3EC50C', 'Arn'] },
        FunctionName: { Ref: fn },
        BatchSize: 5,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    });

    test('the scheduler role may invoke the function (unqualified) and dead-letter only', () => {
      assert.deepEqual(statementsOf(main, schedulerRole), [
        { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: `\${${fn}.Arn}` },
        { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: `\${${dlq}.Arn}` },
      ]);
      main.template.hasResourceProperties('AWS::IAM::Role', {
        AssumeRolePolicyDocument: {
          Statement: [
            Match.objectLike({
              Principal: { Service: 'scheduler.amazonaws.com' },
              Condition: { StringEquals: Match.objectLike({ 'aws:SourceAccount': ACCOUNT }) },
            }),
          ],
        },
      });
    });

    test('no "*" resource anywhere except the X-Ray and EC2 evidence statements; no managed policies', () => {
      const wildcards: unknown[] = [];
      for (const policy of Object.values(main.template.findResources('AWS::IAM::Policy'))) {
        for (const statement of policy.Properties.PolicyDocument.Statement as Statement[]) {
          const resources = [flat(statement.Resource)].flat();
          if (resources.some((r) => String(r).includes('*'))) wildcards.push(statement.Action);
        }
      }
      assert.deepEqual(wildcards, [
        ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
        ['ec2:DescribeInstanceStatus', 'ec2:DescribeInstances'],
      ]);
      for (const r of Object.values(main.template.findResources('AWS::IAM::Role'))) {
        assert.equal(r.Properties.ManagedPolicyArns, undefined);
        assert.equal(r.Properties.Policies, undefined);
      }
    });
  });

  describe('the topic', () => {
    test('is encrypted with a rotating customer-managed key, SSL-only, and emails the configured addresses', () => {
      main.template.resourceCountIs('AWS::SNS::Topic', 1);
      main.template.hasResourceProperties('AWS::SNS::Topic', {
        KmsMasterKeyId: { 'Fn::GetAtt': [key, 'Arn'] },
      });
      main.template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
      main.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        Topics: [{ Ref: topic }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            {
              Sid: 'AllowPublishThroughSSLOnly',
              Effect: 'Deny',
              Principal: '*',
              Action: 'sns:Publish',
              Resource: { Ref: topic },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            },
          ]),
        },
      });
      const subscriptions = Object.values(
        main.template.findResources('AWS::SNS::Subscription'),
      ).map((s) => [s.Properties.Protocol, s.Properties.Endpoint, s.Properties.TopicArn]);
      assert.deepEqual(subscriptions, [
        ['email', 'oncall@example.com', { Ref: topic }],
        ['email', 'platform@example.com', { Ref: topic }],
      ]);
    });

    test('lets CloudWatch alarms use the key and publish (the topic policy replaces the default one)', () => {
      const keyPolicy =
        main.template.findResources('AWS::KMS::Key')[key]?.Properties.KeyPolicy.Statement;
      assert.ok(
        keyPolicy.some(
          (s: Statement & { Principal: unknown }) =>
            JSON.stringify(s.Principal) ===
              JSON.stringify({ Service: 'cloudwatch.amazonaws.com' }) &&
            JSON.stringify(s.Action) === JSON.stringify(['kms:Decrypt', 'kms:GenerateDataKey*']),
        ),
      );
      const forCloudWatch = keyPolicy.filter(
        (s: Statement & { Principal: unknown }) =>
          JSON.stringify(s.Principal) === JSON.stringify({ Service: 'cloudwatch.amazonaws.com' }),
      );
      assert.equal(forCloudWatch.length, 1);
      assert.deepEqual(flat(forCloudWatch[0].Condition), {
        StringEquals: { 'aws:SourceAccount': ACCOUNT },
        ArnLike: { 'aws:SourceArn': `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:*` },
      });
      const alarms = Object.keys(main.template.findResources('AWS::CloudWatch::Alarm'));
      assert.equal(
        alarms.length,
        9,
        'errors, throttles, dead letters, parked looks, looks stopped, abandoned notifications, and one per cluster',
      );
      main.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            {
              Sid: 'AllowTheseAlarmsToPublish',
              Effect: 'Allow',
              Principal: { Service: 'cloudwatch.amazonaws.com' },
              Action: 'sns:Publish',
              Resource: { Ref: topic },
              Condition: {
                ArnLike: { 'aws:SourceArn': alarms.map((a) => ({ 'Fn::GetAtt': [a, 'Arn'] })) },
              },
            },
          ]),
        },
      });
    });

    test('existingTopicArn: no topic or key is created; everything publishes to that ARN', () => {
      const existing = 'arn:aws:sns:eu-west-1:123456789012:team-alerts';
      const s = synth({ clusters: [eks], existingTopicArn: existing });
      s.template.resourceCountIs('AWS::SNS::Topic', 0);
      s.template.resourceCountIs('AWS::KMS::Key', 0);
      s.template.resourceCountIs('AWS::SNS::Subscription', 0);
      s.template.resourceCountIs('AWS::SNS::TopicPolicy', 0);
      s.template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: Match.objectLike({ TOPIC_ARN: existing }) },
      });
      const statements = statementsOf(s, s.id(s.stack.watchdog.role));
      assert.deepEqual(
        statements.filter((st) =>
          [st.Action].flat().some((a) => a.startsWith('sns:') || a.startsWith('kms:')),
        ),
        [
          {
            Sid: 'PublishNotifications',
            Effect: 'Allow',
            Action: 'sns:Publish',
            Resource: existing,
          },
          {
            Sid: 'CountConfirmedSubscriptions',
            Effect: 'Allow',
            Action: 'sns:ListSubscriptionsByTopic',
            Resource: existing,
          },
        ],
      );
      for (const alarm of Object.values(s.template.findResources('AWS::CloudWatch::Alarm'))) {
        assert.deepEqual(alarm.Properties.AlarmActions, [existing]);
      }
      assert.deepEqual(nagFindings(s.app), []);
    });
  });

  describe('a second delivery path for the alarms (one unsubscribe cannot end all alerting)', () => {
    const ops = 'arn:aws:sns:eu-west-1:123456789012:ops-pager';
    let withPaths: Synth;
    let ids: string[];
    let mainTopic: string;
    let alarmTopic: string;
    before(() => {
      withPaths = synth({ ...base, alarmEmails: ['ops@example.com'], alarmTopicArn: ops });
      ids = Object.keys(withPaths.template.findResources('AWS::SNS::Topic'));
      mainTopic = withPaths.id(withPaths.stack.watchdog.topic as unknown as IConstruct);
      alarmTopic = ids.find((id) => id !== mainTopic) as string;
    });
    const alarmsOf = (s: Synth) =>
      Object.entries(s.template.findResources('AWS::CloudWatch::Alarm')).map(([id, a]) => ({
        id,
        ...(a.Properties as {
          MetricName: string;
          AlarmActions: unknown[];
          OKActions: unknown[];
          [key: string]: unknown;
        }),
      }));

    test('alarmEmails: a separate topic with its own rotating key, SSL-only, with those addresses', () => {
      assert.equal(ids.length, 2);
      withPaths.template.resourceCountIs('AWS::KMS::Key', 2);
      const topics = withPaths.template.findResources('AWS::SNS::Topic');
      const keyOf = (id: string) => topics[id]?.Properties.KmsMasterKeyId['Fn::GetAtt'][0];
      assert.notEqual(keyOf(alarmTopic), keyOf(mainTopic), 'one key each');
      withPaths.template.hasResourceProperties('AWS::KMS::Key', {
        Description: "lease-watchdog: encrypts the topic of the watchdog's own alarms",
        EnableKeyRotation: true,
      });
      const subscriptions = Object.values(
        withPaths.template.findResources('AWS::SNS::Subscription'),
      ).map((sub) => [sub.Properties.Endpoint, sub.Properties.TopicArn]);
      assert.deepEqual(subscriptions, [
        ['oncall@example.com', { Ref: mainTopic }],
        ['platform@example.com', { Ref: mainTopic }],
        ['ops@example.com', { Ref: alarmTopic }],
      ]);
      const policies = Object.values(withPaths.template.findResources('AWS::SNS::TopicPolicy'));
      assert.ok(
        policies.some(
          (p) =>
            JSON.stringify(p.Properties.Topics) === JSON.stringify([{ Ref: alarmTopic }]) &&
            p.Properties.PolicyDocument.Statement.some(
              (st: { Sid?: string }) => st.Sid === 'AllowTheseAlarmsToPublish',
            ),
        ),
        'the alarms may publish to the alarm topic',
      );
    });

    test('every alarm notifies the notification topic as well as both alarm paths', () => {
      const all = alarmsOf(withPaths).filter((a) => a.MetricName !== 'ConfirmedSubscriptions');
      assert.equal(
        all.length,
        8,
        'errors, throttles, dead letters, parked looks, looks stopped, abandoned, one per cluster',
      );
      for (const a of all) {
        const to = [{ Ref: mainTopic }, { Ref: alarmTopic }, ops];
        assert.deepEqual(a.AlarmActions, to, a.id);
        assert.deepEqual(a.OKActions, to, a.id);
      }
    });

    test('no confirmed subscription on the notification topic: an alarm on the alarm paths only', () => {
      const [alarm, ...more] = alarmsOf(withPaths).filter(
        (a) => a.MetricName === 'ConfirmedSubscriptions',
      );
      assert.equal(more.length, 0);
      assert.deepEqual(
        { ...alarm, id: undefined, AlarmDescription: undefined },
        {
          id: undefined,
          AlarmDescription: undefined,
          AlarmName: `${withPaths.stack.stackName}-NoConfirmedSubscription`,
          AlarmActions: [{ Ref: alarmTopic }, ops],
          OKActions: [{ Ref: alarmTopic }, ops],
          Namespace: 'LeaseWatchdog',
          MetricName: 'ConfirmedSubscriptions',
          Dimensions: [{ Name: 'service', Value: 'lease-watchdog' }],
          Statistic: 'Maximum',
          Period: 60,
          EvaluationPeriods: 1,
          Threshold: 1,
          ComparisonOperator: 'LessThanThreshold',
          TreatMissingData: 'notBreaching',
        },
      );
    });

    test('alarmTopicArn alone: alarms notify that topic too; nothing else is created', () => {
      const s = synth({ ...base, alarmTopicArn: ops });
      s.template.resourceCountIs('AWS::SNS::Topic', 1);
      const topic = s.id(s.stack.watchdog.topic as unknown as IConstruct);
      for (const a of alarmsOf(s)) {
        const to = a.MetricName === 'ConfirmedSubscriptions' ? [ops] : [{ Ref: topic }, ops];
        assert.deepEqual(a.AlarmActions, to, a.id);
      }
      assert.deepEqual(nagFindings(s.app), []);
    });

    test('without a second path: no alarm topic and no subscription alarm', () => {
      main.template.resourceCountIs('AWS::SNS::Topic', 1);
      assert.ok(alarmsOf(main).every((a) => a.MetricName !== 'ConfirmedSubscriptions'));
    });

    test('cdk-nag finds nothing with both paths', () => {
      assert.deepEqual(nagFindings(withPaths.app), []);
    });

    test('alarmEmails are checked like emails', () => {
      assert.throws(() => synth({ ...base, alarmEmails: ['ops@example.com', 'OPS@example.com'] }), {
        message: 'alarmEmails[1] "OPS@example.com" is listed twice; remove the duplicate',
      });
    });
  });

  describe('the state table', () => {
    test('pk/sk strings, on demand, point-in-time recovery, TTL on expiresAt, encrypted', () => {
      main.template.resourceCountIs('AWS::DynamoDB::Table', 1);
      main.template.hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        // The AWS-managed key (aws/dynamodb).
        SSESpecification: { SSEEnabled: true },
      });
    });

    test('deletion protection on, and the stack keeps the table when it is deleted (RETAIN)', () => {
      main.template.hasResource('AWS::DynamoDB::Table', {
        Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
    });

    test("the state table's adapters use exactly the actions granted (no DeleteItem)", () => {
      const folder = new URL('../lambda/adapters/state/dynamodb/', import.meta.url);
      const store = readdirSync(folder)
        .map((file) => readFileSync(new URL(file, folder), 'utf8'))
        .join('\n');
      const used = [...store.matchAll(/new (\w+)Command\(/g)].map((m) => `dynamodb:${m[1]}`);
      assert.deepEqual([...new Set(used)].sort(), [...STATE_TABLE_ACTIONS].sort());
    });
  });

  describe('the alarms', () => {
    const alarmProperties = (s: Synth) =>
      Object.values(s.template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    let alarms: ReturnType<typeof alarmProperties>;
    let toTopic: { AlarmActions: { Ref: string }[]; OKActions: { Ref: string }[] };
    before(() => {
      alarms = alarmProperties(main);
      toTopic = { AlarmActions: [{ Ref: topic }], OKActions: [{ Ref: topic }] };
    });
    const find = (metricName: string, cluster?: string) => {
      const found = alarms.filter(
        (a) =>
          a.MetricName === metricName &&
          (cluster === undefined ||
            (a.Dimensions as { Name: string; Value: string }[]).some(
              (d) => d.Name === 'cluster' && d.Value === cluster,
            )),
      );
      assert.equal(found.length, 1, `one ${metricName} alarm ${cluster ?? ''}`);
      return found[0];
    };

    test('function errors ≥ 1 and throttles ≥ 1 notify the topic', () => {
      for (const metric of ['Errors', 'Throttles']) {
        assert.deepEqual(
          { ...find(metric), AlarmDescription: undefined },
          {
            ...toTopic,
            AlarmDescription: undefined,
            AlarmName: `${main.stack.stackName}-${metric}Alarm`,
            Namespace: 'AWS/Lambda',
            MetricName: metric,
            Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
            Statistic: 'Sum',
            Period: 60,
            EvaluationPeriods: 1,
            Threshold: 1,
            ComparisonOperator: 'GreaterThanOrEqualToThreshold',
            TreatMissingData: 'notBreaching',
          },
        );
      }
    });

    test('each NEW message in the dead-letter queue notifies the topic (not the messages kept 14 days)', () => {
      assert.deepEqual(
        { ...find('NumberOfMessagesSent'), AlarmDescription: undefined },
        {
          ...toTopic,
          AlarmDescription: undefined,
          AlarmName: `${main.stack.stackName}-DeadLetterAlarm`,
          Namespace: 'AWS/SQS',
          MetricName: 'NumberOfMessagesSent',
          Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
          Statistic: 'Sum',
          Period: 300,
          EvaluationPeriods: 1,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
        },
      );
      assert.ok(
        alarms.every((a) => a.MetricName !== 'ApproximateNumberOfMessagesVisible'),
        'no alarm on the messages present: it would stay in ALARM for 14 days',
      );
    });

    test('each look newly parked in the re-check dead-letter queue notifies the topic (SQS moves it there: NumberOfMessagesSent does not count it)', () => {
      const parked = main.id(main.stack.watchdog.recheckQueue.deadLetterQueue);
      const onParked = alarms.filter((a) => JSON.stringify(a).includes(`"${parked}"`));
      assert.equal(onParked.length, 1, 'one alarm on the re-check dead-letter queue');
      assert.match(onParked[0]?.AlarmDescription, /re-check dead-letter queue/);
      assert.deepEqual(
        { ...onParked[0], AlarmDescription: undefined },
        {
          ...toTopic,
          AlarmDescription: undefined,
          AlarmName: `${main.stack.stackName}-RecheckDeadLetterAlarm`,
          Metrics: [
            {
              Expression: 'DIFF(FILL(parked, 0))',
              Id: 'expr_1',
              Label: 'looks newly parked in the re-check dead-letter queue',
              ReturnData: true,
            },
            {
              Id: 'parked',
              MetricStat: {
                Metric: {
                  Dimensions: [
                    { Name: 'QueueName', Value: { 'Fn::GetAtt': [parked, 'QueueName'] } },
                  ],
                  MetricName: 'ApproximateNumberOfMessagesVisible',
                  Namespace: 'AWS/SQS',
                },
                Period: 300,
                Stat: 'Maximum',
              },
              ReturnData: false,
            },
          ],
          EvaluationPeriods: 1,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
        },
      );
      const widgets = JSON.stringify(main.template.findResources('AWS::CloudWatch::Dashboard'));
      const alarmId = Object.entries(main.template.findResources('AWS::CloudWatch::Alarm')).find(
        ([, a]) => JSON.stringify(a).includes(`"${parked}"`),
      )?.[0];
      assert.ok(alarmId !== undefined && widgets.includes(`"${alarmId}"`), 'on the dashboard');
    });

    test("the looks' own switch: no look deleted from the look queue for 3 periods of 5 minutes, missing data breaching", () => {
      const alarm = find('NumberOfMessagesDeleted');
      assert.match(alarm.AlarmDescription, /schedule alone/);
      const queues = Object.keys(main.template.findResources('AWS::SQS::Queue'));
      const looks = queues.find((id) => id.startsWith('WatchdogRecheckQueue'));
      assert.ok(looks !== undefined, `the look queue among ${queues.join(', ')}`);
      assert.deepEqual(
        { ...alarm, AlarmDescription: undefined },
        {
          ...toTopic,
          AlarmDescription: undefined,
          AlarmName: `${main.stack.stackName}-LooksStoppedAlarm`,
          // SQS's own metric (free), not a custom one ($0.30 a month).
          Namespace: 'AWS/SQS',
          MetricName: 'NumberOfMessagesDeleted',
          Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [looks, 'QueueName'] } }],
          Statistic: 'Sum',
          Period: 300,
          EvaluationPeriods: 3,
          Threshold: 1,
          ComparisonOperator: 'LessThanThreshold',
          TreatMissingData: 'breaching',
        },
      );
    });

    test("per cluster, a dead-man's switch: no CheckSucceeded for 3 periods, missing data breaching", () => {
      for (const cluster of ['prod-eu', 'edge-lab', 'onprem']) {
        const alarm = find('CheckSucceeded', cluster);
        assert.match(
          alarm.AlarmDescription,
          new RegExp(`cluster ${cluster} for 3 schedule periods`),
        );
        assert.deepEqual(
          { ...alarm, AlarmDescription: undefined },
          {
            ...toTopic,
            AlarmDescription: undefined,
            AlarmName: `${main.stack.stackName}-NoSuccessfulCheck-${cluster}`,
            Namespace: 'LeaseWatchdog',
            MetricName: 'CheckSucceeded',
            Dimensions: [
              { Name: 'cluster', Value: cluster },
              { Name: 'service', Value: 'lease-watchdog' },
            ],
            Statistic: 'Sum',
            Period: 60,
            EvaluationPeriods: 3,
            Threshold: 1,
            ComparisonOperator: 'LessThanThreshold',
            TreatMissingData: 'breaching',
          },
        );
      }
    });
    test('every alarm has the name docs/OPERATE.md gives it, prefixed with the stack name', () => {
      const names = alarms.map((a) => a.AlarmName as string).sort();
      assert.deepEqual(
        names,
        [
          'DeadLetterAlarm',
          'ErrorsAlarm',
          'LooksStoppedAlarm',
          'NoSuccessfulCheck-edge-lab',
          'NoSuccessfulCheck-onprem',
          'NoSuccessfulCheck-prod-eu',
          'NotificationsAbandonedAlarm',
          'RecheckDeadLetterAlarm',
          'ThrottlesAlarm',
        ].map((name) => `${main.stack.stackName}-${name}`),
      );
      const operate = readFileSync(new URL('../docs/OPERATE.md', import.meta.url), 'utf8');
      const table = operate.slice(operate.indexOf('| alarm | means | do |'));
      const documented = [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
      const named = (s: Synth) =>
        Object.values(s.template.findResources('AWS::CloudWatch::Alarm')).map((a) =>
          String(a.Properties.AlarmName)
            .replace(`${s.stack.stackName}-`, '<stackName>-')
            .replace(/NoSuccessfulCheck-.*$/, 'NoSuccessfulCheck-<cluster>')
            .replace(/OnCallEventsFailed-.*$/, 'OnCallEventsFailed-<receiver>'),
        );
      // The alarms of optional settings are pinned where their synths are (a second delivery
      // path below, eventBus in infra-event-bus.test.ts, the paging tools in infra-on-call.test.ts,
      // the fleet's in infra-fleet-dispatch.test.ts).
      const optional = [
        '<stackName>-ClustersOverdueAlarm',
        '<stackName>-DispatchDeadLetterAlarm',
        '<stackName>-DispatcherStoppedAlarm',
        '<stackName>-NoConfirmedSubscription',
        '<stackName>-NotificationEventsFailedAlarm',
        '<stackName>-OnCallEventsFailed-<receiver>',
      ];
      assert.deepEqual(
        [...new Set([...named(main), ...optional])].sort(),
        [...documented].sort(),
        "docs/OPERATE.md's alarm table names every alarm the stack creates, exactly",
      );
    });
  });

  describe('EKS access entries', () => {
    test('same account and region: an access entry maps the function role to the group lease-watchdog', () => {
      main.template.resourceCountIs('AWS::EKS::AccessEntry', 1);
      const [entry] = Object.values(main.template.findResources('AWS::EKS::AccessEntry'));
      assert.deepEqual(entry?.Properties, {
        ClusterName: 'prod-eu-eks',
        PrincipalArn: { 'Fn::GetAtt': [role, 'Arn'] },
        KubernetesGroups: ['lease-watchdog'],
        Type: 'STANDARD',
      });
      assert.equal(entry?.Condition, undefined);
    });

    test('accessEntry: false creates none, but still allows DescribeCluster', () => {
      const s = synth({ ...base, clusters: [{ ...eks, accessEntry: false }] });
      s.template.resourceCountIs('AWS::EKS::AccessEntry', 0);
      assert.ok(
        statementsOf(s, s.id(s.stack.watchdog.role)).some(
          (st) => st.Action === 'eks:DescribeCluster',
        ),
      );
    });

    test('a cluster in another region than the stack must opt out of the access entry', () => {
      assert.throws(
        () =>
          synth({ ...base, clusters: [{ ...eks, auth: { ...eks.auth, region: 'us-east-1' } }] }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message.startsWith(
            'clusters[0].accessEntry must be false: cluster prod-eu is in us-east-1 but the stack deploys to eu-west-1',
          ),
      );
    });

    test('an environment-agnostic stack creates the entry only when deployed to the cluster region', () => {
      const s = unplaced;
      const [entry] = Object.values(s.template.findResources('AWS::EKS::AccessEntry'));
      assert.ok(entry?.Condition);
      assert.deepEqual(s.template.toJSON().Conditions[entry.Condition], {
        'Fn::Equals': [{ Ref: 'AWS::Region' }, REGION],
      });
      // And the cluster ARN names the cluster's region, in whatever account the stack lands.
      const describeCluster = statementsOf(s, s.id(s.stack.watchdog.role)).find(
        (st) => st.Action === 'eks:DescribeCluster',
      );
      assert.equal(
        describeCluster?.Resource,
        `arn:aws:eks:eu-west-1:\${AWS::AccountId}:cluster/prod-eu-eks`,
      );
    });
  });

  describe('VPC placement', () => {
    const vpc = {
      vpcId: 'vpc-0123456789abcdef0',
      subnetIds: ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'],
    };

    test('given security groups: the function runs in the subnets with them, and may manage its ENIs', () => {
      const s = synth({ ...base, vpc: { ...vpc, securityGroupIds: ['sg-0123456789abcdef0'] } });
      s.template.hasResourceProperties('AWS::Lambda::Function', {
        VpcConfig: { SubnetIds: vpc.subnetIds, SecurityGroupIds: ['sg-0123456789abcdef0'] },
      });
      s.template.resourceCountIs('AWS::EC2::SecurityGroup', 0);
      const roleProps =
        s.template.findResources('AWS::IAM::Role')[s.id(s.stack.watchdog.role)]?.Properties;
      assert.deepEqual(flat(roleProps.ManagedPolicyArns), [
        'arn:aws:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole',
      ]);
      assert.deepEqual(nagFindings(s.app), []);
    });

    test('without security groups: a new one in the VPC, egress only', () => {
      const s = synth({ ...base, vpc });
      s.template.resourceCountIs('AWS::EC2::SecurityGroup', 1);
      s.template.hasResourceProperties('AWS::EC2::SecurityGroup', {
        VpcId: vpc.vpcId,
        SecurityGroupEgress: [{ CidrIp: '0.0.0.0/0', IpProtocol: '-1' }],
        SecurityGroupIngress: Match.absent(),
      });
      assert.deepEqual(nagFindings(s.app), []);
    });

    test('no VPC by default', () => {
      main.template.hasResourceProperties('AWS::Lambda::Function', { VpcConfig: Match.absent() });
    });
  });

  describe('cdk-nag AwsSolutions', () => {
    test('zero unacknowledged findings, in every configuration above', () => {
      assert.deepEqual(nagFindings(main.app), []);
      assert.deepEqual(nagFindings(unplaced.app), []);
    });

    test('the check does find problems (an unencrypted, non-SSL queue added to the stack)', () => {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const stack = buildStack(app, parseAppConfig({ ...base, account: ACCOUNT, region: REGION }));
      new sqs.Queue(stack, 'Careless', { encryption: sqs.QueueEncryption.UNENCRYPTED });
      const findings = nagFindings(app);
      assert.ok(
        findings.includes(`AwsSolutions-SQS4 at ${stack.stackName}/Careless/Resource`),
        findings.join('\n'),
      );
      // And through the CDK validation framework, synth fails and reports it.
      let reportPath = '';
      assert.throws(
        () => app.synth(),
        (error: Error) => {
          reportPath = /found in: (\S+)/.exec(error.message)?.[1] ?? '';
          return /Validation failed/.test(error.message);
        },
      );
      const report = JSON.parse(readFileSync(reportPath, 'utf8')) as {
        pluginReports: {
          violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[];
        }[];
      };
      const reported = report.pluginReports.flatMap((r) =>
        r.violations.flatMap((v) =>
          v.violatingConstructs.map((c) => `${v.ruleName} at ${c.constructPath}`),
        ),
      );
      assert.ok(
        reported.includes(`AwsSolutions-SQS4 at ${stack.stackName}/Careless/Resource`),
        reported.join('\n'),
      );
      assert.deepEqual(
        reported.filter((r) => !r.endsWith('/Careless/Resource')),
        [],
        'only the careless queue: the watchdog findings stay acknowledged',
      );
    });

    test('every acknowledgement carries a specific reason', () => {
      const acknowledged: [string, string][] = [];
      for (const construct of main.stack.node.findAll()) {
        for (const entry of construct.node.metadata) {
          if (entry.type === 'aws:cdk:acknowledged-rules') {
            for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
              acknowledged.push([id.replace(/^[A-Za-z]+::/, ''), reason]);
            }
          }
        }
      }
      assert.deepEqual(acknowledged.map(([id]) => id).sort(), [
        'AwsSolutions-IAM5[Resource::*]',
        'AwsSolutions-SQS3',
        'AwsSolutions-SQS3',
      ]);
      for (const [, reason] of acknowledged) assert.ok(reason.length > 60, reason);
    });
  });

  test('the stack is a plain Stack whose construct can be reused elsewhere', () => {
    assert.ok(main.stack instanceof Stack);
    assert.equal(main.stack.stackName, 'LeaseWatchdog');
    assert.deepEqual(Object.keys(main.template.toJSON().Outputs).sort(), [
      'DashboardName',
      'DeadLetterQueueUrl',
      'FunctionName',
      'FunctionRoleArn',
      'LogGroupName',
      'StateTableName',
      'TopicArn',
    ]);
  });

  test('logical ids are stable: a renamed one replaces the resource (the state table loses its state)', () => {
    const resources = main.template.toJSON().Resources as Record<string, { Type: string }>;
    const ids = Object.entries(resources).map(([logicalId, r]) => `${logicalId} ${r.Type}`);
    assert.deepEqual(ids.sort(), [
      'WatchdogAccessEntryprodeu1C6F4095 AWS::EKS::AccessEntry',
      // One dashboard whatever the number of clusters (infra/dashboard.ts).
      'WatchdogDashboard660E9A2D AWS::CloudWatch::Dashboard',
      'WatchdogDeadLetterAlarmEC124619 AWS::CloudWatch::Alarm',
      'WatchdogErrorsAlarm729C5C31 AWS::CloudWatch::Alarm',
      'WatchdogFunction79A09A6B AWS::Lambda::Function',
      'WatchdogFunctionEventInvokeConfig504B0E0B AWS::Lambda::EventInvokeConfig',
      'WatchdogFunctionRoleDefaultPolicy14393B80 AWS::IAM::Policy',
      'WatchdogFunctionRoleE6149ED2 AWS::IAM::Role',
      // The watchdog's own looks (infra/rechecks.ts): added deliberately, no id renamed.
      'WatchdogFunctionSqsEventSourceLeaseWatchdogRecheckQueue5423CD51A9B93171 AWS::Lambda::EventSourceMapping',
      'WatchdogLogGroup37E74E43 AWS::Logs::LogGroup',
      // No look delivered for 3 periods (infra/rechecks.ts): added deliberately.
      'WatchdogLooksStoppedAlarm73822A13 AWS::CloudWatch::Alarm',
      'WatchdogNoSuccessfulCheckedgelabD2F81DD0 AWS::CloudWatch::Alarm',
      'WatchdogNoSuccessfulCheckonprem12705906 AWS::CloudWatch::Alarm',
      'WatchdogNoSuccessfulCheckprodeuE51578A7 AWS::CloudWatch::Alarm',
      // One alarm over every cluster's abandoned notifications (not one per cluster).
      'WatchdogNotificationsAbandonedAlarmAD599F2D AWS::CloudWatch::Alarm',
      // Looks parked in the re-check dead-letter queue (infra/alarms.ts): added deliberately.
      'WatchdogRecheckDeadLetterAlarm5468216A AWS::CloudWatch::Alarm',
      'WatchdogRecheckDeadLetterQueueDC8F2D36 AWS::SQS::Queue',
      'WatchdogRecheckDeadLetterQueuePolicyD0F04994 AWS::SQS::QueuePolicy',
      'WatchdogRecheckQueue2F3EC50C AWS::SQS::Queue',
      'WatchdogRecheckQueuePolicy36292176 AWS::SQS::QueuePolicy',
      'WatchdogScheduleDeadLetterQueue35F461EE AWS::SQS::Queue',
      'WatchdogScheduleDeadLetterQueuePolicyA0EAAA06 AWS::SQS::QueuePolicy',
      'WatchdogScheduleedgelab6B7EFF6B AWS::Scheduler::Schedule',
      'WatchdogScheduleonprem56C92464 AWS::Scheduler::Schedule',
      'WatchdogScheduleprodeuCB0CEBEB AWS::Scheduler::Schedule',
      'WatchdogSchedulerRole4F1BE1D6 AWS::IAM::Role',
      'WatchdogSchedulerRoleDefaultPolicy70696049 AWS::IAM::Policy',
      'WatchdogStateTable5F2D2FCB AWS::DynamoDB::Table',
      'WatchdogThrottlesAlarm17F58981 AWS::CloudWatch::Alarm',
      'WatchdogTopic81C9B143 AWS::SNS::Topic',
      'WatchdogTopicKeyFB681861 AWS::KMS::Key',
      'WatchdogTopicPolicy61F433AC AWS::SNS::TopicPolicy',
      'WatchdogTopiconcallexamplecom6C9359D9 AWS::SNS::Subscription',
      'WatchdogTopicplatformexamplecom9DA8AAC0 AWS::SNS::Subscription',
    ]);
  });
});
