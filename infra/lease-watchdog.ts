/**
 * `LeaseWatchdog`: everything one watchdog runs on, with the good defaults baked in.
 *
 * One function, one schedule per cluster (input `{"cluster": "<name>"}`) or, for a fleet, one
 * dispatcher for all (dispatch.ts, docs/FLEET.md), a KMS-encrypted SNS topic
 * (or an existing one: `topic`, or `existingTopicArn`), a DynamoDB state table, least-privilege access to the configured secrets and
 * clusters, and alarms that watch the watchdog itself, notifying the same topic and, when
 * configured, a second delivery path (alarm-delivery.ts). Each part lives
 * in its own module and creates its constructs directly in this construct's scope, so the logical
 * ids are those of a single construct; above 100 clusters, each cluster's schedule, dead-man's
 * switch and access entry go into nested stacks (cluster-stacks.ts). A configuration still holding
 * placeholder values (example.com) synthesizes, and its template cannot be deployed
 * (placeholder-guard.ts).
 */

import { Token } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  ConfigError,
  type DeploymentConfig,
  type LeaseWatchdogConfig,
  parseDeploymentConfig,
} from '../lambda/settings/index.js';
import { createAlarmPaths } from './alarm-delivery.js';
import { bindCheckMetrics, createAlarms } from './alarms.js';
import { grantClusterAccess, grantFleetAccess } from './cluster-access.js';
import { type ClusterScopes, clusterScopes } from './cluster-stacks.js';
import { createDashboard } from './dashboard.js';
import { createDiscovery } from './discovery.js';
import { createDispatcher, type Dispatcher, hasDispatcher } from './dispatch.js';
import { type DurationProps, fileSettingsOf, namingProps } from './duration-props.js';
import { grantPutEvents } from './event-bus.js';
import { grantOnCallSecrets } from './on-call.js';
import { refuseDeployingPlaceholders } from './placeholder-guard.js';
import { createRecheckQueue, type RecheckQueue } from './rechecks.js';
import { createSchedules } from './schedules.js';
import {
  createChatTopic,
  createMachineTopic,
  grantChatPublish,
  grantMachinePublish,
} from './side-topics.js';
import { StateTable } from './state-table.js';
import type { SwitchProps } from './switch-props.js';
import { NotificationTopic } from './topic.js';
import {
  createWatchdogFunction,
  FUNCTION_TIMEOUT_SECONDS,
  type WatchdogFunction,
} from './watchdog-function.js';

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
  FUNCTION_TIMEOUT_SECONDS,
  PREBUILT_HANDLER,
} from './watchdog-function.js';

/**
 * The deployment file's settings (README, "Configuration"), with CDK objects where a CDK app has
 * them. Names and ARNs may be tokens (`topic.topicArn`, `secret.secretArn`, a parameter): they
 * are checked where CloudFormation resolves them; everything known at synth is checked at synth.
 */
export interface LeaseWatchdogProps
  extends Omit<LeaseWatchdogConfig, 'vpc'>,
    DurationProps,
    SwitchProps {
  /**
   * Publish to this existing topic instead of creating one (like `existingTopicArn`; give one
   * or the other). `emails` are subscribed to it. The function may publish to it (and use its
   * key); its policy is its owner's, and must let this account's CloudWatch alarms publish (and
   * its key's policy let `cloudwatch.amazonaws.com` use the key) for the alarms to reach it.
   */
  readonly topic?: sns.ITopic;
  /** Run the function in this VPC, e.g. for private API endpoints. Default: no VPC. */
  readonly vpc?: ec2.IVpc;
  /** Which subnets of `vpc`. Default: its private subnets. */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** The function's security groups in `vpc`. Default: a new one, all egress, no ingress. */
  readonly securityGroups?: readonly ec2.ISecurityGroup[];
  /**
   * The handler module to bundle. Default: `lambda/handler/handler.ts` in a clone of the repository; the
   * bundle shipped in the package (`PREBUILT_HANDLER`) where it is installed.
   */
  readonly entry?: string;
}

