/**
 * `LeaseWatchdog`: everything one watchdog runs on, with the good defaults baked in.
 *
 * One function, one schedule per cluster (input `{"cluster": "<name>"}`), a KMS-encrypted SNS topic
 * (or an existing one), a DynamoDB state table, least-privilege access to the configured secrets and
 * clusters, and alarms that watch the watchdog itself, all notifying the same topic.
 */
import { fileURLToPath } from 'node:url';
import {
  Arn,
  ArnFormat,
  CfnCondition,
  Duration,
  Fn,
  RemovalPolicy,
  Stack,
  Token,
  Validations,
} from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { CfnAccessEntry } from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../lambda/metrics.js';
import {
  type ClusterAuth,
  ConfigError,
  type DeployedCluster,
  type DeploymentConfig,
  fastModeSpanSeconds,
  type LeaseWatchdogConfig,
  parseDeploymentConfig,
  watchdogSettingsOf,
} from '../lambda/settings/index.js';

/** The Kubernetes group the function's role is mapped to (bound by deploy/rbac.yaml). */
export const KUBERNETES_GROUP = 'lease-watchdog';
/** The metric the function emits (value 1) after each successful check of a cluster. */
export const CHECK_SUCCEEDED_METRIC = 'CheckSucceeded';
/** The dead-man's switch fires after this many schedule periods without a successful check. */
export const DEAD_MAN_PERIODS = 3;
/** Time allowed for one check (list leases and nodes, decide, publish, save), on top of the fast-mode span. */
export const CHECK_BUDGET_SECONDS = 45;

/** The handler the stack bundles: the same module the tests exercise. */
export const DEFAULT_ENTRY = fileURLToPath(new URL('../lambda/handler.ts', import.meta.url));

/** esbuild emits ESM; some dependencies still call `require`: define it from the module URL. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __lwCreateRequire } from 'node:module'; const require = __lwCreateRequire(import.meta.url);";

/**
 * The DynamoDB actions the state store (lambda/state/dynamodb-store.ts) uses, on the table only:
 * GetItem, Query, conditional PutItem, and BatchWriteItem of puts and deletes. No Scan, no
 * streams, no DDL. A store that starts using another action must add it here.
 */
export const STATE_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

export interface LeaseWatchdogProps extends LeaseWatchdogConfig {
  /** The handler module to bundle. Default: this repository's `lambda/handler.ts`. */
  readonly entry?: string;
}

/** Seconds the function may run: one check, plus the fast-mode span; at least a minute. */
export function functionTimeoutSeconds(config: DeploymentConfig): number {
  return Math.min(900, Math.max(60, fastModeSpanSeconds(config.fastMode) + CHECK_BUDGET_SECONDS));
}

/** `rate(1 minute)`, `rate(5 minutes)`. */
export function scheduleExpressionOf(minutes: number): string {
  return `rate(${minutes} ${minutes === 1 ? 'minute' : 'minutes'})`;
}

/** A construct id from a cluster name (which may hold '.', '_' and '-'). */
function idFor(name: string): string {
  return name.replace(/[^A-Za-z0-9]/g, '-');
}

/**
 * `LambdaInvoke` whose role may invoke the function's unqualified ARN only (the stock target also
 * grants `<arn>:*`, every version and alias, which the schedules never call).
 */
class InvokeFunction extends LambdaInvoke {
  constructor(
    private readonly fn: lambda.IFunction,
    props: ConstructorParameters<typeof LambdaInvoke>[1],
  ) {
    super(fn, props);
  }

