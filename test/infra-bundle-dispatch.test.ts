/**
 * The fleet's dispatcher as it is deployed, against an AWS that validates as AWS does: the stack
 * synthesized with `dispatch: true`, its bundle run in a fresh Node process as Lambda runs it
 * (testkit/bundle-runtime.ts), with DynamoDB, SQS, Secrets Manager and SNS all served by
 * moto_server (which applies DynamoDB's key validation, where dynalite does not: dynalite issue
 * #164). Each minute the dispatcher's run sends the checks on the dispatch queue and reads the
 * check ledger; the checks are taken off the queue and handed to the function as Lambda's poller
 * does. Every run must answer, and must publish `ClustersOverdue` in the very metric the stack's
 * `DispatcherStoppedAlarm` watches, so that alarm stays quiet while the dispatcher runs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CreateTopicCommand, SNSClient } from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { parseAppConfig } from '../lambda/settings/index.js';
import { SimCluster } from '../sim/cluster.js';
import { type SimServer, startSimServer } from '../sim/server.js';
import { type BundleProcess, startBundleProcess } from '../testkit/bundle-process.js';
import { type LocalDynamoDb, MOTO_SKIP, startLocalDynamoDb } from '../testkit/dynalite.js';
import { localAwsEnv } from '../testkit/local-aws-env.js';
import { synthesizeFunction } from '../testkit/synthesized-function.js';
import { FakeClock, SCHEDULE_MS } from '../testkit/watchdog-harness.js';

const work = mkdtempSync(join(tmpdir(), 'lease-watchdog-dispatch-'));
const STATE_TABLE = 'LeaseWatchdog-StateTable';
const CLUSTERS = ['alpha', 'bravo'];

/** One CloudWatch embedded-metric-format record the function printed. */
interface EmfRecord {
  readonly _aws: {
    readonly CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string }[];
    }[];
  };
  readonly [field: string]: unknown;
}