export class LeaseWatchdog extends Construct {
  readonly config: DeploymentConfig;
  readonly function: NodejsFunction;
  readonly role: iam.Role;
  readonly topic: sns.ITopic;
  /** The key that encrypts the topic; undefined with `topic` or `existingTopicArn`. */
  readonly topicKey?: kms.Key;
  readonly table: dynamodb.Table;
  readonly logGroup: logs.LogGroup;
  readonly deadLetterQueue: sqs.Queue;
  readonly schedulerRole: iam.Role;
  readonly schedules: ReadonlyMap<string, scheduler.Schedule>;
  /** Discovery's schedule (`{"discover": true}`), with `discover`. */
  readonly discoverySchedule?: scheduler.Schedule | undefined;
  readonly errorsAlarm: cloudwatch.Alarm;
  readonly throttlesAlarm: cloudwatch.Alarm;
  readonly deadLetterAlarm: cloudwatch.Alarm;
  /** "A look was parked in the re-check dead-letter queue" (alarms.ts). */
  readonly recheckDeadLetterAlarm: cloudwatch.Alarm;
  /** "No look of the watchdog's own reached the function for 3 periods" (rechecks.ts). */
  readonly looksStoppedAlarm: cloudwatch.Alarm;
  /** Per cluster: "no successful check for 3 schedule periods". */
  readonly deadMansSwitches: ReadonlyMap<string, cloudwatch.Alarm>;
  /** The alarms' second delivery path (`alarmEmails`, `alarmTopicArn`): empty without one. */
  readonly alarmTopics: readonly sns.ITopic[];
  /** "The notification topic has no confirmed subscription", on the alarm path; none without one. */
  readonly noSubscriberAlarm?: cloudwatch.Alarm;
  /** The watchdog's own looks (re-checks of suspects, routine looks) and their dead-letter queue. */
  readonly recheckQueue: RecheckQueue;
  /** The fleet's dispatcher (`dispatch`, or discovery): its schedule and queues; else undefined. */
  readonly dispatcher?: Dispatcher;
  /** The topic of chat notifications (`chatNotifications`); undefined without it. */
  readonly chatTopic?: sns.ITopic;
  /** The topic of the document with its message attributes (`machineTopic`); undefined without it. */
  readonly machineTopic?: sns.ITopic;
  /** Every cluster's checks, nodes, notifications and dead-man's switch, and the alarms (dashboard.ts); undefined with `dashboard: false`. */
  readonly dashboard?: cloudwatch.Dashboard;
  /** The function's name, for `aws lambda invoke` (a `CfnOutput` of your stack). */
  readonly functionName: string;
  /** The function's log group, for `aws logs tail` (a `CfnOutput` of your stack). */
  readonly logGroupName: string;

  constructor(scope: Construct, id: string, props: LeaseWatchdogProps) {
    super(scope, id);
    const { entry, topic: givenTopic, vpc, vpcSubnets, securityGroups } = props;
    const config = configOf(props);
    this.config = config;
    refuseDeployingPlaceholders(this, config);

    const topic = new NotificationTopic(this, {
      ...config,
      ...(givenTopic === undefined ? {} : { topic: givenTopic }),
    });
    this.topic = topic.topic;
    this.topicKey = topic.key;
    const state = new StateTable(this, {
      removalPolicy: props.tableRemovalPolicy,
      deletionProtection: props.tableDeletionProtection,
    });
    this.table = state.table;

    const watchdog = createWatchdogFunction(
      this,
      config,
      entry,
      vpc === undefined ? undefined : { vpc, vpcSubnets, securityGroups },
    );
    this.function = watchdog.function;
    this.role = watchdog.role;
    this.logGroup = watchdog.logGroup;
    this.functionName = watchdog.function.functionName;
    this.logGroupName = watchdog.logGroup.logGroupName;
    const sides = grantNotifying(this, watchdog.function, topic, config);
    if (sides.chat) this.chatTopic = sides.chat.topic;
    if (sides.machine) this.machineTopic = sides.machine.topic;
    const alarmPaths = createAlarmPaths(this, config);
    this.alarmTopics = alarmPaths.map((path) => path.topic);
    const scopes = grantReading(this, watchdog, state, config);

    this.recheckQueue = createRecheckQueue(this, this.function, FUNCTION_TIMEOUT_SECONDS);

    // Clusters of their own schedule and dead-man's switch: the listed ones, unless dispatched.
    const scheduled = config.dispatch ? { ...config, clusters: [] } : config;
    const schedules = createSchedules(this, this.function, scheduled, scopes.scopeOf);
    this.deadLetterQueue = schedules.deadLetterQueue;
    this.schedulerRole = schedules.schedulerRole;
    this.schedules = schedules.schedules;
    this.discoverySchedule = createDiscovery(
      this,
      this.function,
      this.role,
      config,
      schedules,
    )?.schedule;
    if (hasDispatcher(config)) {
      this.dispatcher = createDispatcher(this, this.function, config, FUNCTION_TIMEOUT_SECONDS, {
        role: schedules.schedulerRole,
        deadLetterQueue: schedules.deadLetterQueue,
      });
    }

    const alarms = createAlarms(this, {
      fn: this.function,
      deadLetterQueue: this.deadLetterQueue,
      recheckQueue: this.recheckQueue.queue,
      recheckDeadLetterQueue: this.recheckQueue.deadLetterQueue,
      topic,
      alarmPaths,
      config: scheduled,
      clusterScopes: scopes,
      dispatchDeadLetterQueue: this.dispatcher?.deadLetterQueue,
    });
    this.errorsAlarm = alarms.errorsAlarm;
    this.throttlesAlarm = alarms.throttlesAlarm;
    this.deadLetterAlarm = alarms.deadLetterAlarm;
    this.recheckDeadLetterAlarm = alarms.recheckDeadLetterAlarm;
    this.looksStoppedAlarm = alarms.looksStoppedAlarm;
    this.deadMansSwitches = alarms.deadMansSwitches;
    if (alarms.noSubscriberAlarm) this.noSubscriberAlarm = alarms.noSubscriberAlarm;
    if (config.dashboard === true) {
      this.dashboard = createDashboard(this, { alarms, config, logGroup: watchdog.logGroup });
    }
  }
}

