/**
 * The contract between the function's metrics and the stack's dead-man's switch: the EMF line the
 * function writes for CheckSucceeded has exactly the namespace and dimensions the alarm reads.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { App, assertions } from 'aws-cdk-lib';
import { buildStack } from '../infra/stack.js';
import { powertoolsMetrics } from '../lambda/adapters/metrics/emf-metrics.js';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../lambda/adapters/metrics/metric-names.js';
import { parseAppConfig } from '../lambda/settings/index.js';
import { captureEmf } from '../testkit/emf-capture.js';

it('CheckSucceeded is written with the namespace and {service, cluster} dimensions the alarm reads', () => {
  const emf = captureEmf();
  try {
    const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
    powertoolsMetrics(metrics).record('prod-eu', 'CheckSucceeded', 1);
  } finally {
    emf.stop();
  }
  const line = emf.of('CheckSucceeded')[0];
  assert.ok(line, `an EMF line for CheckSucceeded among ${emf.lines.length} EMF lines`);
  const [directive] = line._aws.CloudWatchMetrics;
  assert.ok(directive, 'the line has a CloudWatchMetrics directive');
  assert.equal(directive.Namespace, METRICS_NAMESPACE);
  assert.deepEqual(directive.Dimensions, [['service', 'cluster']]);
  assert.equal(line.service, SERVICE_NAME);
  assert.equal(line.cluster, 'prod-eu');

  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = buildStack(
    app,
    parseAppConfig({
      clusters: [
        { name: 'prod-eu', auth: { mode: 'eks', clusterName: 'prod-eu', region: 'eu-west-1' } },
      ],
      emails: ['oncall@example.com'],
      account: '123456789012',
      region: 'eu-west-1',
    }),
  );
  const alarms = Object.values(
    assertions.Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'CheckSucceeded' },
    }),
  );
  assert.equal(alarms.length, 1);
  const alarm = alarms[0]?.Properties;
  assert.equal(alarm.Namespace, directive.Namespace);
  assert.equal(alarm.TreatMissingData, 'breaching');
  // CloudWatch matches a metric by its exact set of dimensions: the alarm's must be the EMF's.
  const byName = (a: { Name: string }, b: { Name: string }) => a.Name.localeCompare(b.Name);
  assert.deepEqual(
    [...alarm.Dimensions].sort(byName),
    (directive.Dimensions[0] ?? []).map((name) => ({ Name: name, Value: line[name] })).sort(byName),
  );
});
