/**
 * One CloudWatch dashboard of the watchdog: the alarms (deployment-wide ones and every cluster's
 * dead-man's switch), then one graph per concern with one line per cluster. CheckSucceeded is
 * the only metric with a cluster dimension (lambda/adapters/metrics/metric-names.ts: each such metric is billed per
 * cluster); the other per-cluster graphs are Logs Insights queries over the function's log group
 * (the fields of its `cluster checked` line and its failure lines), and the deployment-wide
 * totals are metric graphs of the {service}-only metrics.
 *
 * Scale: the CheckSucceeded graph uses a SEARCH expression (allowed in dashboards, not in
 * alarms), so it does not list its clusters and grows with them (at most 500 time series); a
 * Logs Insights query groups by cluster whatever their number. An alarm status widget holds at
 * most 100 alarms: the dead-man's switches are spread over as many widgets as that takes. The metrics of every deployment in the
 * account and region share the dimension `service` (as the dead-man's switches do, which is why
 * cluster names must differ between deployments), so the graphs show their clusters too.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import {
  METRICS_NAMESPACE,
  type MetricName,
  NODES_ALERTING_VERDICTS,
  SERVICE_DIMENSIONS,
  type ServiceMetricName,
} from '../lambda/adapters/metrics/metric-names.js';
import type { DeploymentConfig } from '../lambda/settings/index.js';
import {
  CHECK_SUCCEEDED_METRIC,
  CONFIRMED_SUBSCRIPTIONS_METRIC,
  DEAD_MAN_PERIODS,
  NOTIFICATIONS_ABANDONED_METRIC,
  type WatchdogAlarms,
} from './alarms.js';

/** An alarm status widget shows at most this many alarms (CloudWatch's dashboard body limit). */
export const ALARMS_PER_WIDGET = 100;

const READ_FAILURES: MetricName = 'ClusterReadFailures';
const NOTIFICATIONS_FAILED: MetricName = 'NotificationsFailed';

/** The log line after each check of a cluster (lambda/use-cases/check-report.ts) and its fields. */
const CHECKED = 'filter message = "cluster checked"';
/**
 * The time bin of the Logs Insights graphs. A query returns at most 10,000 rows (one per cluster
 * and bin): 5-minute bins keep the dashboard's default day whole for up to 34 clusters (1-minute
 * bins: 6); beyond, narrow the time range.
 */
const BIN = 'bin(5m)';

/** The legend of a SEARCH line: the cluster it belongs to (a CloudWatch dynamic label). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: CloudWatch's placeholder, not JavaScript's
const CLUSTER_LABEL = "${PROP('Dim.cluster')}";
const WIDTH = 12;
const HEIGHT = 6;

export interface DashboardProps {
  readonly alarms: WatchdogAlarms;
  readonly config: Pick<DeploymentConfig, 'scheduleMinutes'>;
  /** The function's log group: the per-cluster graphs query its lines. */
  readonly logGroup: logs.ILogGroup;
}

/** Creates the dashboard in the given scope (logical id `Dashboard`). */
export function createDashboard(scope: Construct, props: DashboardProps): cloudwatch.Dashboard {
  const period = Duration.minutes(props.config.scheduleMinutes);
  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', {
    defaultInterval: Duration.days(1),
    periodOverride: cloudwatch.PeriodOverride.AUTO,
  });
  const rows = [
    ...alarmRows(props.alarms),
    ...perClusterRows(period, props.logGroup),
    ...deploymentRows(period),
  ];
  for (const row of rows) dashboard.addWidgets(...row);
  return dashboard;
}

/**
 * The alarms, a row each: the deployment-wide ones in one widget, then the dead-man's switches
 * in widgets of at most `ALARMS_PER_WIDGET`.
 */
function alarmRows(alarms: WatchdogAlarms): cloudwatch.IWidget[][] {
  const deploymentAlarms = [
    alarms.errorsAlarm,
    alarms.throttlesAlarm,
    alarms.deadLetterAlarm,
    alarms.recheckDeadLetterAlarm,
    alarms.looksStoppedAlarm,
    alarms.abandonedAlarm,
    ...(alarms.eventsFailedAlarm ? [alarms.eventsFailedAlarm] : []),
    ...alarms.onCallFailedAlarms,
    ...(alarms.noSubscriberAlarm ? [alarms.noSubscriberAlarm] : []),
  ];
  const rows: cloudwatch.IWidget[][] = [
    [
      new cloudwatch.AlarmStatusWidget({
        title:
          'The watchdog itself: function errors and throttles, undelivered schedules, parked looks, notifications given up, no subscriber',
        alarms: deploymentAlarms,
        width: 24,
        height: 3,
      }),
    ],
  ];
  const switches = [...alarms.deadMansSwitches.values()];
  for (let i = 0; i < switches.length; i += ALARMS_PER_WIDGET) {
    const part = switches.slice(i, i + ALARMS_PER_WIDGET);
    rows.push([
      new cloudwatch.AlarmStatusWidget({
        title: `Dead-man's switches: no successful check for ${DEAD_MAN_PERIODS} periods (${i + 1}–${i + part.length} of ${switches.length})`,
        alarms: part,
        sortBy: cloudwatch.AlarmStatusWidgetSortBy.STATE_UPDATED_TIMESTAMP,
        width: 24,
        height: Math.min(8, 2 + Math.ceil(part.length / 6)),
      }),
    ]);
  }
  return rows;
}

