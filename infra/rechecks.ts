/**
 * The watchdog's own looks: an SQS queue (`RecheckQueue`) on which the function sends itself
 * delayed messages (a suspect's re-check at its deadline, routine looks 32, 64 and 96 s after each
 * scheduled run: lambda/use-cases/look-requests.ts), an event source mapping that invokes the function with them
 * (small batches, `ReportBatchItemFailures`), and a dead-letter queue (`RecheckDeadLetterQueue`)
 * for a look that failed `MAX_RECEIVES` times. The function may send to the queue, nothing more.
 * When no look reaches the function for a while (the queue refuses SendMessage, the mapping is
 * disabled), detection falls back on the schedule alone: `looksStopped` is that alarm.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { RUNTIME_ENV } from '../lambda/settings/index.js';

/** Deliveries of one look before it is kept in the dead-letter queue. */
export const MAX_RECEIVES = 3;
/**
 * Looks handed to one invocation at most (each is one check of one cluster); the invocation runs
 * the clusters' looks side by side (lambda/handler/queued-events.ts), so a cluster that hangs
 * holds up no other's.
 */
export const RECHECK_BATCH_SIZE = 5;

export interface RecheckQueue {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
}

/**
 * Creates the queues and the mapping, sets RECHECK_QUEUE_URL on the function and lets it send.
 * `timeoutSeconds`: the function's; the queue hides a message in flight for six times that, as AWS
 * advises for an event source mapping, so a look never runs twice at once.
 */
export function createRecheckQueue(
  scope: Construct,
  fn: lambda.Function,
  timeoutSeconds: number,
): RecheckQueue {
  const deadLetterQueue = deadLetterQueueIn(
    scope,
    'RecheckDeadLetterQueue',
    "This queue is itself the dead-letter queue of the watchdog's own looks: a look the function failed on three times.",
  );
  const queue = new sqs.Queue(scope, 'RecheckQueue', {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout: Duration.seconds(Math.min(43_200, timeoutSeconds * 6)),
    // A look is worth its moment: one an hour late is superseded by the schedule long before.
    retentionPeriod: Duration.hours(1),
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: MAX_RECEIVES },
  });
  fn.addEventSource(
    new SqsEventSource(queue, {
      batchSize: RECHECK_BATCH_SIZE,
      reportBatchItemFailures: true,
    }),
  );
  queue.grantSendMessages(fn);
  fn.addEnvironment(RUNTIME_ENV.recheckQueueUrl, queue.queueUrl);
  return { queue, deadLetterQueue };
}

/**
 * A dead-letter queue (SSE, TLS only, 14 days), with cdk-nag told why it has none of its own
 * (`reason`).
 */
export function deadLetterQueueIn(scope: Construct, id: string, reason: string): sqs.Queue {
  const queue = new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason });
  return queue;
}

/** LooksStoppedAlarm fires after this many periods without a look delivered. */
export const LOOKS_STOPPED_PERIODS = 3;

/**
 * Alarms when no look reached the function for `LOOKS_STOPPED_PERIODS` periods: every scheduled
 * run asks for three (32, 64 and 96 s after it), so none means the queue refuses them or the event
 * source mapping stopped delivering them (or the function fails on every one). It reads the look
 * queue's own `NumberOfMessagesDeleted`: the mapping deletes each look the function handled (one
 * a later run superseded too), and
 * SQS publishes the metric to CloudWatch at no charge (a custom metric would cost $0.30 a month);
 * an idle queue publishes nothing, so missing data is breaching, as for a dead-man's switch
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-available-cloudwatch-metrics.html).
 * Periods of at least 5 minutes, so that a metric published late never cries wolf. While the
 * schedule runs, nodes are still paged, later (the schedule alone).
 */
export function looksStopped(queue: sqs.IQueue, schedulePeriod: Duration): cloudwatch.AlarmProps {
  const period = Duration.minutes(Math.max(5, schedulePeriod.toMinutes()));
  return {
    alarmDescription: `lease-watchdog: no look of the watchdog's own (a suspect's re-check, a routine look between scheduled runs) reached the function for ${LOOKS_STOPPED_PERIODS} periods of ${period.toMinutes()} minutes (the re-check queue's NumberOfMessagesDeleted): the re-check queue refuses SendMessage (the "could not ask for another look" lines in the function's log group say why), or its event source mapping is disabled or failing (aws lambda list-event-source-mappings). Dead nodes are still paged, by the schedule alone: up to a minute or more later.`,
    metric: queue.metricNumberOfMessagesDeleted({ period, statistic: cloudwatch.Stats.SUM }),
    threshold: 1,
    evaluationPeriods: LOOKS_STOPPED_PERIODS,
    comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.BREACHING,
  };
}
