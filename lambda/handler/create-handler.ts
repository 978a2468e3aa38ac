/**
 * The cloud composition root: from parsed settings and AWS clients, the whole middy handler that
 * Lambda invokes (lambda/handler/handler.ts only calls this). Tests build the same handler with clients
 * pointed at local endpoints, a fake clock, and loggers or metrics of their own.
 */

import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { LogAttributes } from '@aws-lambda-powertools/logger/types';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { Context } from 'aws-lambda';
import { SqsChecks } from '../adapters/dispatch/sqs-checks.js';
import { InstanceStateReader } from '../adapters/evidence/instance-evidence.js';
import { NodeEventsReader } from '../adapters/evidence/node-events.js';
import { authenticatedReaders } from '../adapters/kube/authenticated-reader.js';
import { ClusterAuthProvider } from '../adapters/kube/config/cluster-auth.js';
import {
  ClusterAwsCredentials,
  type StsClientOptions,
} from '../adapters/kube/config/cluster-credentials.js';
import { SqsLooks } from '../adapters/looks/sqs-looks.js';
import { powertoolsMetrics } from '../adapters/metrics/emf-metrics.js';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../adapters/metrics/metric-names.js';
import { SnsTopicSubscriptions } from '../adapters/notify/delivery/sns-subscriptions.js';
import { DynamoDbCheckLedger } from '../adapters/state/dynamodb/dynamodb-check-ledger.js';
import { DynamoDbSilenceStore } from '../adapters/state/dynamodb/dynamodb-silence-store.js';
import { DynamoDbStateStore } from '../adapters/state/dynamodb/dynamodb-store.js';
import { accountOfArn, regionOfZone } from '../core/aws-instance.js';
import type {
  CheckDispatch,
  CheckLedger,
  ClusterCredentials,
  ClusterReaderFactory,
  EvidenceReader,
  Looks,
  MetricsRecorder,
  StructuredLogger,
} from '../ports/index.js';
import type { RuntimeConfig } from '../settings/index.js';
import { RUNTIME_ENV } from '../settings/runtime-environment.js';
import { RECORD_BUDGET_MS } from '../use-cases/claim-and-record.js';
import { ConfirmedSubscriptionsGauge } from '../use-cases/confirmed-subscriptions.js';
import { type DispatchDeps, type DispatchReport, dispatchChecks } from '../use-cases/dispatch.js';
import {
  InvocationError,
  type InvocationEvent,
  InvocationRunner,
} from '../use-cases/invocation.js';
import { clusterPlaces, type FunctionAccount } from './cluster-places.js';
import { type DiscoveryClients, discoveryParts } from './discovery-parts.js';
import {
  type DispatchEvent,
  type HandlerEvent,
  type HandlerResult,
  type Routes,
  routed,
} from './event-routes.js';
import { collectIfGrown, heapInUse, releasingReads } from './heap-release.js';
import { cloudNotifier, type OnCallParts, onCallSenders } from './notification-paths.js';
import { runQueuedBatch } from './queued-events.js';

export type { DiscoverEvent, HandlerEvent, HandlerResult } from './event-routes.js';

/** The AWS clients the watchdog uses, built once per container by the caller. */
export interface AwsClients extends DiscoveryClients {
  readonly sns: SNSClient;
  readonly secrets: SecretsManagerClient;
  /** Signs EKS tokens. */
  readonly credentials: AwsCredentialIdentityProvider;
  /** The function's region: the default for `eks` clusters. */
  readonly region: string;
  /** The STS client that assumes `clusters[].auth.roleArn` (tests point it at a local endpoint). */
  readonly sts?: StsClientOptions | undefined;
  /** An EventBridge client for a region, for `eventBus` (built only when it is set). */
  readonly eventBridge?: ((region: string) => EventBridgeClient) | undefined;
  /** The EC2 endpoint of a region (default `https://ec2.<region>.amazonaws.com`). */
  readonly ec2Endpoint?: ((region: string) => string) | undefined;
  /** Sends the watchdog's own looks (with RECHECK_QUEUE_URL). */
  readonly sqs?: SQSClient | undefined;
}

