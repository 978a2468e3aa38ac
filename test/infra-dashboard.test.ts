/**
 * The stack's CloudWatch dashboard, read from its rendered body: it shows every alarm the stack
 * creates, and its graphs read exactly the metrics (names, dimensions, values) that the real
 * handler writes as EMF lines; the dead-man's switches are spread over alarm widgets of at
 * most 100; cdk-nag stays clean.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as logs from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { WatchdogAlarms } from '../infra/alarms.js';
import { ALARMS_PER_WIDGET, createDashboard } from '../infra/dashboard.js';
import { buildStack, type LeaseWatchdogStack } from '../infra/stack.js';
import { parseAppConfig } from '../lambda/settings/index.js';
import { GIVE_UP_AFTER_MS } from '../lambda/use-cases/outbox-publishing.js';
import { captureEmf, type EmfCapture } from '../testkit/emf-capture.js';
import { type Harness, SCHEDULE_MS, startWatchdogHarness } from '../testkit/watchdog-harness.js';

const REGION = 'eu-west-1';
const eks = (name: string) => ({
  name,
  auth: { mode: 'eks', clusterName: `${name}-eks`, region: REGION },
});

interface Widget {
  type: string;
  properties: {
    title?: string;
    alarms?: string[];
    metrics?: (string | { expression?: string })[][];
    query?: string;
  };
}

interface Synth {
  app: App;
  stack: LeaseWatchdogStack;
  template: Template;
  widgets: Widget[];
}

function synth(clusters: object[], extra: object = {}): Synth {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = buildStack(
    app,
    parseAppConfig({
      clusters,
      emails: ['oncall@example.com'],
      account: '123456789012',
      region: REGION,
      dashboard: true,
      ...extra,
    }),
  );
  const template = Template.fromStack(stack);
  const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  assert.equal(dashboards.length, 1, 'one dashboard');
  return { app, stack, template, widgets: render(dashboards[0]?.Properties.DashboardBody) };
}

/** The body is an Fn::Join of JSON text and intrinsics: each intrinsic becomes `${Logical.Attr}`. */
function render(body: unknown): Widget[] {
  const [separator, parts] = (body as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  const text = parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const obj = part as { Ref?: string; 'Fn::GetAtt'?: string[] };
      if (obj.Ref !== undefined) return `\${${obj.Ref}}`;
      if (obj['Fn::GetAtt'] !== undefined) return `\${${obj['Fn::GetAtt'].join('.')}}`;
      throw new Error(`unexpected intrinsic in the body: ${JSON.stringify(part)}`);
    })
    .join(separator);
  return (JSON.parse(text) as { widgets: Widget[] }).widgets;
}

function alarmsShown(widgets: Widget[]): string[] {
  return widgets.flatMap((w) => (w.type === 'alarm' ? (w.properties.alarms ?? []) : []));
}

/** A metric a graph reads: namespace, name, and its dimensions (`*` for any value). */
interface MetricRef {
  namespace: string;
  name: string;
  dimensions: Record<string, string>;
}

const SEARCH =
  /^SEARCH\('\{([^}]*)\} MetricName="([^"]+)"((?: [a-z]+="[^"]*")*)', '[A-Za-z]+', \d+\)$/;

function metricsRead(widgets: Widget[]): MetricRef[] {
  const refs: MetricRef[] = [];
  for (const widget of widgets) {
    for (const line of widget.properties.metrics ?? []) {
      const [first] = line;
      if (typeof first === 'object') {
        const match = SEARCH.exec(first.expression ?? '');
        assert.ok(match, `a SEARCH the test can read: ${first.expression}`);
        const [namespace = '', ...keys] = (match[1] ?? '').split(',');
        const dimensions = Object.fromEntries(keys.map((k) => [k, '*']));
        for (const [, key = '', value = ''] of (match[3] ?? '').matchAll(/ ([a-z]+)="([^"]*)"/g)) {
          assert.ok(key in dimensions, `${key} filters a dimension of the schema`);
          dimensions[key] = value;
        }
        refs.push({ namespace, name: match[2] ?? '', dimensions });
      } else {
        const [namespace, name, ...pairs] = line.filter((x): x is string => typeof x === 'string');
        const dimensions: Record<string, string> = {};
        for (let i = 0; i + 1 < pairs.length; i += 2)
          dimensions[pairs[i] ?? ''] = pairs[i + 1] ?? '';
        refs.push({ namespace: namespace ?? '', name: name ?? '', dimensions });
      }
    }
  }
  return refs;
}

/** A Logs Insights widget: its log group, the message it filters, the field it graphs. */
interface QueryRef {
  source: string;
  message: string;
  field: string | undefined;
}

const QUERY =
  /^SOURCE '([^']+)' \| filter message = "([^"]+)" \| stats (?:count\(\*\)|[a-z]+\(`?([A-Za-z-]+)`?\)) by cluster, bin\(5m\)$/;

