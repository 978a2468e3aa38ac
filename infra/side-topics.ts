/**
 * The chat topic (`chatNotifications`): a KMS-encrypted SNS topic of its own, built like the
 * notification topic (topic.ts; construct ids `ChatTopicKey` and `ChatTopic`), to which the
 * function publishes Amazon Q Developer in chat applications custom notifications. The user adds
 * it to a Slack or Microsoft Teams channel configuration (output `ChatTopicArn`). Why not the
 * notification topic itself: lambda/adapters/notify/delivery/chat-notifier.ts.
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

/** Sets CHAT_TOPIC_ARN and allows sns:Publish to the chat topic (and encrypting for it). */
export function grantChatPublish(chat: NotificationTopic, fn: lambda.Function): void {
  fn.addEnvironment(RUNTIME_ENV.chatTopicArn, chat.topic.topicArn);
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      sid: 'PublishChatNotifications',
      actions: ['sns:Publish'],
      resources: [chat.topic.topicArn],
    }),
  );
  if (chat.key) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'EncryptChatNotifications',
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        resources: [chat.key.keyArn],
        conditions: {
          StringEquals: { 'kms:EncryptionContext:aws:sns:topicArn': chat.topic.topicArn },
        },
      }),
    );
  }
}