/** What the handler is built from; the paging tools' `receivers` and `onCallBaseUrls` too. */
export interface HandlerParts extends Pick<OnCallParts, 'onCallBaseUrls' | 'receivers'> {
  readonly clients: AwsClients;
  /** Epoch ms. Default Date.now. */
  readonly clock?: () => number;
  /** Default: a Powertools Logger writing structured lines to stdout. */
  readonly powertoolsLogger?: Logger;
  /** The watchdog's own logger and metrics ports; default: adapters over Powertools. */
  readonly logger?: StructuredLogger;
  readonly metrics?: MetricsRecorder;
  /** Wraps the cluster credentials (tests inject failures here). */
  readonly credentials?: (provider: ClusterAuthProvider) => ClusterCredentials;
  /** How long reading a FIRING's evidence may hold it back (default EVIDENCE_BUDGET_MS). */
  readonly evidenceBudgetMs?: number;
  /** Where the watchdog asks for its own looks; default SQS when the config names a queue. */
  readonly looks?: Looks;
  /** Where the dispatcher sends each cluster's check; default SQS when the config names a queue. */
  readonly dispatch?: CheckDispatch;
  /**
   * Tests and benches only: each cluster's reader (a stand-in serving many clusters cheaply);
   * default the authenticated reader of each cluster's `auth`. The Lambda's entry never sets it.
   */
  readonly readers?: ClusterReaderFactory;
  /**
   * The heap growth over an invocation (and over a cluster's read) past which its garbage is
   * collected before it returns (before the check judges the read): heap-release.ts; default
   * COLLECT_GROWTH_BYTES.
   */
  readonly collectGrowthBytes?: number;
}

export type WatchdogHandler = middy.MiddyfiedHandler<HandlerEvent, HandlerResult, Error, Context>;

/**
 * The last resort: middy rejects the invocation this long before Lambda's own deadline, should the
 * watchdog overrun its own (which leaves RECORD_BUDGET_MS before this for recording deliveries).
 */
const LAST_RESORT_MS = 500;

/**
 * What a check needs after its read: the FIRING's evidence (EVIDENCE_BUDGET_MS, 2 s), the claim
 * (one conditional PutItem) and the publish (one SNS call per notification, usually well under a
 * second each). A read that used all the invocation's time would leave its WATCHDOG queued and
 * never sent, check after check.
 */
export const DELIVERY_BUDGET_MS = 5_000;

/**
 * The watchdog's own deadline: reads and publishes stop RECORD_BUDGET_MS before middy's last
 * resort, so that recording what SNS accepted is awaited inside the invocation (a record made
 * after the invocation returned is frozen or lost, and the notifications would go out again).
 *
 * And when reading must stop (`readDeadline`): DELIVERY_BUDGET_MS before the watchdog's own
 * deadline, so that a read cut short (a `timeout` failure of the cluster) still has its WATCHDOG
 * saved and published within the invocation. It bounds the reader's own budget (READ_BOUNDS,
 * 120 s) to what the function has: with the default 60 s timeout, 52 s. An invocation left less
 * than twice that budget (never a deployed one: its timeout is at least 60 s) reads until its
 * deadline: reading comes first.
 */
function deadlineSignals(context: Context) {
  const left = Math.max(0, context.getRemainingTimeInMillis() - LAST_RESORT_MS - RECORD_BUDGET_MS);
  const read = left > 2 * DELIVERY_BUDGET_MS ? left - DELIVERY_BUDGET_MS : left;
  return { deadline: AbortSignal.timeout(left), readDeadline: AbortSignal.timeout(read) };
}

function loggerPort(logger: Logger): StructuredLogger {
  return {
    info: (message, fields = {}) => logger.info(message, fields as LogAttributes),
    warn: (message, fields = {}) => logger.warn(message, fields as LogAttributes),
    error: (message, fields = {}) => logger.error(message, fields as LogAttributes),
  };
}

/** What every part of the handler is built from, once per container. */
interface Built {
  readonly config: RuntimeConfig;
  readonly parts: HandlerParts;
  readonly logger: StructuredLogger;
  readonly metrics: MetricsRecorder;
  readonly clock: () => number;
  /** The function's own account, learnt from the first invocation's ARN. */
  readonly functionAccount: FunctionAccount;
  readonly ledger: CheckLedger;
}

