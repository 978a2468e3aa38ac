/**
 * `LeaseWatchdog`: everything one watchdog runs on, with the good defaults baked in.
 *
 * One function, one schedule per cluster (input `{"cluster": "<name>"}`), a KMS-encrypted SNS topic
 * (or an existing one), a DynamoDB state table, least-privilege access to the configured secrets and
 * clusters, and alarms that watch the watchdog itself, notifying the same topic and, when
 * configured, a second delivery path (alarm-delivery.ts). Each part lives
 * in its own module and creates its constructs directly in this construct's scope, so the logical
 * ids are those of a single construct.
 */
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  type DeploymentConfig,
  type LeaseWatchdogConfig,
  parseDeploymentConfig,
} from '../lambda/settings/index.js';
import { createAlarmPaths } from './alarm-delivery.js';
import { bindCheckMetrics, createAlarms } from './alarms.js';
import { createChatTopic, grantChatPublish } from './chat-topic.js';
import { grantClusterAccess } from './cluster-access.js';
import { createSchedules } from './schedules.js';
import { StateTable } from './state-table.js';
import { NotificationTopic } from './topic.js';
import { createWatchdogFunction, DEFAULT_ENTRY } from './watchdog-function.js';

export {
  CHECK_SUCCEEDED_METRIC,
  CONFIRMED_SUBSCRIPTIONS_METRIC,
  DEAD_MAN_PERIODS,
} from './alarms.js';
export { KUBERNETES_GROUP } from './cluster-access.js';
export { STATE_TABLE_ACTIONS } from './state-table.js';
export {
  CHECK_BUDGET_SECONDS,
  DEFAULT_ENTRY,
  ESM_REQUIRE_BANNER,
  functionTimeoutSeconds,
} from './watchdog-function.js';

export interface LeaseWatchdogProps extends LeaseWatchdogConfig {
  /** The handler module to bundle. Default: this repository's `lambda/handler.ts`. */
  readonly entry?: string;
}

export class LeaseWatchdog extends Construct {
  readonly config: DeploymentConfig;
  readonly function: NodejsFunction;
  readonly role: iam.Role;
  readonly topic: sns.ITopic;
  /** The key that encrypts the topic; undefined with `existingTopicArn`. */
  readonly topicKey?: kms.Key;
  readonly table: dynamodb.Table;
  readonly logGroup: logs.LogGroup;
  readonly deadLetterQueue: sqs.Queue;
  readonly schedulerRole: iam.Role;
  readonly schedules: ReadonlyMap<string, scheduler.Schedule>;
  readonly errorsAlarm: cloudwatch.Alarm;
  readonly throttlesAlarm: cloudwatch.Alarm;
  readonly deadLetterAlarm: cloudwatch.Alarm;
  /** Per cluster: "no successful check for 3 schedule periods". */
  readonly deadMansSwitches: ReadonlyMap<string, cloudwatch.Alarm>;
  /** The alarms' second delivery path (`alarmEmails`, `alarmTopicArn`): empty without one. */
  readonly alarmTopics: readonly sns.ITopic[];
  /** "The notification topic has no confirmed subscription", on the alarm path; none without one. */
  readonly noSubscriberAlarm?: cloudwatch.Alarm;
  /** The topic of chat notifications (`chatNotifications`); undefined without it. */
  readonly chatTopic?: sns.ITopic;

  constructor(scope: Construct, id: string, props: LeaseWatchdogProps) {
    super(scope, id);
    const { entry = DEFAULT_ENTRY, ...configInput } = props;
    const config = parseDeploymentConfig(configInput);
    this.config = config;

    const topic = new NotificationTopic(this, config);
    this.topic = topic.topic;
    this.topicKey = topic.key;
    const state = new StateTable(this);
    this.table = state.table;

    const watchdog = createWatchdogFunction(this, config, entry);
    this.function = watchdog.function;
    this.role = watchdog.role;
    this.logGroup = watchdog.logGroup;
    topic.grantPublish(this.function);
    topic.grantCountSubscriptions(this.function);
    const chat = createChatTopic(this, config);
    if (chat) {
      grantChatPublish(chat, this.function);
      this.chatTopic = chat.topic;
    }
    const alarmPaths = createAlarmPaths(this, config);
    this.alarmTopics = alarmPaths.map((path) => path.topic);
    state.grantStateAccess(this.function);
    bindCheckMetrics(this.function);
    config.clusters.forEach((cluster, index) => {
      grantClusterAccess(this, this.role, cluster, index);
    });

    const schedules = createSchedules(this, this.function, config);
    this.deadLetterQueue = schedules.deadLetterQueue;
    this.schedulerRole = schedules.schedulerRole;
    this.schedules = schedules.schedules;

    const alarms = createAlarms(this, {
      fn: this.function,
      deadLetterQueue: this.deadLetterQueue,
      topic,
      alarmPaths,
      config,
    });
    this.errorsAlarm = alarms.errorsAlarm;
    this.throttlesAlarm = alarms.throttlesAlarm;
    this.deadLetterAlarm = alarms.deadLetterAlarm;
    this.deadMansSwitches = alarms.deadMansSwitches;
    if (alarms.noSubscriberAlarm) this.noSubscriberAlarm = alarms.noSubscriberAlarm;
  }
}
