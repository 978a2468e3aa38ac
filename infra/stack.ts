/** The deployable stack: one `LeaseWatchdog` from a validated configuration, and its outputs. */
import { type App, CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import type { AppDeploymentConfig, DeploymentConfig } from '../lambda/settings/index.js';
import { LeaseWatchdog, type LeaseWatchdogProps } from './lease-watchdog.js';
import { importVpcPlacement } from './vpc-placement.js';

export interface LeaseWatchdogStackProps extends StackProps {
  readonly watchdog: LeaseWatchdogProps;
  /** The deployment file's `vpc` (ids): imported into the stack and given to the construct. */
  readonly vpcIds?: DeploymentConfig['vpc'];
}

export class LeaseWatchdogStack extends Stack {
  readonly watchdog: LeaseWatchdog;

  constructor(scope: Construct, id: string, props: LeaseWatchdogStackProps) {
    const { watchdog, vpcIds, ...stackProps } = props;
    super(scope, id, {
      description:
        'lease-watchdog: notifies by SNS and email when a Kubernetes node stops heart-beating',
      ...stackProps,
    });
    this.watchdog = new LeaseWatchdog(this, 'Watchdog', {
      ...watchdog,
      ...importVpcPlacement(this, { vpc: vpcIds }),
    });

    new CfnOutput(this, 'FunctionName', {
      description:
        'aws lambda invoke --function-name <this> --payload \'{"cluster":"<name>"}\' --cli-binary-format raw-in-base64-out out.json',
      value: this.watchdog.functionName,
    });
    new CfnOutput(this, 'LogGroupName', { value: this.watchdog.logGroupName });
    new CfnOutput(this, 'FunctionRoleArn', {
      description:
        'The IAM role clusters must map to the Kubernetes group lease-watchdog; the role a cluster in another account gives as auth.roleArn must trust it',
      value: this.watchdog.role.roleArn,
    });
    new CfnOutput(this, 'TopicArn', { value: this.watchdog.topic.topicArn });
    if (this.watchdog.chatTopic) {
      new CfnOutput(this, 'ChatTopicArn', { value: this.watchdog.chatTopic.topicArn });
    }
    if (this.watchdog.machineTopic) {
      new CfnOutput(this, 'MachineTopicArn', {
        description:
          'The JSON document of each notification, String structure, with message attributes for subscription filter policies',
        value: this.watchdog.machineTopic.topicArn,
      });
    }
    new CfnOutput(this, 'StateTableName', { value: this.watchdog.table.tableName });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.watchdog.deadLetterQueue.queueUrl });
    if (this.watchdog.dashboard) {
      new CfnOutput(this, 'DashboardName', {
        description:
          'The CloudWatch dashboard of every cluster and of the alarms (CloudWatch, Dashboards)',
        value: this.watchdog.dashboard.dashboardName,
      });
    }
  }
}

/**
 * The app's one stack from a validated configuration file, checked by cdk-nag's AwsSolutions pack
 * at synth (any unacknowledged finding fails the synth).
 */
export function buildStack(app: App, config: AppDeploymentConfig): LeaseWatchdogStack {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const { account, region, stackName, vpc, ...watchdog } = config;
  return new LeaseWatchdogStack(app, stackName, {
    watchdog,
    vpcIds: vpc,
    ...(account !== undefined || region !== undefined ? { env: { account, region } } : {}),
  });
}