/** The watchdog an invocation runs: every part built once per container from the settings. */
function createInvocationRunner(built: Built) {
  const { config, parts, logger, metrics, clock } = built;
  const { clients } = parts;
  const { awsCredentials, credentials } = clusterCredentials(clients, clock, parts.credentials);
  const discovery = discoveryParts(config, clients, awsCredentials, built);
  const places = clusterPlaces(
    config.settings.clusters,
    clients.region,
    built.functionAccount,
    (name) => discovery?.settingsOf(name),
  );
  const requestTimeoutMs = config.settings.requestTimeoutSeconds * 1000;
  const notifier = cloudNotifier(config, clients, built, places.renderContext);
  const runner = new InvocationRunner({
    settings: config.settings,
    readers: releasingReads(
      parts.readers ??
        authenticatedReaders({
          credentials,
          requestTimeoutMs,
          nodeRefreshMs: config.settings.nodeRefreshSeconds * 1000,
          clock,
          logger,
        }),
      parts.collectGrowthBytes,
    ),
    ...stateStores(built),
    notifier,
    evidence: (cluster): EvidenceReader[] => [
      new InstanceStateReader({
        credentials: awsCredentials.forCluster(cluster),
        endpoint: clients.ec2Endpoint,
        regionOf: (node) => places.awsPlace(cluster.name)?.region ?? regionOfZone(node.zone),
      }),
      new NodeEventsReader({
        kubeConfig: (signal) => credentials.kubeConfigFor(cluster, signal),
        requestTimeoutMs,
      }),
    ],
    ...(parts.evidenceBudgetMs === undefined ? {} : { evidenceBudgetMs: parts.evidenceBudgetMs }),
    logger,
    metrics,
    clock,
    looks: parts.looks ?? sqsLooks(config, clients, clock),
    onCall: onCallSenders(config, parts, clock),
    directory: discovery?.directory,
    deleted: discovery && ((name, signal) => discovery.deleted(name, notifier, signal)),
    ledger: built.ledger,
  });
  return { runner, discovery, notifier };
}

/** The clusters' state and the silences, in the state table. */
function stateStores({ parts, config, clock, logger }: Built) {
  const table = { client: parts.clients.dynamodb, tableName: config.stateTable, clock };
  return {
    store: new DynamoDbStateStore({ ...table, logger }),
    silences: new DynamoDbSilenceStore(table),
  };
}

/**
 * Each cluster's credentials: its AWS credentials (its assumed role, or the function's own), and
 * what the Kubernetes clients authenticate with (`wrap`: tests inject failures there).
 */
function clusterCredentials(
  clients: AwsClients,
  clock: () => number,
  wrap: HandlerParts['credentials'],
) {
  const awsCredentials = new ClusterAwsCredentials({
    credentials: clients.credentials,
    region: clients.region,
    now: clock,
    sts: clients.sts,
  });
  const provider = new ClusterAuthProvider({
    secrets: clients.secrets,
    eks: clients.eks,
    awsCredentials,
    region: clients.region,
    now: clock,
  });
  return { awsCredentials, credentials: wrap ? wrap(provider) : provider };
}

function sqsLooks(config: RuntimeConfig, clients: AwsClients, clock: () => number) {
  const { recheckQueueUrl: queueUrl } = config;
  if (queueUrl === undefined || clients.sqs === undefined) return undefined;
  return new SqsLooks({ client: clients.sqs, queueUrl, clock });
}

/**
 * The dispatcher's run (use-cases/dispatch.ts), with the parts it needs built once; it refuses an
 * event whose period is not a whole number of seconds, and a function that has no dispatch queue.
 */
