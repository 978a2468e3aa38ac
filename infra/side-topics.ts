/**
 * The side topics, each a KMS-encrypted SNS topic of its own built like the notification topic
 * (topic.ts), to which the function publishes once the notification topic accepted a notification:
 * - the chat topic (`chatNotifications`; construct ids `ChatTopicKey`, `ChatTopic`): Amazon Q
 *   Developer in chat applications custom notifications, which the user adds to a Slack or
 *   Microsoft Teams channel configuration (output `ChatTopicArn`). Why not the notification topic
 *   itself: lambda/adapters/notify/delivery/chat-notifier.ts.
 * - the machine topic (`machineTopic`; `MachineTopicKey`, `MachineTopic`): the JSON document as a
 *   String-structure message with the message attributes filter policies match (output
 *   `MachineTopicArn`). Why: lambda/adapters/notify/delivery/machine-notifier.ts.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { type DeploymentConfig, RUNTIME_ENV } from '../lambda/settings/index.js';
import { NotificationTopic } from './topic.js';

/** The chat topic, or undefined when `chatNotifications` is not set. */
export function createChatTopic(
  scope: Construct,
  config: Pick<DeploymentConfig, 'chatNotifications'>,
): NotificationTopic | undefined {
  if (config.chatNotifications === undefined) return undefined;
  return new NotificationTopic(
    scope,
    { emails: [] },
    {
      idPrefix: 'Chat',
      carries: 'the chat notification topic',
      displayName: 'lease-watchdog chat',
    },
  );
}

/** The machine topic, or undefined unless `machineTopic` is true. */
export function createMachineTopic(
  scope: Construct,
  config: Pick<DeploymentConfig, 'machineTopic'>,
): NotificationTopic | undefined {
  if (config.machineTopic !== true) return undefined;
  return new NotificationTopic(
    scope,
    { emails: [] },
    {
      idPrefix: 'Machine',
      carries: 'the machine notification topic',
      displayName: 'lease-watchdog machine',
    },
  );
}

/** Sets CHAT_TOPIC_ARN and allows sns:Publish to the chat topic (and encrypting for it). */
export function grantChatPublish(chat: NotificationTopic, fn: lambda.Function): void {
  grantSidePublish(chat, fn, RUNTIME_ENV.chatTopicArn, 'ChatNotifications');
}

/** Sets MACHINE_TOPIC_ARN and allows sns:Publish to the machine topic (and encrypting for it). */
export function grantMachinePublish(machine: NotificationTopic, fn: lambda.Function): void {
  grantSidePublish(machine, fn, RUNTIME_ENV.machineTopicArn, 'MachineNotifications');
}

/** The topic's ARN in `env`, sns:Publish on it (`Publish<sid>`), and its key (`Encrypt<sid>`). */
function grantSidePublish(
  side: NotificationTopic,
  fn: lambda.Function,
  env: string,
  sid: string,
): void {
  fn.addEnvironment(env, side.topic.topicArn);
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      sid: `Publish${sid}`,
      actions: ['sns:Publish'],
      resources: [side.topic.topicArn],
    }),
  );
  if (side.key) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: `Encrypt${sid}`,
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        resources: [side.key.keyArn],
        conditions: {
          StringEquals: { 'kms:EncryptionContext:aws:sns:topicArn': side.topic.topicArn },
        },
      }),
    );
  }
}
