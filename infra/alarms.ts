/**
 * The watchdog watches itself: alarms on the function's errors and throttles, on undelivered
 * schedule invocations, on looks parked in the re-check dead-letter queue or no longer arriving, on notifications given up (one alarm over every cluster), on notification
 * events EventBridge did not take (only with `eventBus`), and one dead-man's switch per cluster; every alarm notifies the topic on
 * ALARM and on OK, and the alarm paths too when there are any (alarm-delivery.ts), which also get
 * an alarm when the notification topic has no confirmed subscription left.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  METRICS_NAMESPACE,
  type MetricName,
  SERVICE_DIMENSIONS,
  SERVICE_NAME,
  type ServiceMetricName,
} from '../lambda/adapters/metrics/metric-names.js';
import { RECEIVERS } from '../lambda/adapters/on-call/receivers.js';
import type { DeploymentConfig } from '../lambda/settings/index.js';
import { alarmName } from './alarm-names.js';
import type { ClusterScopes } from './cluster-stacks.js';
import { idFor } from './construct-id.js';
import { looksStopped } from './rechecks.js';
import type { NotificationTopic } from './topic.js';

export {
  CHECK_SUCCEEDED_METRIC,
  CONFIRMED_SUBSCRIPTIONS_METRIC,
  DEAD_MAN_PERIODS,
  NOTIFICATION_EVENTS_FAILED_METRIC,
  NOTIFICATIONS_ABANDONED_METRIC,
} from './alarm-props.js';

import {
  DEAD_MAN_PERIODS,
  deadMansSwitch,
  noSubscriber,
  notificationEventsFailed,
  notificationsAbandoned,
  onAnyDatapoint,
  parkedLooks,
  parkedMessages,
} from './alarm-props.js';

/**
 * Sets the Powertools service name and namespace, under which the function emits
 * `CHECK_SUCCEEDED_METRIC`: the dimension and namespace the dead-man's switches watch.
 */
export function bindCheckMetrics(fn: lambda.Function): void {
  fn.addEnvironment('POWERTOOLS_SERVICE_NAME', SERVICE_NAME);
  fn.addEnvironment('POWERTOOLS_METRICS_NAMESPACE', METRICS_NAMESPACE);
}

export interface WatchdogAlarms {
  readonly errorsAlarm: cloudwatch.Alarm;
  readonly throttlesAlarm: cloudwatch.Alarm;
  readonly deadLetterAlarm: cloudwatch.Alarm;
  /** "A look of the watchdog's own failed `MAX_RECEIVES` times and was parked" (rechecks.ts). */
  readonly recheckDeadLetterAlarm: cloudwatch.Alarm;
  /** "No look of the watchdog's own reached the function for 3 periods" (rechecks.ts). */
  readonly looksStoppedAlarm: cloudwatch.Alarm;
  /** "A notification was given up": one alarm, over every cluster. */
  readonly abandonedAlarm: cloudwatch.Alarm;
  /** "A notification event was not put on the event bus": one alarm, only with `eventBus`. */
  readonly eventsFailedAlarm?: cloudwatch.Alarm;
  /** "An on-call event was not delivered": one alarm per paging receiver switched on. */
  readonly onCallFailedAlarms: readonly cloudwatch.Alarm[];
  /** The fleet-wide dead-man's switch, its dispatcher's own, and parked checks: with a dispatcher. */
  readonly clustersOverdueAlarm?: cloudwatch.Alarm;
  readonly dispatcherStoppedAlarm?: cloudwatch.Alarm;
  readonly dispatchDeadLetterAlarm?: cloudwatch.Alarm;
  /** Per cluster: "no successful check for `DEAD_MAN_PERIODS` schedule periods". */
  readonly deadMansSwitches: ReadonlyMap<string, cloudwatch.Alarm>;
  /** "The notification topic has no confirmed subscription": only with an alarm path, notifying it. */
  readonly noSubscriberAlarm?: cloudwatch.Alarm;
}

