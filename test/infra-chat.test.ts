/** The chat topic (`chatNotifications`) in the synthesized template, and cdk-nag on it. */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { synthStack } from '../testkit/synth-stack.js';

const synth = synthStack;

describe('chatNotifications', () => {
  let s: ReturnType<typeof synth>;
  let chatId: string;
  before(() => {
    s = synth({ chatNotifications: { link: 'https://wiki.example.com/runbook' } });
    const chat = s.stack.watchdog.chatTopic;
    assert.ok(chat, 'a chat topic');
    chatId = s.id(chat);
  });

  test('a second KMS-encrypted topic, SSL only, with no subscription and its ARN as an output', () => {
    s.template.resourceCountIs('AWS::SNS::Topic', 2);
    s.template.resourceCountIs('AWS::KMS::Key', 2);
    assert.equal(chatId.startsWith('WatchdogChatTopic'), true, chatId);
    s.template.hasResourceProperties('AWS::SNS::Topic', {
      DisplayName: 'lease-watchdog chat',
      KmsMasterKeyId: Match.objectLike({
        'Fn::GetAtt': [Match.stringLikeRegexp('^WatchdogChatTopicKey'), 'Arn'],
      }),
    });
    s.template.hasResourceProperties('AWS::KMS::Key', {
      Description: 'lease-watchdog: encrypts the chat notification topic',
      EnableKeyRotation: true,
    });
    s.template.resourceCountIs('AWS::SNS::Subscription', 1); // the one email, on the notification topic
    s.template.hasOutput('ChatTopicArn', { Value: { Ref: chatId } });
  });

  test('the function gets CHAT_TOPIC_ARN and may publish (and encrypt) to that topic only', () => {
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ CHAT_TOPIC_ARN: { Ref: chatId } }) },
    });
    s.template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'PublishChatNotifications',
            Action: 'sns:Publish',
            Resource: { Ref: chatId },
          }),
          Match.objectLike({
            Sid: 'EncryptChatNotifications',
            Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
            Condition: {
              StringEquals: { 'kms:EncryptionContext:aws:sns:topicArn': { Ref: chatId } },
            },
          }),
        ]),
      },
    });
  });

  test('the function settings carry the link; cdk-nag finds nothing', () => {
    const functions = s.template.findResources('AWS::Lambda::Function');
    const settings = JSON.parse(
      Object.values(functions)[0]?.Properties.Environment.Variables.LEASE_WATCHDOG_SETTINGS,
    ) as { chatNotifications?: { link?: string } };
    assert.deepEqual(settings.chatNotifications, { link: 'https://wiki.example.com/runbook' });
    const report = new AwsSolutionsChecks().validateScope(s.app);
    assert.deepEqual(
      report.violations.flatMap((v) =>
        v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`),
      ),
      [],
    );
  });

  test('without the setting: no chat topic, no CHAT_TOPIC_ARN, no output', () => {
    const plain = synth({});
    assert.equal(plain.stack.watchdog.chatTopic, undefined);
    plain.template.resourceCountIs('AWS::SNS::Topic', 1);
    assert.deepEqual(Object.keys(plain.template.findOutputs('ChatTopicArn')), []);
    const variables = Object.values(plain.template.findResources('AWS::Lambda::Function'))[0]
      ?.Properties.Environment.Variables as Record<string, unknown>;
    assert.equal('CHAT_TOPIC_ARN' in variables, false);
    // Nor a machine topic (machineTopic, infra-machine-topic.test.ts) unless asked for.
    assert.equal(plain.stack.watchdog.machineTopic, undefined);
    assert.deepEqual(Object.keys(plain.template.findOutputs('MachineTopicArn')), []);
    assert.equal('MACHINE_TOPIC_ARN' in variables, false);
  });
});
