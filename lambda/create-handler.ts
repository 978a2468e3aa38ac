/**
 * The cloud composition root: from parsed settings and AWS clients, the whole middy handler that
 * Lambda invokes (lambda/handler.ts only calls this). Tests build the same handler with clients
 * pointed at local endpoints, a fake clock, and loggers or metrics of their own.
 */

import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { LogAttributes } from '@aws-lambda-powertools/logger/types';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EKSClient } from '@aws-sdk/client-eks';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SNSClient } from '@aws-sdk/client-sns';
import middy from '@middy/core';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { Context } from 'aws-lambda';
import { RECORD_BUDGET_MS } from './check-cycle.js';
import { ConfirmedSubscriptionsGauge } from './confirmed-subscriptions.js';
import { authenticatedReaders } from './kube/authenticated-reader.js';
import { ClusterAuthProvider } from './kube/cluster-auth.js';
import { METRICS_NAMESPACE, powertoolsMetrics, SERVICE_NAME } from './metrics.js';
import type { KubeAccess } from './notify/advice.js';
import { WithChatCopy } from './notify/chat-notifier.js';
import { SnsNotifier } from './notify/sns-notifier.js';
import { SnsTopicSubscriptions } from './notify/sns-subscriptions.js';
import type { ClusterCredentials, WatchdogLogger, WatchdogMetrics } from './ports.js';
import type { ClusterSettings, RuntimeConfig } from './settings/index.js';
import { DynamoDbStateStore } from './state/dynamodb-store.js';
import { type ClusterReport, Watchdog, type WatchdogEvent } from './watchdog.js';

/** The AWS clients the watchdog uses, built once per container by the caller. */
export interface AwsClients {
  readonly sns: SNSClient;
  readonly dynamodb: DynamoDBClient;
  readonly secrets: SecretsManagerClient;
  /** An EKS client for a region (the function's own when undefined). */
  readonly eks: (region?: string) => EKSClient;
  /** Signs EKS tokens. */
  readonly credentials: AwsCredentialIdentityProvider;
  /** The function's region: the default for `eks` clusters. */
  readonly region: string;
}

export interface HandlerParts {
  readonly clients: AwsClients;
  /** Epoch ms. Default Date.now. */
  readonly clock?: () => number;
  /** Waits between fast-mode checks; rejects when the signal aborts. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Default: a Powertools Logger writing structured lines to stdout. */
  readonly powertoolsLogger?: Logger;
  /** The watchdog's own logger and metrics ports; default: adapters over Powertools. */
  readonly logger?: WatchdogLogger;
  readonly metrics?: WatchdogMetrics;
  /** Wraps the cluster credentials (tests inject failures here). */
  readonly credentials?: (provider: ClusterAuthProvider) => ClusterCredentials;
}

export type WatchdogHandler = middy.MiddyfiedHandler<
  WatchdogEvent | null,
  { clusters: ClusterReport[] },
  Error,
  Context
>;

/**
 * The last resort: middy rejects the invocation this long before Lambda's own deadline, should the
 * watchdog overrun its own (which leaves RECORD_BUDGET_MS before this for recording deliveries).
 */
const LAST_RESORT_MS = 500;

/**
 * The watchdog's own deadline: reads and publishes stop RECORD_BUDGET_MS before middy's last
 * resort, so that recording what SNS accepted is awaited inside the invocation (a record made
 * after the invocation returned is frozen or lost, and the notifications would go out again).
 */
function deadlineSignal(context: Context): AbortSignal {
  const ms = context.getRemainingTimeInMillis() - LAST_RESORT_MS - RECORD_BUDGET_MS;
  return AbortSignal.timeout(Math.max(0, ms));
}

function loggerPort(logger: Logger): WatchdogLogger {
  return {
    info: (message, fields = {}) => logger.info(message, fields as LogAttributes),
    warn: (message, fields = {}) => logger.warn(message, fields as LogAttributes),
    error: (message, fields = {}) => logger.error(message, fields as LogAttributes),
  };
}