export interface WatchdogAlarmsProps {
  readonly fn: lambda.IFunction;
  readonly deadLetterQueue: sqs.IQueue;
  /** The queue of the watchdog's own looks, and its dead-letter queue (rechecks.ts). */
  readonly recheckQueue: sqs.IQueue;
  readonly recheckDeadLetterQueue: sqs.IQueue;
  readonly topic: NotificationTopic;
  /** The second delivery path: every alarm notifies these too. */
  readonly alarmPaths?: readonly NotificationTopic[];
  readonly config: DeploymentConfig;
  /** Where a cluster's dead-man's switch goes (cluster-stacks.ts); default the given scope. */
  readonly clusterScopes?: ClusterScopes;
  /** The fleet's dispatcher (dispatch.ts), when there is one: its switch and queue alarms. */
  readonly dispatchDeadLetterQueue?: sqs.IQueue;
}

/** Creates the alarms in the given scope and lets them publish to the topic. */
export function createAlarms(scope: Construct, props: WatchdogAlarmsProps): WatchdogAlarms {
  const { topic, config, alarmPaths = [], clusterScopes } = props;
  const period = Duration.minutes(config.scheduleMinutes);
  const prefix = Stack.of(scope).stackName;
  const alarm = alarmFactory(scope, prefix, [topic, ...alarmPaths]);
  const deploymentWide = deploymentAlarms(alarm, props, period);
  // In nested stacks (a fleet), the topic's policy names the switches with one pattern (their
  // names all start with the stack's): 300 alarm ARNs would pass its 30 KB.
  const nested = clusterScopes?.nested === true;
  const deadMansSwitches = new Map<string, cloudwatch.Alarm>();
  for (const cluster of config.clusters) {
    deadMansSwitches.set(
      cluster.name,
      alarm(
        `NoSuccessfulCheck-${idFor(cluster.name)}`,
        { ...deadMansSwitch(cluster.name, period), alarmName: switchName(prefix, cluster.name) },
        undefined,
        clusterScopes?.scopeOf(cluster.name) ?? scope,
      ),
    );
  }
  // In the order they were created (the order of the topic policy's conditions).
  const listed = Object.values(deploymentWide)
    .flat()
    .filter((a) => a !== undefined);
  const alarms = nested ? listed : [...listed, ...deadMansSwitches.values()];
  const namedLike = nested ? [`${prefix}-NoSuccessfulCheck-*`] : [];
  topic.allowAlarmsToPublish(alarms, namedLike);
  const created = { ...deploymentWide, deadMansSwitches };
  if (alarmPaths.length === 0) return created;
  // Told on the alarm paths only: the notification topic is the one that lost its subscribers.
  const noSubscriberAlarm = alarm('NoConfirmedSubscription', noSubscriber(period), alarmPaths);
  for (const path of alarmPaths)
    path.allowAlarmsToPublish([...alarms, noSubscriberAlarm], namedLike);
  return { ...created, noSubscriberAlarm };
}

/** The name of a cluster's dead-man's switch: `<stackName>-NoSuccessfulCheck-<cluster>`. */
export function switchName(stackName: string, cluster: string): string {
  return alarmName(stackName, `NoSuccessfulCheck-${cluster}`);
}

/**
 * Creates alarm `id` (in the given scope, unless told where) notifying `to` on ALARM and on OK,
 * named `<stackName>-<id>` unless its props name it (alarm-names.ts).
 */
type AlarmFactory = (
  id: string,
  alarmProps: cloudwatch.AlarmProps,
  to?: readonly NotificationTopic[],
  where?: Construct,
) => cloudwatch.Alarm;

/** Alarms in `scope`, named after `prefix`, that notify `everyTopic` unless told otherwise. */
function alarmFactory(
  scope: Construct,
  prefix: string,
  everyTopic: readonly NotificationTopic[],
): AlarmFactory {
  return (id, alarmProps, to = everyTopic, where = scope) => {
    const created = new cloudwatch.Alarm(where, id, {
      alarmName: alarmName(prefix, id),
      ...alarmProps,
    });
    for (const target of to) {
      created.addAlarmAction(target.alarmAction);
      created.addOkAction(target.alarmAction);
    }
    return created;
  };
}

