/**
 * The notification topic: a KMS-encrypted SNS topic with the email subscriptions, or the configured
 * existing one (a topic object, or an ARN). `grantPublish` gives the function its address and the
 * right to publish to it.
 */
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { type DeploymentConfig, RUNTIME_ENV } from '../lambda/settings/index.js';

/** Which topic: the notifications' (ids `TopicKey`, `Topic`) or the alarms' own (`AlarmTopic…`). */
export interface TopicRole {
  /** Prefix of the construct ids. */
  readonly idPrefix: string;
  /** What the topic carries, for the key's description. */
  readonly carries: string;
  readonly displayName: string;
}

export const NOTIFICATIONS: TopicRole = {
  idPrefix: '',
  carries: 'the notification topic',
  displayName: 'lease-watchdog',
};

/** Creates its constructs in the given scope (construct ids `TopicKey` and `Topic`). */
export class NotificationTopic {
  readonly topic: sns.ITopic;
  /** The key that encrypts the topic; undefined with `existingTopicArn`. */
  readonly key?: kms.Key;
  /** What every alarm does on ALARM and on OK: notify this topic. */
  readonly alarmAction: SnsAction;

  /** The key that encrypts an existing topic given as an object, when it names one. */
  private readonly existingKey?: kms.IKey;

  constructor(
    scope: Construct,
    config: Pick<DeploymentConfig, 'existingTopicArn' | 'emails'> & {
      /** An existing topic (`existingTopicArn` is then its ARN). */
      readonly topic?: sns.ITopic;
    },
    role: TopicRole = NOTIFICATIONS,
  ) {
    const ids = { key: `${role.idPrefix}TopicKey`, topic: `${role.idPrefix}Topic` };
    if (config.topic !== undefined) {
      this.topic = config.topic;
      this.existingKey = config.topic.masterKey;
    } else if (config.existingTopicArn === undefined) {
      const key = new kms.Key(scope, ids.key, {
        description: `lease-watchdog: encrypts ${role.carries}`,
        enableKeyRotation: true,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      // CloudWatch alarm actions publish to the encrypted topic as the CloudWatch service: only
      // for alarms of this account and region (no confused deputy). The alarms' own ARNs would
      // make a cycle (alarm → topic → key), so the topic policy names them instead.
      key.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'AllowCloudWatchAlarmsToPublishToTheTopic',
          principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
          actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          resources: ['*'],
          conditions: alarmsOfThisAccount(scope),
        }),
      );
      this.key = key;
      this.topic = new sns.Topic(scope, ids.topic, {
        displayName: role.displayName,
        masterKey: key,
        enforceSSL: true,
      });
    } else {
      this.topic = sns.Topic.fromTopicArn(scope, ids.topic, config.existingTopicArn);
    }
    for (const email of config.emails) {
      this.topic.addSubscription(new subscriptions.EmailSubscription(email));
    }
    this.alarmAction = new SnsAction(this.topic);
  }

  /** Sets TOPIC_ARN and allows sns:Publish to the topic (and, for our key, encrypting for it). */
  grantPublish(fn: lambda.Function): void {
    fn.addEnvironment(RUNTIME_ENV.topicArn, this.topic.topicArn);
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'PublishNotifications',
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
      }),
    );
    const key = this.key ?? this.existingKey;
    if (key) {
      // SNS encrypts each published message with a data key from the topic's key, for this topic only.
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          sid: 'EncryptNotifications',
          actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
          resources: [key.keyArn],
          conditions: {
            StringEquals: { 'kms:EncryptionContext:aws:sns:topicArn': this.topic.topicArn },
          },
        }),
      );
    }
  }

  /**
   * Sets TOPIC_ARN and allows sns:ListSubscriptionsByTopic on the topic, so that the function can
   * count the confirmed subscriptions (the metric `ConfirmedSubscriptions`): an unsubscribe link
   * must not end all alerting unnoticed.
   */
  grantCountSubscriptions(fn: lambda.Function): void {
    fn.addEnvironment(RUNTIME_ENV.topicArn, this.topic.topicArn);
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'CountConfirmedSubscriptions',
        actions: ['sns:ListSubscriptionsByTopic'],
        resources: [this.topic.topicArn],
      }),
    );
  }

  /**
   * The topic's own policy (it holds the SSL-only statement) replaces SNS's default policy, so it
   * must let these alarms publish; the key policy lets them encrypt. Nothing to do for an existing
   * topic, whose policy is its owner's.
   */
  allowAlarmsToPublish(
    alarms: readonly cloudwatch.IAlarm[],
    /** Alarm names with `*` wildcards, for alarms too many to list (cluster-stacks.ts). */
    namedLike: readonly string[] = [],
  ): void {
    if (!this.key) return;
    const { account, region, partition } = Stack.of(this.topic);
    const patterns = namedLike.map(
      (name) => `arn:${partition}:cloudwatch:${region}:${account}:alarm:${name}`,
    );
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowTheseAlarmsToPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': [...alarms.map((a) => a.alarmArn), ...patterns] },
        },
      }),
    );
  }
}

/** The condition that limits a service principal to CloudWatch alarms of this stack's account and region. */
function alarmsOfThisAccount(scope: Construct): Record<string, Record<string, string>> {
  const { account, region, partition } = Stack.of(scope);
  return {
    StringEquals: { 'aws:SourceAccount': account },
    ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
  };
}