function fleetDispatcher(
  config: RuntimeConfig,
  parts: HandlerParts,
  shared: Pick<DispatchDeps, 'ledger' | 'directory' | 'logger' | 'metrics' | 'notifier'>,
) {
  const { dispatchQueueUrl: queueUrl } = config;
  const { sqs } = parts.clients;
  const checks =
    parts.dispatch ??
    (queueUrl === undefined || sqs === undefined
      ? undefined
      : new SqsChecks({ client: sqs, queueUrl }));
  return async (event: DispatchEvent, signal: AbortSignal): Promise<DispatchReport> => {
    const period = event.dispatch?.periodSeconds;
    if (!Number.isInteger(period) || (period as number) < 60) {
      throw new InvocationError(
        `the dispatch event must be { "dispatch": { "periodSeconds": <whole seconds, at least 60> } } (got ${JSON.stringify(event.dispatch)})`,
      );
    }
    if (checks === undefined) {
      throw new InvocationError(
        `a dispatch event needs ${RUNTIME_ENV.dispatchQueueUrl}: the stack sets it with the dispatcher (dispatch: true)`,
      );
    }
    const deps = { ...shared, settings: config.settings, checks };
    return dispatchChecks({ ...deps, clock: parts.clock ?? Date.now }, period as number, signal);
  };
}

/**
 * What each kind of event runs, by the key that names it (event-routes.ts); any other event is a
 * scheduled check (or the look it names).
 */
function handlerRoutes(built: Built, watchdog: ReturnType<typeof createInvocationRunner>): Routes {
  const { config, parts, logger, metrics, ledger } = built;
  const { discovery, notifier } = watchdog;
  const dispatcher = fleetDispatcher(config, parts, {
    ledger,
    directory: discovery?.directory,
    logger,
    metrics,
    notifier: cloudNotifier(config, parts.clients, built, () => ({})),
  });
  return {
    discover: async (_event, { deadline }) => {
      if (discovery === undefined) {
        throw new InvocationError('the event asks for discovery, but discover is not set');
      }
      return { clusters: [], discovery: await discovery.run(notifier, deadline) };
    },
    dispatch: async (event, { deadline }) => ({
      clusters: [],
      dispatch: await dispatcher(event, deadline),
    }),
    // The watchdog's own looks (or dispatched checks), the clusters side by side; one that fails
    // is delivered again (and, past the queue's maxReceiveCount, kept in its dead-letter queue).
    Records: (event, { run }) =>
      runQueuedBatch(event.Records, run, (messageId, error) => {
        logger.error('a queued look failed; SQS delivers it again', {
          messageId,
          error: error instanceof Error ? error.message : String(error),
        });
      }),
  };
}

/** The middy handler: Powertools context in every log line, the watchdog's own deadline. */
export function createHandler(config: RuntimeConfig, parts: HandlerParts): WatchdogHandler {
  const logger = parts.powertoolsLogger ?? new Logger({ serviceName: SERVICE_NAME });
  const built: Built = {
    config,
    parts,
    logger: parts.logger ?? loggerPort(logger),
    metrics:
      parts.metrics ??
      powertoolsMetrics(new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME })),
    clock: parts.clock ?? Date.now,
    functionAccount: {},
    ledger: new DynamoDbCheckLedger(parts.clients.dynamodb, config.stateTable),
  };
  const watchdog = createInvocationRunner(built);
  const routes = handlerRoutes(built, watchdog);
  // Beside the checks, never in their way: bounded by the same deadline, and it never rejects.
  const subscriptions = new ConfirmedSubscriptionsGauge({
    subscriptions: new SnsTopicSubscriptions({
      client: parts.clients.sns,
      topicArn: config.topicArn,
    }),
    metrics: built.metrics,
    logger: built.logger,
    clock: built.clock,
  });
  return middy<HandlerEvent, HandlerResult, Error, Context>({
    timeoutEarlyInMillis: LAST_RESORT_MS,
  })
    .use(injectLambdaContext(logger))
    .handler(async (event, context) => {
      const heapAtStart = heapInUse();
      const { deadline, readDeadline } = deadlineSignals(context);
      built.functionAccount.id = accountOfArn(context.invokedFunctionArn);
      const counted = subscriptions.report(deadline);
      const run = (look: InvocationEvent | null) =>
        watchdog.runner.run(look, {
          runId: context.awsRequestId,
          lockMs: context.getRemainingTimeInMillis(),
          signal: deadline,
          readSignal: readDeadline,
        });
      try {
        return await routed(event, routes, { deadline, run });
      } finally {
        await counted;
        // What a large check left behind goes before the function is frozen.
        await collectIfGrown(heapAtStart, parts.collectGrowthBytes);
      }
    });
}
