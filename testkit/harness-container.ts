/**
 * A harness's "Lambda containers" (testkit/watchdog-harness.ts): each its own AWS SDK clients,
 * caches and middy handler, built by `createHandler` exactly as `lambda/handler/handler.ts` builds
 * it, from the environment and cluster file the stack gives the function; only the logger and
 * metrics (ports) and the clock are fakes. They share the outside world (harness-parts.ts).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EKSClient } from '@aws-sdk/client-eks';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import {
  type AwsClients,
  createHandler,
  type HandlerEvent,
} from '../lambda/handler/create-handler.js';
import {
  CLUSTER_FILE,
  functionSettingsOf,
  loadRuntimeConfig,
  RUNTIME_ENV,
} from '../lambda/settings/index.js';
import type { FakeClock } from './fake-clock.js';
import {
  type Closer,
  type Container,
  type ContainerOverrides,
  type HarnessOptions,
  type Invocation,
  localCredentials,
  TOPIC_ARN,
} from './harness-options.js';
import type { OutsideWorld } from './harness-parts.js';
import { lambdaContext } from './lambda-context.js';
import type { QueuedLooks } from './queued-looks.js';
import { RecordingLogger, RecordingMetrics } from './recording-ports.js';

/** What every container of one harness shares. */
export interface Shared {
  readonly clock: FakeClock;
  readonly world: OutsideWorld;
  readonly options: HarnessOptions;
  readonly looks: QueuedLooks | undefined;
  readonly nextRunId: () => string;
  /** Each container's clients are destroyed when the harness closes. */
  readonly closers: Closer[];
}

/** Makes containers of one harness. */
export function containerFactory(shared: Shared): (overrides?: ContainerOverrides) => Container {
  const { clock, world, options, looks } = shared;
  const functionSettings = functionSettingsOf(world.settings);
  return (overrides = {}) => {
    const { clients, dynamodb, destroy } = awsClients(shared, overrides);
    const metrics = overrides.metrics ?? new RecordingMetrics();
    const logger = new RecordingLogger();
    // As the function finds its settings: the environment the stack sets, and the clusters in
    // the file the stack writes into its code (lambda/settings/cluster-file.ts).
    const config = loadRuntimeConfig(
      {
        [RUNTIME_ENV.settings]: functionSettings.environment,
        [RUNTIME_ENV.topicArn]: TOPIC_ARN,
        [RUNTIME_ENV.stateTable]: world.tableName,
        ...(options.chatTopicArn ? { [RUNTIME_ENV.chatTopicArn]: options.chatTopicArn } : {}),
        ...(options.machineTopicArn
          ? { [RUNTIME_ENV.machineTopicArn]: options.machineTopicArn }
          : {}),
        ...(options.functionRoleArn
          ? { [RUNTIME_ENV.functionRoleArn]: options.functionRoleArn }
          : {}),
      },
      { path: CLUSTER_FILE, read: () => functionSettings.clusterFile },
    );
    const handler = createHandler(config, {
      clients,
      ...(options.evidenceBudgetMs === undefined
        ? {}
        : { evidenceBudgetMs: options.evidenceBudgetMs }),
      clock: clock.now,
      powertoolsLogger: new Logger({ serviceName: 'lease-watchdog', logLevel: 'SILENT' }),
      logger,
      ...(overrides.emfMetrics ? {} : { metrics }),
      ...(overrides.credentials ? { credentials: overrides.credentials } : {}),
      ...(looks ? { looks: looks } : {}),
      ...(looks && options.withDispatch ? { dispatch: looks } : {}),
      ...(options.readers ? { readers: options.readers } : {}),
      ...(options.collectGrowthBytes === undefined
        ? {}
        : { collectGrowthBytes: options.collectGrowthBytes }),
      onCallBaseUrls: {
        pagerduty: world.pagerDuty?.url,
        opsgenie: world.opsgenie?.url,
        ...options.onCallBaseUrls,
      },
      ...(options.receivers ? { receivers: options.receivers } : {}),
    });
    shared.closers.push(destroy);
    const invoke = (event: HandlerEvent = null, invocation: Invocation = {}) =>
      handler(event, lambdaContext(invocation.runId ?? shared.nextRunId(), invocation.remainingMs));
    return { handler, invoke, metrics, logger, dynamodb, destroy };
  };
}

/** A container's own AWS clients, pointed at the local endpoints (static fake credentials). */
function awsClients(
  { world, options }: Shared,
  overrides: ContainerOverrides,
): { clients: AwsClients; dynamodb: DynamoDBClient; destroy: () => void } {
  const dynamodb = new DynamoDBClient({
    endpoint: overrides.dynamoEndpoint ?? world.dynamo.endpoint,
    region: 'us-east-1',
    credentials: localCredentials(),
    maxAttempts: overrides.dynamoMaxAttempts ?? 1,
  });
  const sns = new SNSClient({
    endpoint: world.sns.url,
    region: 'us-east-1',
    credentials: localCredentials(),
    maxAttempts: options.snsMaxAttempts ?? 1,
  });
  // Token mode never calls EKS; a client for a closed port proves it if it ever does (eks
  // clusters give `eksEndpoint`). Nothing listens on port 9 either: a test that puts events
  // gives its EventBridge endpoint.
  const made: (EKSClient | EventBridgeClient)[] = [];
  const track = <T extends EKSClient | EventBridgeClient>(client: T): T => {
    made.push(client);
    return client;
  };
  const clients: AwsClients = {
    sns,
    dynamodb,
    secrets: world.secrets.client,
    eks: (region, credentials) =>
      track(
        new EKSClient({
          endpoint: options.eksEndpoint ?? 'http://127.0.0.1:9',
          region: region ?? 'us-east-1',
          credentials: credentials ?? localCredentials(),
          maxAttempts: options.eksMaxAttempts ?? 1,
        }),
      ),
    credentials: async () => localCredentials(),
    region: 'us-east-1',
    ...(options.stsEndpoint ? { sts: { endpoint: options.stsEndpoint, maxAttempts: 1 } } : {}),
    eventBridge: (region) =>
      track(
        new EventBridgeClient({
          endpoint: options.eventBridgeEndpoint ?? 'http://127.0.0.1:9',
          region,
          credentials: localCredentials(),
          maxAttempts: 1,
        }),
      ),
    ec2Endpoint: () => world.ec2Endpoint,
  };
  const destroy = () => {
    dynamodb.destroy();
    sns.destroy();
    for (const client of made) client.destroy();
  };
  return { clients, dynamodb, destroy };
}
