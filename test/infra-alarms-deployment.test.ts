/**
 * The deployment-wide alarms and the metrics they read: one `NotificationsAbandoned` alarm over
 * every cluster, and `NoConfirmedSubscription`. CloudWatch matches a metric by its namespace, name
 * and exact set of dimensions, so each alarm is checked against the EMF line the function's
 * metrics adapter really writes, not against literals repeated here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ALARM_NAME_MAX_CHARS, alarmName } from '../infra/alarm-names.js';
import { CONFIRMED_SUBSCRIPTIONS_METRIC, NOTIFICATIONS_ABANDONED_METRIC } from '../infra/alarms.js';
import { buildStack } from '../infra/stack.js';
import { powertoolsMetrics } from '../lambda/adapters/metrics/emf-metrics.js';
import {
  METRICS_NAMESPACE,
  SERVICE_DIMENSIONS,
  SERVICE_NAME,
} from '../lambda/adapters/metrics/metric-names.js';
import type { MetricsRecorder } from '../lambda/ports/index.js';
import { parseAppConfig } from '../lambda/settings/index.js';
import { captureEmf, type EmfLine } from '../testkit/emf-capture.js';

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const OPS = 'arn:aws:sns:eu-west-1:123456789012:ops-pager';
const cluster = (name: string) => ({
  name,
  auth: { mode: 'eks', clusterName: name, region: REGION },
});

function synth(input: object): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = buildStack(
    app,
    parseAppConfig({ emails: ['oncall@example.com'], account: ACCOUNT, region: REGION, ...input }),
  );
  return Template.fromStack(stack);
}

type Alarm = Record<string, unknown> & {
  AlarmActions: unknown[];
  OKActions: unknown[];
  Dimensions: { Name: string; Value: unknown }[];
  AlarmDescription: string;
};

function alarmsOn(template: Template, metricName: string): Alarm[] {
  return Object.values(
    template.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: metricName } }),
  ).map((r) => r.Properties as Alarm);
}

function topicRef(template: Template): { Ref: string } {
  const [id, ...more] = Object.keys(template.findResources('AWS::SNS::Topic'));
  assert.equal(more.length, 0, 'one topic');
  return { Ref: id as string };
}

/** The EMF lines the function's metrics adapter writes for `emit`. */
function emfOf(emit: (metrics: MetricsRecorder) => void): EmfLine[] {
  const emf = captureEmf();
  try {
    emit(
      powertoolsMetrics(new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME })),
    );
  } finally {
    emf.stop();
  }
  return emf.lines;
}

/** Asserts that one of the line's dimension sets is exactly the alarm's namespace and dimensions. */
function assertAlarmReads(alarm: Alarm, line: EmfLine, metricName: string): void {
  const [directive] = line._aws.CloudWatchMetrics;
  assert.ok(directive, 'an EMF directive');
  assert.equal(alarm.Namespace, directive.Namespace);
  assert.ok(
    directive.Metrics.some((m) => m.Name === metricName),
    `${metricName} in the line`,
  );
  const byName = (a: { Name: string }, b: { Name: string }) => a.Name.localeCompare(b.Name);
  const alarmDimensions = [...alarm.Dimensions].sort(byName);
  const sets = directive.Dimensions.map((set) =>
    set.map((name) => ({ Name: name, Value: line[name] })).sort(byName),
  );
  assert.ok(
    sets.some((set) => JSON.stringify(set) === JSON.stringify(alarmDimensions)),
    `the alarm's dimensions ${JSON.stringify(alarmDimensions)} are one of the line's sets ${JSON.stringify(sets)}`,
  );
}

