/**
 * What each of the watchdog's alarms watches, and how (the metric, the threshold, missing data):
 * the alarms' properties, built apart from where alarms.ts creates and routes them.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import {
  METRICS_NAMESPACE,
  type MetricName,
  SERVICE_DIMENSIONS,
  SERVICE_NAME,
  type ServiceMetricName,
} from '../lambda/adapters/metrics/metric-names.js';
import { DEAD_MAN_PERIODS } from '../lambda/settings/defaults.js';

/** The metric the function emits (value 1) after each successful check of a cluster. */
export const CHECK_SUCCEEDED_METRIC: MetricName = 'CheckSucceeded';
/**
 * The metric the function emits (namespace `LeaseWatchdog`, dimension `service` only): how many
 * confirmed subscriptions the notification topic has (sns:ListSubscriptionsByTopic, those whose
 * SubscriptionArn is not `PendingConfirmation`).
 */
export const CONFIRMED_SUBSCRIPTIONS_METRIC: ServiceMetricName = 'ConfirmedSubscriptions';
/**
 * The metric the function emits per check: notifications given up because SNS refused them for
 * good on several checks. Emitted per cluster and, in the same EMF line, for the whole deployment
 * (dimension `service` only: `FOR_SERVICE_METRICS` in lambda/adapters/metrics/metric-names.ts), which one alarm watches.
 */
export const NOTIFICATIONS_ABANDONED_METRIC: MetricName = 'NotificationsAbandoned';
/**
 * The metric the function emits when a notification event could not be put on `eventBus`
 * (lambda/adapters/notify/delivery/event-notifier.ts), also for the whole deployment (dimension `service` only).
 */
export const NOTIFICATION_EVENTS_FAILED_METRIC: MetricName = 'NotificationEventsFailed';
/** The dead-man's switch fires after this many schedule periods without a successful check. */
export { DEAD_MAN_PERIODS };

/**
 * Alarms when a look (a suspect's re-check, a routine look) is newly parked in the re-check
 * dead-letter queue: the function failed on it `MAX_RECEIVES` times. SQS moves it there itself,
 * and a message moved by a redrive policy is not counted by the queue's NumberOfMessagesSent (SQS
 * developer guide, "Using dead-letter queues": the metric counts only messages sent to the queue),
 * so the alarm reads the messages present instead: any rise of their count in a period, missing
 * data (an idle, empty queue reports none) counting as none. It returns to OK on its own, and
 * alarms again on every later rise, however many looks are already kept (14 days).
 */
export function parkedLooks(queue: sqs.IQueue): cloudwatch.AlarmProps {
  return parkedMessages(
    queue,
    "lease-watchdog: a look of the watchdog's own (a suspect's re-check, a routine look between scheduled runs) failed 3 times and was parked in the re-check dead-letter queue: the function could not run it. Read the function's log group for the error at that time; the message names the cluster. Alarms again on every new one.",
    'looks newly parked in the re-check dead-letter queue',
  );
}

/** Any rise of the messages in a dead-letter queue in a period of 5 minutes (parkedLooks says why). */
export function parkedMessages(
  queue: sqs.IQueue,
  description: string,
  label: string,
): cloudwatch.AlarmProps {
  return onAnyDatapoint(
    description,
    new cloudwatch.MathExpression({
      expression: 'DIFF(FILL(parked, 0))',
      usingMetrics: {
        parked: queue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(5),
          statistic: cloudwatch.Stats.MAXIMUM,
        }),
      },
      label,
      period: Duration.minutes(5),
    }),
  );
}

/**
 * Alarms when any notification of any cluster was given up in a schedule period: it reached
 * nobody. One alarm whatever the number of clusters (the metric's deployment-wide copy).
 */
export function notificationsAbandoned(period: Duration): cloudwatch.AlarmProps {
  return onAnyDatapoint(
    'lease-watchdog: a notification was given up after SNS refused it for good on several checks (an invalid parameter, a disabled or deleted KMS key, a topic that is gone, a topic or key policy that denies the function): it reached nobody. Find the "notification abandoned" line in the function\'s log group: its cluster, subject and error. Then check that the topic exists and that its policy and its KMS key (enabled, key policy) let the function publish; later notifications are sent as usual once that is fixed.',
    summedForService(NOTIFICATIONS_ABANDONED_METRIC, period),
  );
}

/**
 * Alarms when a notification event of any cluster could not be put on the event bus in a schedule
 * period: the email went out, but the rules on the bus (a pager) did not get it.
 */
export function notificationEventsFailed(period: Duration): cloudwatch.AlarmProps {
  return onAnyDatapoint(
    'lease-watchdog: a notification was not put on the EventBridge event bus (eventBus): the topic sent it, but the rules on the bus (a pager, an API destination) never saw it, and it is not put again. Find the "notification event not put" line in the function\'s log group: its kind, notification id, error and detail. Then check that the bus exists, that its policy lets the function put events, and the PutEvents error.',
    summedForService(NOTIFICATION_EVENTS_FAILED_METRIC, period),
  );
}

/**
 * Alarms when the notification topic had no confirmed subscription in a schedule period. Missing
 * data is not breaching: a function that stops emitting it is the dead-man's switch's to report.
 */
export function noSubscriber(period: Duration): cloudwatch.AlarmProps {
  return {
    alarmDescription:
      'lease-watchdog: the notification topic has no confirmed subscription (an unsubscribe link, or a mail gateway that followed it): node alerts reach nobody. Subscribe the addresses again with aws sns subscribe (a deploy does not re-create a subscription CloudFormation still lists) and confirm them.',
    metric: new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName: CONFIRMED_SUBSCRIPTIONS_METRIC,
      dimensionsMap: { ...SERVICE_DIMENSIONS },
      statistic: cloudwatch.Stats.MAXIMUM,
      period,
    }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  };
}

/** A metric the function writes for the whole deployment (dimension `service` only), summed. */
export function summedForService(metricName: MetricName, period: Duration): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { ...SERVICE_DIMENSIONS },
    statistic: cloudwatch.Stats.SUM,
    period,
  });
}

/** Alarms on any datapoint of 1 or more in one period; no data is fine. */
export function onAnyDatapoint(
  alarmDescription: string,
  metric: cloudwatch.IMetric,
): cloudwatch.AlarmProps {
  return {
    alarmDescription,
    metric,
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  };
}

/** Alarms when no successful check of the cluster is counted for `DEAD_MAN_PERIODS` periods. */
export function deadMansSwitch(cluster: string, period: Duration): cloudwatch.AlarmProps {
  return {
    alarmDescription: `lease-watchdog: no successful check of cluster ${cluster} for ${DEAD_MAN_PERIODS} schedule periods. The watchdog is not watching it: look for WATCHDOG notifications and the function's errors.`,
    metric: new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName: CHECK_SUCCEEDED_METRIC,
      dimensionsMap: { service: SERVICE_NAME, cluster },
      statistic: cloudwatch.Stats.SUM,
      period,
    }),
    threshold: 1,
    evaluationPeriods: DEAD_MAN_PERIODS,
    comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.BREACHING,
  };
}
