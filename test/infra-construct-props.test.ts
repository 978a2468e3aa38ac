/**
 * The construct's props as a platform team sets them: times as `Duration`s (converted to the
 * deployment file's units, a fraction or a clash refused with one line naming the prop), the
 * switches (the state table's removal policy and deletion protection, the dashboard, reserved
 * concurrency, the access entry), and the names the README's Deploy step needs. One synth with
 * every prop set; the defaults are pinned by test/infra-stack.test.ts. The errors are thrown
 * before anything is built, so they cost no synth.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { App, type CfnElement, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { LeaseWatchdog, type LeaseWatchdogProps } from '../infra/lease-watchdog.js';
import { ConfigError } from '../lambda/settings/index.js';

const eks = { name: 'prod-eu', auth: { mode: 'eks' as const } };

function stackIn(): Stack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return new Stack(app, 'Platform', { env: { account: '123456789012', region: 'eu-west-1' } });
}

function logicalId(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}

/** The ConfigError's message of building the construct with `props` (untyped: as JavaScript may pass them). */
function refusal(props: Record<string, unknown>): string {
  try {
    new LeaseWatchdog(stackIn(), 'Watchdog', {
      clusters: [eks],
      emails: ['oncall@example.org'],
      ...props,
    } as LeaseWatchdogProps);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return error.message;
  }
  assert.fail('expected a ConfigError');
}

describe('LeaseWatchdog with every prop a platform team sets', () => {
  const stack = stackIn();
  const watchdog = new LeaseWatchdog(stack, 'Watchdog', {
    clusters: [{ ...eks, accessEntry: false }],
    emails: ['oncall@example.org'],
    gracePeriod: Duration.seconds(45),
    startupGrace: Duration.minutes(2),
    reminderInterval: Duration.hours(2),
    stuckRemoval: Duration.minutes(20),
    nodeRefresh: Duration.minutes(10),
    requestTimeout: Duration.seconds(10),
    schedule: Duration.minutes(2),
    logRetention: Duration.days(14),
    tableRemovalPolicy: RemovalPolicy.DESTROY,
    tableDeletionProtection: false,
    reservedConcurrency: 7,
  });
  const template = Template.fromStack(stack);

  test('takes every time as a Duration, converted to the units of the deployment file', () => {
    const c = watchdog.config;
    assert.deepEqual(
      [
        c.gracePeriodSeconds,
        c.startupGraceSeconds,
        c.reminderIntervalSeconds,
        c.stuckRemovalSeconds,
        c.nodeRefreshSeconds,
        c.requestTimeoutSeconds,
        c.scheduleMinutes,
        c.logRetentionDays,
      ],
      [45, 120, 7_200, 1_200, 600, 10, 2, 14],
    );
    const [schedule] = Object.values(template.findResources('AWS::Scheduler::Schedule'));
    assert.equal(schedule?.Properties.ScheduleExpression, 'rate(2 minutes)');
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 14 });
  });

  test('the state table as asked: removed with the stack, no deletion protection', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
      DeletionPolicy: 'Delete',
      UpdateReplacePolicy: 'Delete',
    });
  });

  test('no dashboard by default, the reserved concurrency given, no access entry', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
    assert.equal(watchdog.dashboard, undefined);
    template.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 7 });
    template.resourceCountIs('AWS::EKS::AccessEntry', 0);
  });

  test('exposes the function and log group names for CfnOutputs', () => {
    assert.deepEqual(stack.resolve(watchdog.functionName), { Ref: logicalId(watchdog.function) });
    assert.deepEqual(stack.resolve(watchdog.logGroupName), { Ref: logicalId(watchdog.logGroup) });
  });
});

describe('a time prop that cannot be used is refused with one line naming it', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'a fraction of the unit',
      { gracePeriod: Duration.millis(50_500) },
      /^gracePeriod must be a whole number of seconds \(got Duration\.millis\(50500\)\)/,
    ],
    [
      'a schedule in seconds',
      { schedule: Duration.seconds(90) },
      /^schedule must be a whole number of minutes \(got Duration\.seconds\(90\)\)/,
    ],
    [
      'both forms of one setting',
      { gracePeriod: Duration.seconds(50), gracePeriodSeconds: 50 },
      /^give gracePeriod or gracePeriodSeconds, not both/,
    ],
    [
      'a Duration where the file form takes a number',
      { startupGraceSeconds: Duration.minutes(1) },
      /^startupGraceSeconds takes a number of seconds; give a Duration as startupGrace/,
    ],
    [
      'a number where a Duration is meant',
      { logRetention: 14 },
      /^logRetention must be a Duration, e.g\. Duration\.days\(30\)/,
    ],
    [
      'a Duration out of bounds, named by its prop',
      { gracePeriod: Duration.days(2) },
      /^gracePeriod \(gracePeriodSeconds\) must be a whole number from 1 to 86400 \(got 172800\)/,
    ],
  ];
  for (const [name, props, message] of cases) {
    test(name, () => {
      assert.match(refusal(props), message);
    });
  }
});