/** The deployments more than one test reads, synthesized once. */
let three: Template;
let one: Template;
describe('deployment alarms', () => {
  before(() => {
    three = synth({ clusters: [cluster('a'), cluster('b'), cluster('c')] });
    one = synth({ clusters: [cluster('a')] });
  });

  describe('NotificationsAbandoned: one alarm over every cluster', () => {
    test('one alarm whatever the number of clusters: any notification given up in a period', () => {
      for (const template of [three, one]) {
        const [alarm, ...more] = alarmsOn(template, NOTIFICATIONS_ABANDONED_METRIC);
        assert.equal(more.length, 0, 'exactly one');
        const to = [topicRef(template)];
        assert.deepEqual(
          { ...alarm, AlarmDescription: undefined },
          {
            AlarmDescription: undefined,
            AlarmName: 'LeaseWatchdog-NotificationsAbandonedAlarm',
            AlarmActions: to,
            OKActions: to,
            Namespace: METRICS_NAMESPACE,
            MetricName: NOTIFICATIONS_ABANDONED_METRIC,
            Dimensions: Object.entries(SERVICE_DIMENSIONS).map(([Name, Value]) => ({
              Name,
              Value,
            })),
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

    test('its description says what happened and what to do', () => {
      const [alarm] = alarmsOn(three, NOTIFICATIONS_ABANDONED_METRIC);
      const text = String(alarm?.AlarmDescription);
      assert.match(text, /given up/);
      assert.match(text, /"notification abandoned" line/);
      assert.match(text, /subject/);
      assert.match(text, /KMS key/);
      assert.match(text, /policy/);
      assert.ok(text.length <= 1024, 'CloudWatch allows 1024 characters');
    });

    test('period: the schedule period', () => {
      const [alarm] = alarmsOn(
        synth({ clusters: [cluster('a')], scheduleMinutes: 5 }),
        NOTIFICATIONS_ABANDONED_METRIC,
      );
      assert.equal(alarm?.Period, 300);
    });

    test('with a second delivery path it notifies that path too', () => {
      const template = synth({ clusters: [cluster('a')], alarmTopicArn: OPS });
      const [alarm] = alarmsOn(template, NOTIFICATIONS_ABANDONED_METRIC);
      assert.deepEqual(alarm?.AlarmActions, [topicRef(template), OPS]);
      assert.deepEqual(alarm?.OKActions, [topicRef(template), OPS]);
    });

    test('reads what the function writes: the {service} set of every NotificationsAbandoned line', () => {
      const [line, ...more] = emfOf((m) => m.record('a', 'NotificationsAbandoned', 1));
      assert.equal(more.length, 0, 'one EMF line');
      const [alarm] = alarmsOn(three, NOTIFICATIONS_ABANDONED_METRIC);
      assert.ok(alarm && line);
      assertAlarmReads(alarm, line, NOTIFICATIONS_ABANDONED_METRIC);
      // {service} alone: a cluster dimension would bill a metric-month per cluster.
      assert.deepEqual(line._aws.CloudWatchMetrics[0]?.Dimensions, [['service']]);
      assert.equal(line.cluster, undefined);
    });
  });

  describe('NoConfirmedSubscription reads what the function writes', () => {
    test('ConfirmedSubscriptions: namespace and {service} only, the alarm on the alarm path', () => {
      const template = synth({ clusters: [cluster('a'), cluster('b')], alarmTopicArn: OPS });
      const [alarm, ...more] = alarmsOn(template, CONFIRMED_SUBSCRIPTIONS_METRIC);
      assert.equal(more.length, 0);
      const [line] = emfOf((m) => m.recordForService('ConfirmedSubscriptions', 0, 'Count'));
      assert.ok(alarm && line);
      assertAlarmReads(alarm, line, CONFIRMED_SUBSCRIPTIONS_METRIC);
      assert.deepEqual(line._aws.CloudWatchMetrics[0]?.Dimensions, [['service']]);
    });

    test('the function may list the subscriptions of its topic: every SNS call it makes is granted', () => {
      const topic = topicRef(one);
      const [fn] = Object.values(one.findResources('AWS::Lambda::Function'));
      assert.deepEqual(fn?.Properties.Environment.Variables.TOPIC_ARN, topic);
      const granted = Object.values(one.findResources('AWS::IAM::Policy')).flatMap((p) =>
        (
          p.Properties.PolicyDocument.Statement as {
            Action: string | string[];
            Resource: unknown;
          }[]
        )
          .filter((st) => [st.Action].flat().some((a) => a.startsWith('sns:')))
          .map((st) => ({ actions: [st.Action].flat(), resource: st.Resource })),
      );
      for (const statement of granted)
        assert.deepEqual(statement.resource, topic, 'the topic only');
      const dir = new URL('../lambda/adapters/notify/delivery/', import.meta.url);
      // The SNS adapters: the files that import the SNS client (the EventBridge notifier is not one).
      const used = readdirSync(dir)
        .filter((f) => f.endsWith('.ts'))
        .map((f) => readFileSync(new URL(f, dir), 'utf8'))
        .filter((source) => source.includes("from '@aws-sdk/client-sns'"))
        .flatMap((source) => [...source.matchAll(/new (\w+)Command\(/g)])
        .map((m) => `sns:${m[1]}`);
      assert.deepEqual(
        [...new Set(used)].sort(),
        granted.flatMap((st) => st.actions).sort(),
        'the calls the adapters make are exactly the grant',
      );
      assert.ok(used.includes('sns:ListSubscriptionsByTopic'));
    });
  });
});

describe('alarm names (CloudWatch: 1 to 255 characters, no control characters)', () => {
  test('a name that fits is <prefix>-<name>; a longer one is cut to 255 with a digest, the same every time', () => {
    assert.equal(alarmName('LeaseWatchdog', 'ErrorsAlarm'), 'LeaseWatchdog-ErrorsAlarm');
    const long = alarmName('P'.repeat(200), `NoSuccessfulCheck-${'c'.repeat(100)}`);
    assert.equal(long.length, ALARM_NAME_MAX_CHARS);
    assert.equal(long, alarmName('P'.repeat(200), `NoSuccessfulCheck-${'c'.repeat(100)}`));
    assert.notEqual(long, alarmName('P'.repeat(200), `NoSuccessfulCheck-${'c'.repeat(99)}d`));
    assert.match(long, /^P{200}-NoSuccessfulCheck-c+-[0-9a-f]{12}$/);
    assert.equal(alarmName('a\nb', 'x'), 'a-b-x');
  });
});
