/**
 * `pagerDuty` in the synthesized template: `secretsmanager:GetSecretValue` on exactly the
 * routing-key secret, the `OnCallEventsFailed` alarm, the secret's name (never a key) in the
 * function's settings, and cdk-nag.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildStack } from '../infra/stack.js';
import { parseAppConfig } from '../lambda/settings/index.js';

const base = {
  account: '123456789012',
  region: 'eu-west-1',
  clusters: [{ name: 'prod-eu', auth: { mode: 'eks', clusterName: 'prod-eu-eks' } }],
  emails: ['oncall@example.com'],
};

function synth(input: object) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = buildStack(app, parseAppConfig({ ...base, ...input }));
  return { app, template: Template.fromStack(stack) };
}

function pagerDutyStatements(template: Template): Record<string, unknown>[] {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as Record<string, unknown>[]).filter(
      (s) => s.Sid === 'ReadPagerDutyRoutingKey',
    ),
  );
}

describe('pagerDuty', () => {
  let withIt: ReturnType<typeof synth>;
  let without: ReturnType<typeof synth>;
  before(() => {
    withIt = synth({ pagerDuty: { routingKeySecret: 'lease-watchdog/pagerduty' } });
    without = synth({});
  });

  test('GetSecretValue on that secret only, and an alarm on OnCallEventsFailed', () => {
    assert.deepEqual(pagerDutyStatements(withIt.template), [
      {
        Sid: 'ReadPagerDutyRoutingKey',
        Effect: 'Allow',
        Action: 'secretsmanager:GetSecretValue',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':secretsmanager:eu-west-1:123456789012:secret:lease-watchdog/pagerduty-??????',
            ],
          ],
        },
      },
    ]);
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

  test('without it: neither the grant nor the alarm', () => {
    assert.deepEqual(pagerDutyStatements(without.template), []);
    const alarms = without.template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'OnCallEventsFailed' },
    });
    assert.deepEqual(Object.keys(alarms), []);
  });
});