function createWatchdog(
  config: RuntimeConfig,
  parts: HandlerParts,
  logger: WatchdogLogger,
  metrics: WatchdogMetrics,
) {
  const { clients } = parts;
  const clock = parts.clock ?? Date.now;
  const provider = new ClusterAuthProvider({
    secrets: clients.secrets,
    eks: clients.eks,
    credentials: clients.credentials,
    region: clients.region,
    now: clock,
  });
  const namespaces = new Map(config.settings.clusters.map((c) => [c.name, c.namespace]));
  const kubeAccess = new Map(
    config.settings.clusters.map((c) => [c.name, kubeAccessOf(c, clients.region)]),
  );
  const chatLink = config.settings.chatNotifications?.link;
  const withChat = (notifier: SnsNotifier) =>
    config.chatTopicArn === undefined
      ? notifier
      : new WithChatCopy(notifier, {
          client: clients.sns,
          topicArn: config.chatTopicArn,
          logger,
          contextFor: (name) => ({
            namespace: namespaces.get(name),
            kube: kubeAccess.get(name),
            link: chatLink,
          }),
        });
  return new Watchdog({
    settings: config.settings,
    readers: authenticatedReaders({
      credentials: parts.credentials ? parts.credentials(provider) : provider,
      requestTimeoutMs: config.settings.requestTimeoutSeconds * 1000,
      nodeRefreshMs: config.settings.nodeRefreshSeconds * 1000,
      clock,
      logger,
    }),
    store: new DynamoDbStateStore({
      client: clients.dynamodb,
      tableName: config.stateTable,
      clock,
      logger,
    }),
    notifier: withChat(
      new SnsNotifier({
        client: clients.sns,
        topicArn: config.topicArn,
        logger,
        contextFor: (name) => ({ namespace: namespaces.get(name), kube: kubeAccess.get(name) }),
      }),
    ),
    logger,
    metrics,
    clock,
    ...(parts.sleep ? { sleep: parts.sleep } : {}),
  });
}

/** The middy handler: Powertools context in every log line, the watchdog's own deadline. */
export function createHandler(config: RuntimeConfig, parts: HandlerParts): WatchdogHandler {
  const logger = parts.powertoolsLogger ?? new Logger({ serviceName: SERVICE_NAME });
  const watchdogLogger = parts.logger ?? loggerPort(logger);
  const metrics =
    parts.metrics ??
    powertoolsMetrics(new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME }));
  const watchdog = createWatchdog(config, parts, watchdogLogger, metrics);
  // Beside the checks, never in their way: bounded by the same deadline, and it never rejects.
  const subscriptions = new ConfirmedSubscriptionsGauge({
    subscriptions: new SnsTopicSubscriptions({
      client: parts.clients.sns,
      topicArn: config.topicArn,
    }),
    metrics,
    logger: watchdogLogger,
    clock: parts.clock ?? Date.now,
  });
  return middy<WatchdogEvent | null, { clusters: ClusterReport[] }, Error, Context>({
    timeoutEarlyInMillis: LAST_RESORT_MS,
  })
    .use(injectLambdaContext(logger))
    .handler(async (event, context) => {
      const deadline = deadlineSignal(context);
      const counted = subscriptions.report(deadline);
      try {
        return await watchdog.run(
          event,
          context.awsRequestId,
          context.getRemainingTimeInMillis(),
          deadline,
        );
      } finally {
        await counted;
      }
    });
}

/**
 * How an on-call engineer reaches a cluster with kubectl, for the commands the emails advise: the
 * EKS cluster (the email first says how to make its kubeconfig context), or the kubeconfig context
 * the settings name; nothing for a bearer token (the engineer's own context is not known).
 */
export function kubeAccessOf(
  cluster: Pick<ClusterSettings, 'auth'>,
  functionRegion: string,
): KubeAccess | undefined {
  const { auth } = cluster;
  if (auth.mode === 'eks') {
    return { eks: { clusterName: auth.clusterName, region: auth.region ?? functionRegion } };
  }
  if (auth.mode === 'kubeconfig' && auth.context !== undefined) return { context: auth.context };
  return undefined;
}
