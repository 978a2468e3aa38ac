/**
 * The fleet's dispatcher (docs/FLEET.md): one schedule (`DispatchSchedule`, input
 * `{"dispatch": {"periodSeconds": N}}`) that invokes the function once a period; the queue it fans
 * each cluster's check out on (`DispatchQueue`, SSE, TLS only), its dead-letter queue
 * (`DispatchDeadLetterQueue`, for a check the function failed on `MAX_RECEIVES` times), and the
 * event source mapping that runs each check in an invocation of its own (batch size 1, at most
 * `dispatchConcurrency` at once). The function may send to the queue, nothing more; the mapping's
 * receive and delete rights are the function role's (CDK's SqsEventSource grants exactly those).
 *
 * A deployment has a dispatcher when `dispatch` is set (its listed clusters then have no schedule
 * or dead-man's switch of their own) or discovery is configured (discovered clusters never have).
 */
import { Duration } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { type DeploymentConfig, RUNTIME_ENV } from '../lambda/settings/index.js';
import { deadLetterQueueIn, MAX_RECEIVES } from './rechecks.js';
import { InvokeFunction } from './schedules.js';

/** Lambda's bounds on an SQS event source mapping's MaximumConcurrency. */
const LEAST_MAXIMUM_CONCURRENCY = 2;
const MOST_MAXIMUM_CONCURRENCY = 1_000;

export interface Dispatcher {
  readonly schedule: scheduler.Schedule;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  /** The mapping's MaximumConcurrency. */
  readonly maxConcurrency: number;
}

/**
 * Whether the deployment has a dispatcher: `dispatch`, or a `discover` section (whose clusters
 * have no schedule of their own).
 */
export function hasDispatcher(
  config: Pick<DeploymentConfig, 'dispatch'> & { readonly discover?: unknown },
): boolean {
  return config.dispatch === true || config.discover !== undefined;
}

/**
 * How many dispatched checks may run at once: half the function's reserved concurrency (the
 * other half for the looks, the dispatcher and the schedules), within Lambda's 2 to 1,000.
 */
export function dispatchConcurrency(reservedConcurrency: number): number {
  return Math.min(
    MOST_MAXIMUM_CONCURRENCY,
    Math.max(LEAST_MAXIMUM_CONCURRENCY, Math.floor(reservedConcurrency / 2)),
  );
}

/**
 * Creates the dispatcher in `scope`, sets DISPATCH_QUEUE_URL on the function and lets it send.
 * `timeoutSeconds`: the function's (the queue hides a message in flight for six times that, as
 * AWS advises for an event source mapping); `scheduling`: the schedules' role and dead-letter queue.
 */
export function createDispatcher(
  scope: Construct,
  fn: lambda.Function,
  config: Pick<DeploymentConfig, 'scheduleMinutes' | 'reservedConcurrency'>,
  timeoutSeconds: number,
  scheduling: { readonly role: iam.IRole; readonly deadLetterQueue: sqs.IQueue },
): Dispatcher {
  const deadLetterQueue = deadLetterQueueIn(
    scope,
    'DispatchDeadLetterQueue',
    "This queue is itself the dead-letter queue of the dispatcher's checks: a check the function failed on three times.",
  );
  const period = Duration.minutes(config.scheduleMinutes);
  const queue = new sqs.Queue(scope, 'DispatchQueue', {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout: Duration.seconds(Math.min(43_200, timeoutSeconds * 6)),
    // A check is worth its period: the next dispatcher run sends a fresh one.
    retentionPeriod: Duration.seconds(Math.max(60, period.toSeconds())),
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: MAX_RECEIVES },
  });
  const maxConcurrency = dispatchConcurrency(config.reservedConcurrency);
  fn.addEventSource(
    new SqsEventSource(queue, { batchSize: 1, maxConcurrency, reportBatchItemFailures: true }),
  );
  queue.grantSendMessages(fn);
  fn.addEnvironment(RUNTIME_ENV.dispatchQueueUrl, queue.queueUrl);
  const schedule = new scheduler.Schedule(scope, 'DispatchSchedule', {
    description: "lease-watchdog: dispatch every cluster's check",
    schedule: scheduler.ScheduleExpression.rate(period),
    target: new InvokeFunction(fn, {
      role: scheduling.role,
      input: scheduler.ScheduleTargetInput.fromObject({
        dispatch: { periodSeconds: period.toSeconds() },
      }),
      deadLetterQueue: scheduling.deadLetterQueue,
      maxEventAge: Duration.minutes(2),
      retryAttempts: 2,
    }),
  });
  return { schedule, queue, deadLetterQueue, maxConcurrency };
}
