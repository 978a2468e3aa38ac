/**
 * One EventBridge Scheduler schedule per cluster (input `{"cluster": "<name>"}`), a role that may
 * invoke the function only, and the dead-letter queue for invocations it could not deliver.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { DeploymentConfig } from '../lambda/settings/index.js';
import { idFor } from './construct-id.js';
import { deadLetterQueueIn } from './rechecks.js';

/**
 * `LambdaInvoke` whose role may invoke the function's unqualified ARN only (the stock target also
 * grants `<arn>:*`, every version and alias, which the schedules never call).
 */
export class InvokeFunction extends LambdaInvoke {
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

export interface WatchdogSchedules {
  readonly deadLetterQueue: sqs.Queue;
  readonly schedulerRole: iam.Role;
  /** By cluster name. */
  readonly schedules: ReadonlyMap<string, scheduler.Schedule>;
}

/**
 * Creates, in the given scope, `ScheduleDeadLetterQueue`, `SchedulerRole` and one
 * `Schedule-<cluster>` per cluster, every `scheduleMinutes`.
 */
export function createSchedules(
  scope: Construct,
  fn: lambda.IFunction,
  config: Pick<DeploymentConfig, 'clusters' | 'scheduleMinutes'>,
  /** Where a cluster's schedule goes (cluster-stacks.ts); default `scope`. */
  scopeOf: (cluster: string) => Construct = () => scope,
): WatchdogSchedules {
  const deadLetterQueue = deadLetterQueueIn(
    scope,
    'ScheduleDeadLetterQueue',
    'This queue is itself the dead-letter queue: it receives the schedule invocations EventBridge Scheduler could not deliver, and its own alarm reports any message in it.',
  );
  const schedulerRole = schedulerRoleIn(scope);
  const period = Duration.minutes(config.scheduleMinutes);
  const schedules = new Map<string, scheduler.Schedule>();
  for (const cluster of config.clusters) {
    schedules.set(
      cluster.name,
      new scheduler.Schedule(scopeOf(cluster.name), `Schedule-${idFor(cluster.name)}`, {
        description: `lease-watchdog: check cluster ${cluster.name}`,
        schedule: scheduler.ScheduleExpression.rate(period),
        target: new InvokeFunction(fn, {
          role: schedulerRole,
          input: scheduler.ScheduleTargetInput.fromObject({ cluster: cluster.name }),
          deadLetterQueue,
          maxEventAge: Duration.minutes(2),
          retryAttempts: 2,
        }),
      }),
    );
  }
  return { deadLetterQueue, schedulerRole, schedules };
}

/** The role the schedules assume: only this account's schedules in the default group. */
function schedulerRoleIn(scope: Construct): iam.Role {
  const stack = Stack.of(scope);
  const scheduleGroupArn = stack.formatArn({
    service: 'scheduler',
    resource: 'schedule-group',
    resourceName: 'default',
  });
  return new iam.Role(scope, 'SchedulerRole', {
    description:
      'lease-watchdog schedules: invoke the function, dead-letter undeliverable invocations',
    assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account, 'aws:SourceArn': scheduleGroupArn },
      },
    }),
  });
}