/** The alarms over the whole deployment, in the order the topic's policy lists them. */
type DeploymentAlarms = Pick<
  WatchdogAlarms,
  | 'errorsAlarm'
  | 'throttlesAlarm'
  | 'deadLetterAlarm'
  | 'recheckDeadLetterAlarm'
  | 'looksStoppedAlarm'
  | 'abandonedAlarm'
  | 'eventsFailedAlarm'
  | 'onCallFailedAlarms'
  | 'clustersOverdueAlarm'
  | 'dispatcherStoppedAlarm'
  | 'dispatchDeadLetterAlarm'
>;

/** The function's errors and throttles, undelivered invocations, notifications not delivered. */
function deploymentAlarms(
  alarm: AlarmFactory,
  {
    fn,
    deadLetterQueue,
    recheckQueue,
    recheckDeadLetterQueue,
    config,
    dispatchDeadLetterQueue,
  }: WatchdogAlarmsProps,
  period: Duration,
): DeploymentAlarms {
  const errorsAlarm = alarm(
    'ErrorsAlarm',
    onAnyDatapoint(
      'lease-watchdog: the function failed (a check threw, timed out or could not start). Read its log group for the error.',
      fn.metricErrors({ period, statistic: cloudwatch.Stats.SUM }),
    ),
  );
  const throttlesAlarm = alarm(
    'ThrottlesAlarm',
    onAnyDatapoint(
      'lease-watchdog: invocations were throttled at the reserved concurrency cap; checks are running long or piling up.',
      fn.metricThrottles({ period, statistic: cloudwatch.Stats.SUM }),
    ),
  );
  // New messages, not messages present: the queue keeps them 14 days, so an alarm on
  // ApproximateNumberOfMessagesVisible stays in ALARM after the first failure and every later
  // one is silent. NumberOfMessagesSent counts each undelivered invocation the scheduler sends
  // (SendMessage; SQS's own redrive would not count, but nothing redrives into this queue), is
  // exact, and returns to 0 on its own. A metric-math DIFF of the visible count would also fall
  // when someone reads or purges the queue, and hide a new failure in the same period.
  const deadLetterAlarm = alarm(
    'DeadLetterAlarm',
    onAnyDatapoint(
      'lease-watchdog: EventBridge Scheduler could not invoke the function; the undelivered invocations are in the dead-letter queue. Alarms again on every new one.',
      deadLetterQueue.metricNumberOfMessagesSent({
        period: Duration.minutes(5),
        statistic: cloudwatch.Stats.SUM,
      }),
    ),
  );
  const recheckDeadLetterAlarm = alarm(
    'RecheckDeadLetterAlarm',
    parkedLooks(recheckDeadLetterQueue),
  );
  const looksStoppedAlarm = alarm('LooksStoppedAlarm', looksStopped(recheckQueue, period));
  const abandonedAlarm = alarm('NotificationsAbandonedAlarm', notificationsAbandoned(period));
  const created = {
    errorsAlarm,
    throttlesAlarm,
    deadLetterAlarm,
    recheckDeadLetterAlarm,
    looksStoppedAlarm,
    abandonedAlarm,
  };
  return {
    ...created,
    ...(config.eventBus === undefined
      ? {}
      : {
          eventsFailedAlarm: alarm(
            'NotificationEventsFailedAlarm',
            notificationEventsFailed(period),
          ),
        }),
    ...onCallAlarms(alarm, config, period),
    ...fleetAlarms(alarm, dispatchDeadLetterQueue, period),
  };
}

/** The metric the dispatcher emits each run (dimension `service` only): clusters overdue. */
export const CLUSTERS_OVERDUE_METRIC: ServiceMetricName = 'ClustersOverdue';

/**
 * With a dispatcher: the fleet-wide dead-man's switch (`ClustersOverdue` ≥ 1: a cluster with no
 * successful check for 3 periods, named by the dispatcher's NOTICE), the dispatcher's own (no
 * `ClustersOverdue` datapoint for `DEAD_MAN_PERIODS` periods: it stopped running), and a check
 * parked in the dispatch dead-letter queue. Three alarms and one metric for the whole fleet.
 */