/**
 * The graphs with one line per cluster: CheckSucceeded from its metric, the rest from the
 * function's log lines.
 */
function perClusterRows(period: Duration, logGroup: logs.ILogGroup): cloudwatch.IWidget[][] {
  const query = (title: string, lines: string[], width = WIDTH) =>
    logQuery(logGroup, title, lines, width);
  return [
    [
      graph(`Successful checks per cluster (${CHECK_SUCCEEDED_METRIC}: the dead-man's switch)`, [
        perCluster(CHECK_SUCCEEDED_METRIC, 'Sum', period),
      ]),
      query('Nodes checked per cluster (log field nodes)', [
        CHECKED,
        `stats max(nodes) by cluster, ${BIN}`,
      ]),
    ],
    NODES_ALERTING_VERDICTS.map((verdict) =>
      query(
        `Nodes ${verdict} per cluster`,
        [CHECKED, `stats max(\`${verdict}\`) by cluster, ${BIN}`],
        8,
      ),
    ),
    [
      query('Check duration per cluster (ms, maximum)', [
        CHECKED,
        `stats max(durationMs) by cluster, ${BIN}`,
      ]),
      query('Cluster read failures per cluster', [
        'filter message = "cannot read the cluster"',
        `stats count(*) by cluster, ${BIN}`,
      ]),
    ],
    [
      query('Notifications sent per cluster', [
        CHECKED,
        `stats sum(notificationsSent) by cluster, ${BIN}`,
      ]),
      query('Notifications failed per cluster (kept for the next check)', [
        CHECKED,
        `stats sum(notificationsFailed) by cluster, ${BIN}`,
      ]),
    ],
  ];
}

/** The deployment-wide totals, from the {service}-only metrics. */
function deploymentRows(period: Duration): cloudwatch.IWidget[][] {
  return [
    [
      graph('Failures, all clusters: cluster reads, notifications kept for the next check', [
        forService(READ_FAILURES, 'Sum', period),
        forService(NOTIFICATIONS_FAILED, 'Sum', period),
      ]),
    ],
    [
      graph('Notifications given up, all clusters; confirmed subscriptions of the topic', [
        forService(NOTIFICATIONS_ABANDONED_METRIC, 'Sum', period),
        forService(CONFIRMED_SUBSCRIPTIONS_METRIC, 'Minimum', period),
      ]),
    ],
  ];
}

/** A SEARCH of the metric's per-cluster series: one line per cluster, whatever their number. */
function perCluster(
  name: MetricName,
  statistic: string,
  period: Duration,
): cloudwatch.SearchExpression {
  const filters = Object.entries(SERVICE_DIMENSIONS)
    .map(([key, value]) => ` ${key}="${value}"`)
    .join('');
  return new cloudwatch.SearchExpression({
    expression: `SEARCH('{${METRICS_NAMESPACE},cluster,service} MetricName="${name}"${filters}', '${statistic}', ${period.toSeconds()})`,
    label: CLUSTER_LABEL,
    period,
  });
}

/** The metric's deployment-wide series (dimension `service` only). */
function forService(
  name: MetricName | ServiceMetricName,
  statistic: string,
  period: Duration,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { ...SERVICE_DIMENSIONS },
    statistic,
    period,
    label: name,
  });
}

/** A Logs Insights graph of the function's log lines: one line per cluster. */
function logQuery(
  logGroup: logs.ILogGroup,
  title: string,
  lines: string[],
  width: number,
): cloudwatch.LogQueryWidget {
  return new cloudwatch.LogQueryWidget({
    title,
    logGroupNames: [logGroup.logGroupName],
    queryLines: lines,
    view: cloudwatch.LogQueryVisualizationType.LINE,
    width,
    height: HEIGHT,
  });
}

/** A metric graph, from 0 up, without units. */
function graph(
  title: string,
  left: cloudwatch.IMetric[],
  leftYAxis?: cloudwatch.YAxisProps,
): cloudwatch.GraphWidget {
  return new cloudwatch.GraphWidget({
    title,
    left,
    width: WIDTH,
    height: HEIGHT,
    leftYAxis: { min: 0, showUnits: false, ...leftYAxis },
  });
}
