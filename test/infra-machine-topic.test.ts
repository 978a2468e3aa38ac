/** The machine topic (`machineTopic`) in the synthesized template, and cdk-nag on it. */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { App, type CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildStack } from '../infra/stack.js';
import { parseAppConfig } from '../lambda/settings/index.js';

describe('machineTopic', () => {
  let app: App;
  let template: Template;
  let machineId: string;
  before(() => {
    app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = buildStack(
      app,
      parseAppConfig({
        account: '123456789012',
        region: 'eu-west-1',
        clusters: [{ name: 'prod-eu', auth: { mode: 'eks', clusterName: 'prod-eu-eks' } }],
        emails: ['oncall@example.com'],
        machineTopic: true,
      }),
    );
    template = Template.fromStack(stack);
    const machine = stack.watchdog.machineTopic;
    assert.ok(machine, 'a machine topic');
    machineId = stack.resolve(
      ((machine.node.defaultChild ?? machine) as CfnElement).logicalId,
    ) as string;
  });

  test('a KMS-encrypted topic of its own, with no subscription and its ARN as an output', () => {
    template.resourceCountIs('AWS::SNS::Topic', 2);
    assert.equal(machineId.startsWith('WatchdogMachineTopic'), true, machineId);
    template.hasResourceProperties('AWS::SNS::Topic', {
      DisplayName: 'lease-watchdog machine',
      KmsMasterKeyId: Match.objectLike({
        'Fn::GetAtt': [Match.stringLikeRegexp('^WatchdogMachineTopicKey'), 'Arn'],
      }),
    });
    template.resourceCountIs('AWS::SNS::Subscription', 1); // the email, on the notification topic
    template.hasOutput('MachineTopicArn', { Value: { Ref: machineId } });
  });

  test('the function gets MACHINE_TOPIC_ARN and may publish (and encrypt) to it; cdk-nag finds nothing', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ MACHINE_TOPIC_ARN: { Ref: machineId } }) },
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'PublishMachineNotifications',
            Action: 'sns:Publish',
            Resource: { Ref: machineId },
          }),
          Match.objectLike({
            Sid: 'EncryptMachineNotifications',
            Condition: {
              StringEquals: { 'kms:EncryptionContext:aws:sns:topicArn': { Ref: machineId } },
            },
          }),
        ]),
      },
    });
    const report = new AwsSolutionsChecks().validateScope(app);
    assert.deepEqual(
      report.violations.flatMap((v) =>
        v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`),
      ),
      [],
    );
  });
});