function queriesRead(widgets: Widget[]): QueryRef[] {
  return widgets
    .filter((w) => w.type === 'log')
    .map((w) => {
      // CDK joins the query lines with a line break before each `|`.
      const match = QUERY.exec((w.properties.query ?? '').replace(/\s*\n\s*/g, ' '));
      assert.ok(match, `a query the test can read: ${w.properties.query}`);
      return { source: match[1] ?? '', message: match[2] ?? '', field: match[3] };
    });
}

function describeRef(ref: MetricRef): string {
  const dims = Object.entries(ref.dimensions)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  return `${ref.namespace}/${ref.name} {${dims}}`;
}

describe('the dashboard', () => {
  let s: Synth;
  before(() => {
    s = synth([eks('prod-eu'), eks('edge-lab'), eks('onprem')], {
      alarmEmails: ['platform@example.com'],
    });
  });

  test('shows every alarm the stack creates, each once', () => {
    const alarms = Object.keys(s.template.findResources('AWS::CloudWatch::Alarm')).map(
      (id) => `\${${id}.Arn}`,
    );
    assert.equal(
      alarms.length,
      10,
      'errors, throttles, dead letters, parked looks, looks stopped, abandoned, no subscriber, 3',
    );
    assert.deepEqual(alarmsShown(s.widgets).sort(), alarms.sort());
    const switches = [...s.stack.watchdog.deadMansSwitches.values()].map(
      (a) => `\${${s.stack.getLogicalId(a.node.defaultChild as never)}.Arn}`,
    );
    const widget = s.widgets.find((w) => w.properties.title?.startsWith("Dead-man's switches"));
    assert.deepEqual(widget?.properties.alarms?.sort(), switches.sort());
  });

  test('graphs CheckSucceeded per cluster and deployment-wide totals from metrics, nothing else', () => {
    assert.deepEqual(metricsRead(s.widgets).map(describeRef).sort(), [
      'LeaseWatchdog/CheckSucceeded {cluster=*,service=lease-watchdog}',
      'LeaseWatchdog/ClusterReadFailures {service=lease-watchdog}',
      'LeaseWatchdog/ConfirmedSubscriptions {service=lease-watchdog}',
      'LeaseWatchdog/NotificationsAbandoned {service=lease-watchdog}',
      'LeaseWatchdog/NotificationsFailed {service=lease-watchdog}',
    ]);
  });

  test('graphs the rest per cluster with Logs Insights over the function log group', () => {
    const logGroup = `\${${s.stack.getLogicalId(s.stack.watchdog.logGroup.node.defaultChild as never)}}`;
    assert.deepEqual(
      queriesRead(s.widgets).map((q) => `${q.source} ${q.message} ${q.field ?? 'count'}`),
      [
        'cluster checked nodes',
        'cluster checked expired',
        'cluster checked not-ready',
        'cluster checked missing-lease',
        'cluster checked durationMs',
        'cannot read the cluster count',
        'cluster checked notificationsSent',
        'cluster checked notificationsFailed',
      ].map((q) => `${logGroup} ${q}`),
    );
  });

  test('is exposed by the construct and named by a stack output', () => {
    const outputs = s.template.findOutputs('DashboardName');
    assert.deepEqual(Object.values(outputs)[0]?.Value, {
      Ref: s.stack.getLogicalId(s.stack.watchdog.dashboard?.node.defaultChild as never),
    });
  });

  test('cdk-nag finds nothing', () => {
    const report = new AwsSolutionsChecks().validateScope(s.app);
    const findings = report.violations.flatMap((v) =>
      v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath ?? '?'}`),
    );
    assert.deepEqual(findings, []);
  });
});

test(`350 clusters: the dead-man's switches in alarm widgets of at most ${ALARMS_PER_WIDGET}, the graphs as they are`, () => {
  // More clusters than one deployment's settings hold today (4 KB of environment): the
  // dashboard module alone, with the alarms it is given.
  const stack = new Stack(new App(), 'Scale');
  const alarm = (id: string) =>
    new cloudwatch.Alarm(stack, id, {
      metric: new cloudwatch.Metric({ namespace: 'N', metricName: id }),
      threshold: 1,
      evaluationPeriods: 1,
    });
  const names = Array.from({ length: 350 }, (_, i) => `c${i}`);
  const alarms: WatchdogAlarms = {
    errorsAlarm: alarm('Errors'),
    throttlesAlarm: alarm('Throttles'),
    deadLetterAlarm: alarm('DeadLetter'),
    recheckDeadLetterAlarm: alarm('RecheckDeadLetter'),
    looksStoppedAlarm: alarm('LooksStopped'),
    abandonedAlarm: alarm('Abandoned'),
    onCallFailedAlarms: [],
    deadMansSwitches: new Map(names.map((name) => [name, alarm(`NoSuccessfulCheck-${name}`)])),
  };
  const logGroup = new logs.LogGroup(stack, 'LogGroup');
  createDashboard(stack, { alarms, config: { scheduleMinutes: 1 }, logGroup });
  const [dashboard] = Object.values(
    Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'),
  );
  const widgets = render(dashboard?.Properties.DashboardBody);
  const switches = widgets.filter((w) => w.properties.title?.startsWith("Dead-man's switches"));
  assert.deepEqual(
    switches.map((w) => w.properties.alarms?.length),
    [100, 100, 100, 50],
  );
  assert.equal(new Set(switches.flatMap((w) => w.properties.alarms)).size, 350);
  assert.equal(alarmsShown(widgets).length, 356);
  // The graphs do not grow with the clusters: SEARCH and Logs Insights find them.
  assert.equal(metricsRead(widgets).length, 5);
  assert.equal(queriesRead(widgets).length, 8);
  assert.ok(widgets.length <= 500, 'CloudWatch holds 500 widgets a dashboard');
});

describe('the dashboard reads what the handler writes (EMF lines of real checks)', () => {
  let h: Harness;
  let emf: EmfCapture;
  let emitted: MetricRef[] = [];
  let logged: { message: string; fields?: Record<string, unknown> }[] = [];
  /** The dashboard of a deployment of the harness's one cluster. */
  let prod: Synth;
  before(async () => {
    prod = synth([eks('prod')]);
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 3 } },
      unreachableClusters: ['gone'],
      snsMaxAttempts: 1,
      requestTimeoutSeconds: 1,
    });
    emf = captureEmf();
  });
  after(async () => {
    emf.stop();
    await h.close();
  });

  test('every metric a graph reads is one the function emits, with those dimensions', async () => {
    const container = h.container({ emfMetrics: true });
    await container.invoke();
    // A node goes down; its FIRING is refused once (NotificationsFailed), then delivered.
    h.target('prod').sim.stopKubelet(h.target('prod').nodes[0] as string);
    h.clock.advance(SCHEDULE_MS);
    h.sns.failNext(1, 'internal');
    await container.invoke();
    h.clock.advance(SCHEDULE_MS);
    await container.invoke();
    // Another goes down, and its FIRING is refused for good on every check until it is given
    // up (NotificationsAbandoned is written only then).
    h.target('prod').sim.stopKubelet(h.target('prod').nodes[1] as string);
    for (let i = 0; i <= GIVE_UP_AFTER_MS / SCHEDULE_MS; i++) {
      h.sns.failNext(1, 'invalid-parameter');
      h.clock.advance(SCHEDULE_MS);
      await container.invoke();
    }
    container.destroy();
    logged = container.logger.entries;

    emitted = emf.lines.flatMap((line) =>
      line._aws.CloudWatchMetrics.flatMap((directive) =>
        directive.Metrics.flatMap((metric) =>
          directive.Dimensions.map((keys) => ({
            namespace: directive.Namespace,
            name: metric.Name,
            dimensions: Object.fromEntries(keys.map((k) => [k, String(line[k])])),
          })),
        ),
      ),
    );
    for (const ref of metricsRead(prod.widgets)) {
      const found = emitted.some(
        (e) =>
          e.namespace === ref.namespace &&
          e.name === ref.name &&
          Object.keys(e.dimensions).sort().join() === Object.keys(ref.dimensions).sort().join() &&
          Object.entries(ref.dimensions).every(([k, v]) => v === '*' || e.dimensions[k] === v),
      );
      assert.ok(found, `the function emits ${describeRef(ref)}`);
    }
  });

  test('only CheckSucceeded carries the cluster dimension, with exactly {service, cluster}', () => {
    const perCluster = emitted.filter((e) => 'cluster' in e.dimensions).map(describeRef);
    assert.ok(perCluster.length > 0, 'the checks succeeded');
    assert.deepEqual(
      [...new Set(perCluster)],
      ['LeaseWatchdog/CheckSucceeded {cluster=prod,service=lease-watchdog}'],
      'any other metric with a cluster dimension bills $0.30 a month per cluster',
    );
  });

  test("every field a Logs Insights graph reads is on the handler's log line, per cluster", () => {
    for (const q of queriesRead(prod.widgets)) {
      const lines = logged.filter((e) => e.message === q.message);
      assert.ok(lines.length > 0, `the handler logs "${q.message}"`);
      for (const line of lines) {
        assert.ok(typeof line.fields?.cluster === 'string', `"${q.message}" names its cluster`);
        if (q.field !== undefined)
          assert.equal(typeof line.fields?.[q.field], 'number', `"${q.message}" has ${q.field}`);
      }
    }
  });
});