  protected override addTargetActionToRole(role: iam.IRole): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: [this.fn.functionArn],
      }),
    );
  }
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

  constructor(scope: Construct, id: string, props: LeaseWatchdogProps) {
    super(scope, id);
    const { entry = DEFAULT_ENTRY, ...configInput } = props;
    const config = parseDeploymentConfig(configInput);
    this.config = config;
    const stack = Stack.of(this);
    const period = Duration.minutes(config.scheduleMinutes);

    // --- Notifications -----------------------------------------------------------------------
    if (config.existingTopicArn === undefined) {
      const key = new kms.Key(this, 'TopicKey', {
        description: 'lease-watchdog: encrypts the notification topic',
        enableKeyRotation: true,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      // CloudWatch alarm actions publish to the encrypted topic as the CloudWatch service.
      key.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'AllowCloudWatchAlarmsToPublishToTheTopic',
          principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
          actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          resources: ['*'],
        }),
      );
      this.topicKey = key;
      this.topic = new sns.Topic(this, 'Topic', {
        displayName: 'lease-watchdog',
        masterKey: key,
        enforceSSL: true,
      });
    } else {
      this.topic = sns.Topic.fromTopicArn(this, 'Topic', config.existingTopicArn);
    }
    for (const email of config.emails) {
      this.topic.addSubscription(new subscriptions.EmailSubscription(email));
    }

    // --- State ---------------------------------------------------------------------------------
    this.table = new dynamodb.Table(this, 'StateTable', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: 'expiresAt',
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The AWS-managed key (aws/dynamodb): encrypted at rest and auditable in CloudTrail, with no
      // key policy to maintain. The state holds lease times and incident bookkeeping only.
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      // The state is rebuilt from the cluster on the next checks; it is worthless without the watchdog.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // --- The function ----------------------------------------------------------------------------
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: config.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new iam.Role(this, 'FunctionRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'lease-watchdog function: reads the configured clusters, keeps state, notifies',
    });
    // Instead of AWSLambdaBasicExecutionRole (logs on every group): this log group only.
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'WriteOwnLogs',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    const vpcPlacement = this.vpcPlacement(config);
    if (vpcPlacement) {
      this.role.addManagedPolicy(
        iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaVPCAccessExecutionRole'),
      );
      Validations.of(this.role).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
        reason:
          'Lambda needs to create, describe and delete its ENIs in the configured subnets; AWS maintains this policy for exactly that, and ec2:Describe* cannot be scoped to a resource.',
      });
    }

    const settings = watchdogSettingsOf(config);
    this.function = new NodejsFunction(this, 'Function', {
      description:
        'lease-watchdog: checks node Leases and notifies when a node stops heart-beating',
      entry,
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: config.memoryMb,
      timeout: Duration.seconds(functionTimeoutSeconds(config)),
      reservedConcurrentExecutions: config.reservedConcurrency,
      // The schedule is the retry: the next tick checks again, and the Errors alarm reports the
      // failure. A throttled event older than one period is superseded by the next tick: drop it.
      retryAttempts: 0,
      maxEventAge: period,
      role: this.role,
      logGroup: this.logGroup,
      tracing: lambda.Tracing.ACTIVE,
      ...vpcPlacement,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        LEASE_WATCHDOG_SETTINGS: JSON.stringify(settings),
        TOPIC_ARN: this.topic.topicArn,
        STATE_TABLE: this.table.tableName,
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      },
      bundling: {
        format: OutputFormat.ESM,
        minify: true,
        sourceMap: true,
        target: 'node24',
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        // Bundle the pinned AWS SDK too: the deployed code is the code the tests ran.
        externalModules: [],
        forceDockerBundling: false,
      },
    });
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, so AWS requires Resource "*". Every other statement names its resource.',
    });

    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'PublishNotifications',
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
      }),
    );
    if (this.topicKey) {
      // SNS encrypts each published message with a data key from the topic's key, for this topic only.
      this.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'EncryptNotifications',
          actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
          resources: [this.topicKey.keyArn],
          conditions: {
            StringEquals: { 'kms:EncryptionContext:aws:sns:topicArn': this.topic.topicArn },
          },
        }),
      );
    }
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ReadWriteStateTable',
        actions: STATE_TABLE_ACTIONS,
        resources: [this.table.tableArn],
      }),
    );
    config.clusters.forEach((cluster, index) => {
      this.grantClusterAccess(cluster, index);
    });

    // --- Schedules -----------------------------------------------------------------------------
    this.deadLetterQueue = new sqs.Queue(this, 'ScheduleDeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter queue: it receives the schedule invocations EventBridge Scheduler could not deliver, and its own alarm reports any message in it.',
    });
    const scheduleGroupArn = stack.formatArn({
      service: 'scheduler',
      resource: 'schedule-group',
      resourceName: 'default',
    });
    this.schedulerRole = new iam.Role(this, 'SchedulerRole', {
      description:
        'lease-watchdog schedules: invoke the function, dead-letter undeliverable invocations',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account, 'aws:SourceArn': scheduleGroupArn },
        },
      }),
    });
    const schedules = new Map<string, scheduler.Schedule>();
    for (const cluster of config.clusters) {
      schedules.set(
        cluster.name,
        new scheduler.Schedule(this, `Schedule-${idFor(cluster.name)}`, {
          description: `lease-watchdog: check cluster ${cluster.name}`,
          schedule: scheduler.ScheduleExpression.rate(period),
          target: new InvokeFunction(this.function, {
            role: this.schedulerRole,
            input: scheduler.ScheduleTargetInput.fromObject({ cluster: cluster.name }),
            deadLetterQueue: this.deadLetterQueue,
            maxEventAge: Duration.minutes(2),
            retryAttempts: 2,
          }),
        }),
      );
    }
    this.schedules = schedules;

    // --- Alarms: the watchdog watches itself -------------------------------------------------
    const notify = new SnsAction(this.topic);
    const alarm = (alarmId: string, props: cloudwatch.AlarmProps): cloudwatch.Alarm => {
      const created = new cloudwatch.Alarm(this, alarmId, props);
      created.addAlarmAction(notify);
      created.addOkAction(notify);
      return created;
    };
    this.errorsAlarm = alarm('ErrorsAlarm', {
      alarmDescription:
        'lease-watchdog: the function failed (a check threw, timed out or could not start). Read its log group for the error.',
      metric: this.function.metricErrors({ period, statistic: cloudwatch.Stats.SUM }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.throttlesAlarm = alarm('ThrottlesAlarm', {
      alarmDescription:
        'lease-watchdog: invocations were throttled at the reserved concurrency cap; checks are running long or piling up.',
      metric: this.function.metricThrottles({ period, statistic: cloudwatch.Stats.SUM }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.deadLetterAlarm = alarm('DeadLetterAlarm', {
      alarmDescription:
        'lease-watchdog: EventBridge Scheduler could not invoke the function; the undelivered invocations are in the dead-letter queue.',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const switches = new Map<string, cloudwatch.Alarm>();
    for (const cluster of config.clusters) {
      switches.set(
        cluster.name,
        alarm(`NoSuccessfulCheck-${idFor(cluster.name)}`, {
          alarmDescription: `lease-watchdog: no successful check of cluster ${cluster.name} for ${DEAD_MAN_PERIODS} schedule periods. The watchdog is not watching it: look for WATCHDOG notifications and the function's errors.`,
          metric: new cloudwatch.Metric({
            namespace: METRICS_NAMESPACE,
            metricName: CHECK_SUCCEEDED_METRIC,
            dimensionsMap: { service: SERVICE_NAME, cluster: cluster.name },
            statistic: cloudwatch.Stats.SUM,
            period,
          }),
          threshold: 1,
          evaluationPeriods: DEAD_MAN_PERIODS,
          comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.BREACHING,
        }),
      );
    }
    this.deadMansSwitches = switches;

    if (this.topicKey) {
      // The topic's own policy (it holds the SSL-only statement) replaces SNS's default policy, so
      // it must let these alarms publish; the key policy above lets them encrypt.
      const alarms = [
        this.errorsAlarm,
        this.throttlesAlarm,
        this.deadLetterAlarm,
        ...switches.values(),
      ];
      this.topic.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'AllowTheseAlarmsToPublish',
          principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
          actions: ['sns:Publish'],
          resources: [this.topic.topicArn],
          conditions: { ArnLike: { 'aws:SourceArn': alarms.map((a) => a.alarmArn) } },
        }),
      );
    }
  }

  private vpcPlacement(
    config: DeploymentConfig,
  ): Pick<lambda.FunctionProps, 'vpc' | 'vpcSubnets' | 'securityGroups'> | undefined {
    if (config.vpc === undefined) return undefined;
    const { vpcId, subnetIds, securityGroupIds } = config.vpc;
    // Attributes, not lookups: synth stays offline.
    const vpc = ec2.Vpc.fromVpcAttributes(this, 'Vpc', { vpcId, availabilityZones: Fn.getAzs() });
    const subnets = subnetIds.map((subnetId, i) =>
      ec2.Subnet.fromSubnetId(this, `Subnet${i}`, subnetId),
    );
    const placement: Pick<lambda.FunctionProps, 'vpc' | 'vpcSubnets' | 'securityGroups'> = {
      vpc,
      vpcSubnets: { subnets },
    };
    if (securityGroupIds !== undefined) {
      return {
        ...placement,
        securityGroups: securityGroupIds.map((sgId, i) =>
          ec2.SecurityGroup.fromSecurityGroupId(this, `SecurityGroup${i}`, sgId, {
            mutable: false,
          }),
        ),
      };
    }
    return placement;
  }

  /** Read access to exactly what this cluster's auth mode needs. */
  private grantClusterAccess(cluster: DeployedCluster, index: number): void {
    const auth: ClusterAuth = cluster.auth;
    const sid = `Cluster${index}`;
    switch (auth.mode) {
      case 'kubeconfig':
      case 'token': {
        const secretId = auth.mode === 'kubeconfig' ? auth.secretId : auth.tokenSecretId;
        this.role.addToPrincipalPolicy(
          new iam.PolicyStatement({
            sid: `${sid}ReadSecret`,
            actions: ['secretsmanager:GetSecretValue'],
            resources: this.secretArns(secretId),
          }),
        );
        return;
      }
      case 'eks': {
        const stack = Stack.of(this);
        const clusterArn = stack.formatArn({
          service: 'eks',
          resource: 'cluster',
          resourceName: auth.clusterName,
          region: auth.region ?? stack.region,
        });
        this.role.addToPrincipalPolicy(
          new iam.PolicyStatement({
            sid: `${sid}DescribeEksCluster`,
            actions: ['eks:DescribeCluster'],
            resources: [clusterArn],
          }),
        );
        if (cluster.accessEntry) this.addAccessEntry(cluster, auth, index);
        return;
      }
    }
  }

  private addAccessEntry(
    cluster: DeployedCluster,
    auth: ClusterAuth & { mode: 'eks' },
    index: number,
  ): void {
    const stack = Stack.of(this);
    const stackRegion = Token.isUnresolved(stack.region) ? undefined : stack.region;
    if (auth.region !== undefined && stackRegion !== undefined && auth.region !== stackRegion) {
      throw new ConfigError(
        `clusters[${index}].accessEntry must be false: cluster ${cluster.name} is in ${auth.region} but the stack deploys to ${stackRegion}, and CloudFormation creates access entries in its own region only (create the entry yourself, see deploy/rbac.yaml)`,
      );
    }
    const entry = new CfnAccessEntry(this, `AccessEntry-${idFor(cluster.name)}`, {
      clusterName: auth.clusterName,
      principalArn: this.role.roleArn,
      kubernetesGroups: [KUBERNETES_GROUP],
      type: 'STANDARD',
    });
    if (auth.region !== undefined && stackRegion === undefined) {
      // An environment-agnostic stack learns its region at deploy time: create the entry only there.
      entry.cfnOptions.condition = new CfnCondition(
        this,
        `InClusterRegion-${idFor(cluster.name)}`,
        {
          expression: Fn.conditionEquals(Stack.of(this).region, auth.region),
        },
      );
    }
  }

  /**
   * The secret's ARNs for IAM. A name matches `<name>-??????` (Secrets Manager appends six random
   * characters); an ARN may be complete or partial, so both it and `<arn>-??????` are listed.
   */
  private secretArns(secretId: string): string[] {
    if (secretId.startsWith('arn:')) {
      const parsed = Arn.split(secretId, ArnFormat.COLON_RESOURCE_NAME);
      if (parsed.service === 'secretsmanager') return [secretId, `${secretId}-??????`];
    }
    return [
      Stack.of(this).formatArn({
        service: 'secretsmanager',
        resource: 'secret',
        resourceName: `${secretId}-??????`,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
    ];
  }
}