describe('the dispatcher, as deployed, against moto', { skip: MOTO_SKIP }, () => {
  const clock = new FakeClock();
  let moto: LocalDynamoDb;
  let sqs: SQSClient;
  let servers: SimServer[] = [];
  let runtime: BundleProcess<unknown>;
  let output = '';
  let queueUrl: string;
  let alarmMetric: AlarmMetric;
  const invoke = async (event: unknown) => {
    const got = await runtime.invoke(event, clock.now());
    output = runtime.output();
    return got;
  };

  before(async () => {
    moto = await startLocalDynamoDb('moto', { tls: true });
    await moto.createStateTable(STATE_TABLE);
    sqs = new SQSClient(moto.clientConfig);
    const sns = new SNSClient(moto.clientConfig);
    const secrets = new SecretsManagerClient(moto.clientConfig);
    ({ QueueUrl: queueUrl = '' } = await sqs.send(
      new CreateQueueCommand({ QueueName: 'dispatch' }),
    ));
    const { QueueUrl: looksUrl = '' } = await sqs.send(
      new CreateQueueCommand({ QueueName: 'looks' }),
    );
    const { TopicArn = '' } = await sns.send(new CreateTopicCommand({ Name: 'alerts' }));
    const clusters = [];
    for (const [k, name] of CLUSTERS.entries()) {
      const sim = new SimCluster({ now: clock.now, seed: 20 + k });
      sim.addNodes(3, { zones: ['eu-west-1a'] });
      const server = await startSimServer({ cluster: sim });
      servers.push(server);
      await secrets.send(
        new CreateSecretCommand({ Name: `lease-watchdog/${name}`, SecretString: server.token }),
      );
      clusters.push({
        name,
        auth: {
          mode: 'token',
          server: server.url,
          caData: Buffer.from(server.caPem).toString('base64'),
          tokenSecretId: `lease-watchdog/${name}`,
        },
      });
    }
    sns.destroy();
    secrets.destroy();

    const config = parseAppConfig({ clusters, emails: ['oncall@example.com'], dispatch: true });
    const { bundle, variables, template } = synthesizeFunction(join(work, 'cdk.out'), config);
    const alarms = template.findResources('AWS::CloudWatch::Alarm');
    const stopped = Object.entries(alarms).find(([id]) => id.includes('DispatcherStoppedAlarm'));
    assert.ok(stopped, `a DispatcherStoppedAlarm among ${Object.keys(alarms).join(', ')}`);
    alarmMetric = metricOf(stopped[1].Properties);

    const vars = variables as Record<string, string>;
    runtime = await startBundleProcess(bundle, {
      cwd: work,
      env: {
        PATH: process.env.PATH ?? '',
        LEASE_WATCHDOG_SETTINGS: vars.LEASE_WATCHDOG_SETTINGS ?? '',
        POWERTOOLS_SERVICE_NAME: vars.POWERTOOLS_SERVICE_NAME ?? '',
        POWERTOOLS_METRICS_NAMESPACE: vars.POWERTOOLS_METRICS_NAMESPACE ?? '',
        ...(vars.NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: vars.NODE_OPTIONS }),
        TOPIC_ARN: TopicArn,
        STATE_TABLE,
        DISPATCH_QUEUE_URL: queueUrl,
        RECHECK_QUEUE_URL: looksUrl,
        NODE_EXTRA_CA_CERTS: moto.caFile ?? '',
        ...localAwsEnv(work, {
          sns: moto.endpoint,
          dynamodb: moto.endpoint,
          secretsManager: moto.endpoint,
        }),
        AWS_ENDPOINT_URL_SQS: moto.endpoint,
        AWS_ENDPOINT_URL_EKS: 'http://127.0.0.1:9',
        AWS_ENDPOINT_URL_STS: 'http://127.0.0.1:9',
        LW_TEST_NOW: String(clock.now()),
      },
    });
  });

  after(async () => {
    runtime?.kill();
    sqs?.destroy();
    await Promise.all(servers.map((server) => server.close()));
    servers = [];
    await moto?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  test('runs green every minute, its checks run, and ClustersOverdue feeds DispatcherStoppedAlarm each run', async () => {
    const minutes = 4;
    const overdue: number[] = [];
    let sent = 0;
    for (let minute = 0; minute < minutes; minute++) {
      const printed = output.length;
      const dispatched = await invoke({ dispatch: { periodSeconds: 60 } });
      assert.ok(
        'report' in dispatched,
        `the dispatcher's run failed: ${JSON.stringify(dispatched)}\n${output}`,
      );
      overdue.push(...overdueValues(output.slice(printed), alarmMetric));
      // The checks went on the dispatch queue (each delayed to its moment of the minute: SQS
      // holds them); each is then handed to the function as Lambda's poller does.
      const waiting = await queued(sqs, queueUrl);
      assert.equal(waiting - sent, CLUSTERS.length, 'one check per cluster queued');
      sent = waiting;
      for (const cluster of CLUSTERS) {
        const body = JSON.stringify({ cluster });
        const record = { messageId: `${cluster}-${minute}`, body, eventSource: 'aws:sqs' };
        const ran = await invoke({ Records: [record] });
        assert.ok(
          'report' in ran,
          `the check of ${cluster} failed: ${JSON.stringify(ran)}\n${output}`,
        );
      }
      clock.advance(SCHEDULE_MS);
    }
    // One datapoint of the alarm's metric per run: the alarm (SampleCount < 1) stays quiet.
    assert.equal(overdue.length, minutes, `ClustersOverdue per run: ${JSON.stringify(overdue)}`);
    assert.deepEqual(overdue.slice(1), new Array(minutes - 1).fill(0), 'none overdue once checked');
  });
});

/** The messages on the queue, visible or delayed. */
async function queued(sqs: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages) +
    Number(Attributes.ApproximateNumberOfMessagesDelayed)
  );
}

interface AlarmMetric {
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Record<string, string>;
}

/** The metric an alarm of the template watches (a plain metric alarm). */
function metricOf(properties: Record<string, unknown>): AlarmMetric {
  const dimensions = (properties.Dimensions ?? []) as { Name: string; Value: string }[];
  assert.equal(properties.Statistic, 'SampleCount');
  assert.equal(properties.ComparisonOperator, 'LessThanThreshold');
  assert.equal(properties.Threshold, 1);
  return {
    namespace: properties.Namespace as string,
    name: properties.MetricName as string,
    dimensions: Object.fromEntries(dimensions.map((d) => [d.Name, d.Value])),
  };
}

/** The values `output`'s EMF records give the alarm's metric (its namespace and dimensions). */
function overdueValues(output: string, metric: AlarmMetric): number[] {
  const values: number[] = [];
  for (const line of output.split('\n')) {
    if (!line.includes('"_aws"')) continue;
    const record = JSON.parse(line) as EmfRecord;
    for (const directive of record._aws.CloudWatchMetrics) {
      const named = directive.Metrics.some((m) => m.Name === metric.name);
      const dimensioned = directive.Dimensions.some(
        (set) =>
          set.length === Object.keys(metric.dimensions).length &&
          set.every((name) => record[name] === metric.dimensions[name]),
      );
      if (directive.Namespace === metric.namespace && named && dimensioned) {
        values.push(Number(record[metric.name]));
      }
    }
  }
  return values;
}
