/** `eventBus` in the synthesized template: `events:PutEvents` on that bus only, and cdk-nag. */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { App, CfnParameter, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { LeaseWatchdog } from '../infra/lease-watchdog.js';
import { parseAppConfig } from '../lambda/settings/index.js';
import { ONE_CLUSTER as base, synthStack } from '../testkit/synth-stack.js';

const synth = synthStack;

/** Every statement of the stack's IAM policies that allows `action`. */
function statementsAllowing(template: Template, action: string): Record<string, unknown>[] {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as Record<string, unknown>[]).filter((s) =>
      ([] as unknown[]).concat(s.Action).includes(action),
    ),
  );
}

describe('eventBus', () => {
  /** With a bus name, and without eventBus: each synthesized once, read by more than one test. */
  let onCall: ReturnType<typeof synth>;
  let without: ReturnType<typeof synth>;
  before(() => {
    onCall = synth({ eventBus: 'on-call' });
    without = synth({});
  });

  test('a bus name: events:PutEvents on that bus of the stack account and region only', () => {
    const s = onCall;
    const statements = statementsAllowing(s.template, 'events:PutEvents');
    assert.equal(statements.length, 1, JSON.stringify(statements));
    assert.deepEqual(statements[0], {
      Sid: 'PutNotificationEvents',
      Effect: 'Allow',
      Action: 'events:PutEvents',
      Resource: {
        'Fn::Join': [
          '',
          ['arn:', { Ref: 'AWS::Partition' }, ':events:eu-west-1:123456789012:event-bus/on-call'],
        ],
      },
    });
    const report = new AwsSolutionsChecks().validateScope(s.app);
    assert.deepEqual(
      report.violations.flatMap((v) =>
        v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`),
      ),
      [],
    );
  });

  test('a bus ARN (another account or region): exactly that ARN', () => {
    const arn = 'arn:aws:events:us-east-1:210987654321:event-bus/pager';
    const s = synth({ eventBus: arn });
    const statements = statementsAllowing(s.template, 'events:PutEvents');
    assert.deepEqual(
      statements.map((x) => x.Resource),
      [arn],
    );
  });

  test('without it: no events:PutEvents at all', () => {
    assert.deepEqual(statementsAllowing(without.template, 'events:PutEvents'), []);
  });

  test('a token (a parameter): CloudFormation decides name or ARN', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Tokens', {
      env: { account: '123456789012', region: 'eu-west-1' },
    });
    const bus = new CfnParameter(stack, 'Bus').valueAsString;
    new LeaseWatchdog(stack, 'Watchdog', {
      clusters: [{ name: 'prod', auth: { mode: 'eks' } }],
      emails: ['oncall@example.com'],
      eventBus: bus,
      entry: 'lambda/handler/handler.ts',
    });
    const template = Template.fromStack(stack);
    const conditions = Object.keys(template.findConditions('*')).filter((id) =>
      id.startsWith('WatchdogEventBusIsArn'),
    );
    assert.equal(conditions.length, 1, JSON.stringify(template.findConditions('*')));
    const [statement] = statementsAllowing(template, 'events:PutEvents');
    const resource = statement?.Resource as { 'Fn::If'?: unknown[] } | undefined;
    assert.deepEqual(resource?.['Fn::If']?.slice(0, 2), [conditions[0], { Ref: 'Bus' }]);
  });

  test('an alarm on NotificationEventsFailed for the whole deployment, notifying the topic; none without eventBus', () => {
    const alarmsOf = (template: Template) =>
      Object.entries(template.findResources('AWS::CloudWatch::Alarm')).filter(
        ([, alarm]) => alarm.Properties.MetricName === 'NotificationEventsFailed',
      );
    const alarms = alarmsOf(onCall.template);
    // The logical id is pinned: a rename would replace the alarm (and lose its history).
    assert.deepEqual(
      alarms.map(([id]) => id),
      ['WatchdogNotificationEventsFailedAlarm8A9A0DD0'],
    );
    const [, alarm] = alarms[0] ?? [];
    assert.deepEqual(
      {
        name: alarm?.Properties.AlarmName,
        namespace: alarm?.Properties.Namespace,
        dimensions: alarm?.Properties.Dimensions,
        statistic: alarm?.Properties.Statistic,
        threshold: alarm?.Properties.Threshold,
        comparison: alarm?.Properties.ComparisonOperator,
        missing: alarm?.Properties.TreatMissingData,
        actions: [alarm?.Properties.AlarmActions, alarm?.Properties.OKActions],
      },
      {
        name: 'LeaseWatchdog-NotificationEventsFailedAlarm',
        namespace: 'LeaseWatchdog',
        dimensions: [{ Name: 'service', Value: 'lease-watchdog' }],
        statistic: 'Sum',
        threshold: 1,
        comparison: 'GreaterThanOrEqualToThreshold',
        missing: 'notBreaching',
        actions: [[{ Ref: 'WatchdogTopic81C9B143' }], [{ Ref: 'WatchdogTopic81C9B143' }]],
      },
    );
    assert.match(alarm?.Properties.AlarmDescription, /"notification event not put"/);
    assert.deepEqual(alarmsOf(without.template), []);
  });

  test('a bad name or ARN is refused in one line', () => {
    assert.throws(
      () => parseAppConfig({ ...base, eventBus: 'arn:aws:sns:eu-west-1:123456789012:alerts' }),
      /^ConfigError: eventBus must be an EventBridge event bus name like default or an ARN like arn:aws:events:eu-west-1:123456789012:event-bus\/alerts \(got "arn:aws:sns:eu-west-1:123456789012:alerts"\)$/,
    );
  });
});
