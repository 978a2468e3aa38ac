/**
 * The Lambda entry point: the cloud composition root, wiring only. Configuration is parsed once
 * at cold start (a bad one fails the init with "X is required / X must be …"); AWS clients are
 * built once and reused across invocations; middy gives the abort signal before the deadline.
 */

import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { LogAttributes } from '@aws-lambda-powertools/logger/types';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EKSClient } from '@aws-sdk/client-eks';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { loadRuntimeConfig } from './config.js';
import { ClusterAuthProvider } from './kube/cluster-auth.js';
import { METRICS_NAMESPACE, powertoolsMetrics, SERVICE_NAME } from './metrics.js';
import { SnsNotifier } from './notify/sns-notifier.js';
import { DynamoDbStateStore } from './state/dynamodb-store.js';
import { Watchdog, type WatchdogEvent } from './watchdog.js';

const config = loadRuntimeConfig(process.env);
const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
const logger = new Logger({ serviceName: SERVICE_NAME });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
const credentials = fromNodeProviderChain();
const eksClients = new Map<string, EKSClient>();

const watchdog = new Watchdog({
  settings: config.settings,
  auth: new ClusterAuthProvider({
    secrets: new SecretsManagerClient({ region }),
    eks: (r = region) => {
      const client = eksClients.get(r) ?? new EKSClient({ region: r });
      eksClients.set(r, client);
      return client;
    },
    credentials,
    region,
    now: Date.now,
  }),
  store: new DynamoDbStateStore({
    client: new DynamoDBClient({ region }),
    tableName: config.stateTable,
    logger,
  }),
  notifier: new SnsNotifier({
    client: new SNSClient({ region }),
    topicArn: config.topicArn,
    logger,
  }),
  logger: {
    info: (message, fields = {}) => logger.info(message, fields as LogAttributes),
    warn: (message, fields = {}) => logger.warn(message, fields as LogAttributes),
    error: (message, fields = {}) => logger.error(message, fields as LogAttributes),
  },
  metrics: powertoolsMetrics(metrics),
  clock: Date.now,
});

async function check(
  event: WatchdogEvent | null,
  context: Context,
  { signal }: { signal: AbortSignal },
) {
  return watchdog.run(event, context.awsRequestId, context.getRemainingTimeInMillis(), signal);
}

export const handler = middy<WatchdogEvent | null, unknown, Error, Context>({
  timeoutEarlyInMillis: 3_000,
})
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics))
  .handler(check);
