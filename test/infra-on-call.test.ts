/**
 * `pagerDuty`, `opsgenie`, `incidentIo` and `webhook` in the synthesized template:
 * `secretsmanager:GetSecretValue` on exactly the routing-key, API-key, token and signing-key secrets, the `OnCallEventsFailed` alarm, the secret's name (never a key) in the
 * function's settings, and cdk-nag.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { synthStack } from '../testkit/synth-stack.js';

const synth = synthStack;

/** The statements that read a paging tool's key (`ReadPagerDutyRoutingKey`, `ReadOpsgenieApiKey`). */
function onCallStatements(template: Template): Record<string, unknown>[] {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as Record<string, unknown>[]).filter((s) =>
      /^Read(PagerDutyRoutingKey|OpsgenieApiKey|IncidentIoToken|WebhookSigningKey|AlertmanagerAuth)$/.test(
        String(s.Sid),
      ),
    ),
  );
}

/** GetSecretValue on the secret named `name` in the stack's account and region. */
function readSecret(sid: string, name: string) {
  const arn = `:secretsmanager:eu-west-1:123456789012:secret:${name}-??????`;
  return {
    Sid: sid,
    Effect: 'Allow',
    Action: 'secretsmanager:GetSecretValue',
    Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, arn]] },
  };
}

describe('pagerDuty and opsgenie', () => {
  let withIt: ReturnType<typeof synth>;
  let without: ReturnType<typeof synth>;
  before(() => {
    withIt = synth({
      pagerDuty: { routingKeySecret: 'lease-watchdog/pagerduty' },
      opsgenie: { apiKeySecret: 'lease-watchdog/opsgenie', region: 'eu' },
      incidentIo: {
        alertSourceId: '01GW2G3V0S59R238FAHPDS1R66',
        tokenSecret: 'lease-watchdog/iio',
      },
      webhook: { url: 'https://hooks.example.com/lw', signingKeySecret: 'lease-watchdog/hook' },
    });
    without = synth({});
  });

  test('GetSecretValue on each secret only, and one alarm per receiver on OnCallEventsFailed', () => {
    assert.deepEqual(onCallStatements(withIt.template), [
      readSecret('ReadPagerDutyRoutingKey', 'lease-watchdog/pagerduty'),
      readSecret('ReadOpsgenieApiKey', 'lease-watchdog/opsgenie'),
      readSecret('ReadIncidentIoToken', 'lease-watchdog/iio'),
      readSecret('ReadWebhookSigningKey', 'lease-watchdog/hook'),
    ]);
    const settings = JSON.stringify(withIt.template.findResources('AWS::Lambda::Function'));
    assert.match(settings, /lease-watchdog\/opsgenie/, "the secret's name in the settings");
    const alarms = withIt.template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'OnCallEventsFailed' },
    });
    const watched = Object.values(alarms).map((a) => [
      a.Properties.AlarmName,
      a.Properties.Dimensions,
    ]);
    assert.deepEqual(
      watched,
      ['pagerduty', 'opsgenie', 'incident-io', 'webhook'].map((receiver) => [
        `LeaseWatchdog-OnCallEventsFailed-${receiver}`,
        [
          { Name: 'receiver', Value: receiver },
          { Name: 'service', Value: 'lease-watchdog' },
        ],
      ]),
      'one alarm per receiver, on the dimensions the function writes (emf-metrics.ts)',
    );
    withIt.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'OnCallEventsFailed',
      Namespace: 'LeaseWatchdog',
      Threshold: 1,
      AlarmActions: Match.anyValue(),
    });
    const report = new AwsSolutionsChecks().validateScope(withIt.app);
    assert.deepEqual(
      report.violations.flatMap((v) =>
        v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`),
      ),
      [],
    );
  });

  test('opsgenie alone: its grant and the OnCallEventsFailed alarm', () => {
    const alone = synth({ opsgenie: { apiKeySecret: 'lease-watchdog/opsgenie' } });
    assert.deepEqual(onCallStatements(alone.template), [
      readSecret('ReadOpsgenieApiKey', 'lease-watchdog/opsgenie'),
    ]);
    const alarms = alone.template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'OnCallEventsFailed' },
    });
    assert.equal(Object.keys(alarms).length, 1);
  });

  test('alertmanager alone: reading its auth secret, and its alarm', () => {
    const alone = synth({
      alertmanager: { url: 'https://am.example.com', authSecret: 'lease-watchdog/alertmanager' },
    });
    assert.deepEqual(onCallStatements(alone.template), [
      readSecret('ReadAlertmanagerAuth', 'lease-watchdog/alertmanager'),
    ]);
    const alarms = alone.template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'OnCallEventsFailed' },
    });
    assert.deepEqual(
      Object.values(alarms).map((a) => a.Properties.AlarmName),
      ['LeaseWatchdog-OnCallEventsFailed-alertmanager'],
    );
  });

  test('without them: neither a grant nor the alarm', () => {
    assert.deepEqual(onCallStatements(without.template), []);
    const alarms = without.template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'OnCallEventsFailed' },
    });
    assert.deepEqual(Object.keys(alarms), []);
  });
});