/** The validated configuration of the props: Durations in the file's units, a given topic as its ARN. */
function configOf(props: LeaseWatchdogProps): DeploymentConfig {
  checkObjects(props);
  const { entry, topic, vpc, vpcSubnets, securityGroups, ...rest } = props;
  const { tableRemovalPolicy, tableDeletionProtection, ...configInput } = rest;
  const { settings, converted } = fileSettingsOf(configInput);
  return namingProps(converted, () =>
    parseDeploymentConfig(
      topic === undefined ? settings : { ...settings, existingTopicArn: topic.topicArn },
    ),
  );
}

/**
 * Lets the function notify: publish to the topic (and count its confirmed subscriptions), to the
 * chat and machine topics, created here when configured, and put events on the event bus.
 */
function grantNotifying(
  scope: Construct,
  fn: NodejsFunction,
  topic: NotificationTopic,
  config: DeploymentConfig,
): { chat?: NotificationTopic | undefined; machine?: NotificationTopic | undefined } {
  topic.grantPublish(fn);
  topic.grantCountSubscriptions(fn);
  const chat = createChatTopic(scope, config);
  if (chat) grantChatPublish(chat, fn);
  const machine = createMachineTopic(scope, config);
  if (machine) grantMachinePublish(machine, fn);
  grantPutEvents(scope, fn, config);
  grantOnCallSecrets(scope, fn, config);
  return { chat, machine };
}

/**
 * Lets the function keep its state, emit the metric the dead-man's switches watch, and read the
 * clusters: a fleet's from nested stacks (cluster-stacks.ts), up to 100 from here as always.
 * Returns where each cluster's own resources go.
 */
function grantReading(
  scope: Construct,
  watchdog: WatchdogFunction,
  state: StateTable,
  config: DeploymentConfig,
): ClusterScopes {
  state.grantStateAccess(watchdog.function);
  bindCheckMetrics(watchdog.function);
  const scopes = clusterScopes(scope, config.clusters);
  if (scopes.nested) {
    grantFleetAccess(watchdog.role, config.clusters, scopes.scopeOf, {
      eksByRegion: config.dispatch,
    });
  } else {
    config.clusters.forEach((cluster, index) => {
      grantClusterAccess(scope, watchdog.role, cluster, index);
    });
  }
  return scopes;
}

/**
 * What the settings' validation cannot see: the CDK objects, and a cluster name (which names
 * construct ids, the schedule and the metrics) that must be known at synth.
 */
function checkObjects(props: LeaseWatchdogProps): void {
  if (props.topic !== undefined && props.existingTopicArn !== undefined) {
    throw new ConfigError('give topic or existingTopicArn, not both: they name the same thing');
  }
  if (props.vpc === undefined) {
    if (props.vpcSubnets !== undefined || props.securityGroups !== undefined) {
      throw new ConfigError('vpcSubnets and securityGroups need vpc: pass the VPC they belong to');
    }
  } else if (!Construct.isConstruct(props.vpc)) {
    throw new ConfigError(
      'vpc must be an ec2.IVpc (e.g. ec2.Vpc.fromLookup); {"vpcId", "subnetIds"} is the deployment file\'s form',
    );
  }
  (props.clusters ?? []).forEach((cluster, i) => {
    if (Token.isUnresolved(cluster?.name)) {
      throw new ConfigError(
        `clusters[${i}].name must be known at synth, not a token: it names the cluster's schedule, alarms and metrics`,
      );
    }
  });
}