function fleetAlarms(
  alarm: AlarmFactory,
  deadLetterQueue: sqs.IQueue | undefined,
  period: Duration,
): Pick<
  DeploymentAlarms,
  'clustersOverdueAlarm' | 'dispatcherStoppedAlarm' | 'dispatchDeadLetterAlarm'
> {
  if (deadLetterQueue === undefined) return {};
  const overdue = (statistic: string) =>
    new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName: CLUSTERS_OVERDUE_METRIC,
      dimensionsMap: { ...SERVICE_DIMENSIONS },
      statistic,
      period,
    });
  const clustersOverdueAlarm = alarm('ClustersOverdueAlarm', {
    ...onAnyDatapoint(
      `lease-watchdog: the fleet's dispatcher found clusters with no successful check for ${DEAD_MAN_PERIODS} schedule periods: the watchdog is not watching them. Its NOTICE names them; look for their WATCHDOG notifications and the function's errors.`,
      overdue(cloudwatch.Stats.MAXIMUM),
    ),
  });
  const dispatcherStoppedAlarm = alarm('DispatcherStoppedAlarm', {
    alarmDescription: `lease-watchdog: the fleet's dispatcher has not run for ${DEAD_MAN_PERIODS} schedule periods (no ClustersOverdue datapoint): no dispatched cluster is checked. Look at the DispatchSchedule, the function's errors and throttles.`,
    metric: overdue(cloudwatch.Stats.SAMPLE_COUNT),
    threshold: 1,
    evaluationPeriods: DEAD_MAN_PERIODS,
    comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.BREACHING,
  });
  const dispatchDeadLetterAlarm = alarm(
    'DispatchDeadLetterAlarm',
    parkedMessages(
      deadLetterQueue,
      "lease-watchdog: a dispatched check failed 3 times and was parked in the dispatch dead-letter queue: the function could not run it. Read the function's log group for the error at that time; the message names the cluster. Alarms again on every new one.",
      'checks newly parked in the dispatch dead-letter queue',
    ),
  );
  return { clustersOverdueAlarm, dispatcherStoppedAlarm, dispatchDeadLetterAlarm };
}

/**
 * The metric the function emits when a paging receiver did not take an on-call event, with the
 * dimensions {service, receiver}.
 */
export const ON_CALL_EVENTS_FAILED_METRIC: MetricName = 'OnCallEventsFailed';

/**
 * Alarms when an on-call event was not delivered to a receiver in a schedule period: a failed
 * attempt (retried by the next checks for 30 minutes) or one given up. One alarm per receiver
 * switched on, `OnCallEventsFailed-<receiver>`, so that the alarm says which tool is not paged.
 */
function onCallAlarms(
  alarm: AlarmFactory,
  config: DeploymentConfig,
  period: Duration,
): { onCallFailedAlarms: cloudwatch.Alarm[] } {
  const on = RECEIVERS.filter((row) => row.settingsOf(config) !== undefined);
  const onCallFailedAlarms = on.map(({ tool, label }) =>
    alarm(
      `OnCallEventsFailed-${tool}`,
      onAnyDatapoint(
        `lease-watchdog: an on-call event was not delivered to ${label} (a 429, a 5xx, the network, a refused or unreadable key, or a request given up at once). The emails went out; the event is retried by the next checks for 30 minutes, then given up. Find the "on-call event not delivered" lines of tool ${tool} in the function's log group: the incident key, the attempts and the error.`,
        new cloudwatch.Metric({
          namespace: METRICS_NAMESPACE,
          metricName: ON_CALL_EVENTS_FAILED_METRIC,
          dimensionsMap: { ...SERVICE_DIMENSIONS, receiver: tool },
          statistic: cloudwatch.Stats.SUM,
          period,
        }),
      ),
    ),
  );
  return { onCallFailedAlarms };
}
