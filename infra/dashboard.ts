/**
 * One CloudWatch dashboard of the watchdog: the alarms (deployment-wide ones and every cluster's
 * dead-man's switch), then one graph per concern with one line per cluster, drawn from the
 * metrics the function emits (lambda/metrics.ts).
 *
 * Scale: the graphs use SEARCH expressions (allowed in dashboards, not in alarms), so a graph
 * does not list its clusters and grows with them; a SEARCH returns at most 500 time series, so
 * each graph holds one line per cluster for up to 500 clusters (NodesAlerting gets one graph
 * per verdict for that reason). An alarm status widget holds at most 100 alarms: the dead-man's
 * switches are spread over as many widgets as that takes. The metrics of every deployment in the
 * account and region share the dimension `service` (as the dead-man's switches do, which is why
 * cluster names must differ between deployments), so the graphs show their clusters too.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import {
  METRICS_NAMESPACE,
  type MetricName,
  NODES_ALERTING_VERDICTS,
  SERVICE_DIMENSIONS,
  type ServiceMetricName,
} from '../lambda/metrics.js';
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

const CHECK_DURATION: MetricName = 'CheckDuration';
const NODES_CHECKED: MetricName = 'NodesChecked';
const NODES_ALERTING: MetricName = 'NodesAlerting';
const READ_FAILURES: MetricName = 'ClusterReadFailures';
const NOTIFICATIONS_SENT: MetricName = 'NotificationsSent';
const NOTIFICATIONS_FAILED: MetricName = 'NotificationsFailed';

/** The legend of a SEARCH line: the cluster it belongs to (a CloudWatch dynamic label). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: CloudWatch's placeholder, not JavaScript's
const CLUSTER_LABEL = "${PROP('Dim.cluster')}";
const WIDTH = 12;
const HEIGHT = 6;

export interface DashboardProps {
  readonly alarms: WatchdogAlarms;
  readonly config: Pick<DeploymentConfig, 'scheduleMinutes'>;
}

/** Creates the dashboard in the given scope (logical id `Dashboard`). */
export function createDashboard(scope: Construct, props: DashboardProps): cloudwatch.Dashboard {
  const { alarms, config } = props;
  const period = Duration.minutes(config.scheduleMinutes);
  const perCluster = (
    name: MetricName,
    statistic: string,
    extra: Readonly<Record<string, string>> = {},
  ): cloudwatch.SearchExpression => {
    const keys = ['cluster', 'service', ...Object.keys(extra)].join(',');
    const filters = Object.entries({ ...SERVICE_DIMENSIONS, ...extra })
      .map(([key, value]) => ` ${key}="${value}"`)
      .join('');
    return new cloudwatch.SearchExpression({
      expression: `SEARCH('{${METRICS_NAMESPACE},${keys}} MetricName="${name}"${filters}', '${statistic}', ${period.toSeconds()})`,
      label: CLUSTER_LABEL,
      period,
    });
  };
  const graph = (
    title: string,
    left: cloudwatch.IMetric[],
    leftYAxis?: cloudwatch.YAxisProps,
  ): cloudwatch.GraphWidget =>
    new cloudwatch.GraphWidget({
      title,
      left,
      width: WIDTH,
      height: HEIGHT,
      leftYAxis: { min: 0, showUnits: false, ...leftYAxis },
    });
  const forService = (name: MetricName | ServiceMetricName, statistic: string) =>
    new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName: name,
      dimensionsMap: { ...SERVICE_DIMENSIONS },
      statistic,
      period,
      label: name,
    });

  const deploymentAlarms = [
    alarms.errorsAlarm,
    alarms.throttlesAlarm,
    alarms.deadLetterAlarm,
    alarms.abandonedAlarm,
    ...(alarms.noSubscriberAlarm ? [alarms.noSubscriberAlarm] : []),
  ];
  const switches = [...alarms.deadMansSwitches.values()];
  const switchWidgets: cloudwatch.IWidget[] = [];
  for (let i = 0; i < switches.length; i += ALARMS_PER_WIDGET) {
    const part = switches.slice(i, i + ALARMS_PER_WIDGET);
    switchWidgets.push(
      new cloudwatch.AlarmStatusWidget({
        title: `Dead-man's switches: no successful check for ${DEAD_MAN_PERIODS} periods (${i + 1}–${i + part.length} of ${switches.length})`,
        alarms: part,
        sortBy: cloudwatch.AlarmStatusWidgetSortBy.STATE_UPDATED_TIMESTAMP,
        width: 24,
        height: Math.min(8, 2 + Math.ceil(part.length / 6)),
      }),
    );
  }

  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', {
    defaultInterval: Duration.days(1),
    periodOverride: cloudwatch.PeriodOverride.AUTO,
  });
  dashboard.addWidgets(
    new cloudwatch.AlarmStatusWidget({
      title:
        'The watchdog itself: function errors and throttles, undelivered schedules, notifications given up, no subscriber',
      alarms: deploymentAlarms,
      width: 24,
      height: 3,
    }),
  );
  for (const widget of switchWidgets) dashboard.addWidgets(widget);
  dashboard.addWidgets(
    graph(`Successful checks per cluster (${CHECK_SUCCEEDED_METRIC}: the dead-man's switch)`, [
      perCluster(CHECK_SUCCEEDED_METRIC, 'Sum'),
    ]),
    graph('Nodes checked per cluster', [perCluster(NODES_CHECKED, 'Maximum')]),
  );
  dashboard.addWidgets(
    ...NODES_ALERTING_VERDICTS.map(
      (verdict) =>
        new cloudwatch.GraphWidget({
          title: `Nodes ${verdict} per cluster`,
          left: [perCluster(NODES_ALERTING, 'Maximum', { verdict })],
          width: 8,
          height: HEIGHT,
          leftYAxis: { min: 0, showUnits: false },
        }),
    ),
  );
  dashboard.addWidgets(
    graph('Check duration per cluster (ms, maximum)', [perCluster(CHECK_DURATION, 'Maximum')]),
    graph('Cluster read failures per cluster', [perCluster(READ_FAILURES, 'Sum')]),
  );
  dashboard.addWidgets(
    graph('Notifications sent per cluster', [perCluster(NOTIFICATIONS_SENT, 'Sum')]),
    graph('Notifications failed per cluster (kept for the next check)', [
      perCluster(NOTIFICATIONS_FAILED, 'Sum'),
    ]),
  );
  dashboard.addWidgets(
    graph('Notifications given up, all clusters; confirmed subscriptions of the topic', [
      forService(NOTIFICATIONS_ABANDONED_METRIC, 'Sum'),
      forService(CONFIRMED_SUBSCRIPTIONS_METRIC, 'Minimum'),
    ]),
  );
  return dashboard;
}
