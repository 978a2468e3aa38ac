/**
 * The contract between the function's metrics and the stack's dead-man's switch: the EMF line the
 * function writes for CheckSucceeded has exactly the namespace and dimensions the alarm reads.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { App, assertions } from 'aws-cdk-lib';
import { buildStack } from '../infra/stack.js';
import {
  METRICS_NAMESPACE,
  powertoolsMetrics,
  SERVICE_NAME,
} from '../lambda/adapters/metrics/emf-metrics.js';
import { parseAppConfig } from '../lambda/settings/index.js';

it('CheckSucceeded is written with the namespace and {service, cluster} dimensions the alarm reads', () => {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const original = console.log;
  console.log = (line: string) => lines.push(String(line));
  process.stdout.write = ((chunk: string) =>
    lines.push(String(chunk)) > 0) as typeof process.stdout.write;
  try {
    const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
    powertoolsMetrics(metrics).record('prod-eu', 'CheckSucceeded', 1, 'Count');
  } finally {
    process.stdout.write = write;
    console.log = original;
  }
  const emf = lines.map((l) => JSON.parse(l)).find((o) => o.CheckSucceeded !== undefined);
  assert.ok(emf, `an EMF line for CheckSucceeded among ${lines.length} lines`);
  const [directive] = emf._aws.CloudWatchMetrics;
  assert.equal(directive.Namespace, METRICS_NAMESPACE);
  assert.deepEqual(directive.Dimensions, [['service', 'cluster']]);
  assert.equal(emf.service, SERVICE_NAME);
  assert.equal(emf.cluster, 'prod-eu');

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
    directive.Dimensions[0].map((name: string) => ({ Name: name, Value: emf[name] })).sort(byName),
  );
});
