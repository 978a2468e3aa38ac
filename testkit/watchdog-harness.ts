/**
 * The scheduled function with real parts, for end-to-end tests: one or more simulated clusters
 * behind their HTTPS API servers, a local Secrets Manager holding their bearer tokens, dynalite
 * with the state table, a local SNS endpoint, real AWS SDK clients pointed at them (static fake
 * credentials, us-east-1), and the middy handler that `createHandler` builds, middlewares included,
 * exactly as `lambda/handler/handler.ts` builds it. Only the logger and metrics are fakes (they are ports),
 * and the clock: one fake clock drives the sims
 * (lazy lease renewals, the API's Date header), the watchdog, the state TTL, the SNS server's
 * `receivedAt` and the fast-mode sleep, so an hour of schedule takes a second. Never AWS.
 *
 *   const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } } });
 *   await h.run();            // one scheduled invocation, now
 *   await h.tick();           // advance the clock by the schedule interval, then run
 *   h.sns.messages            // what SNS accepted
 *   await h.close();
 */

import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EKSClient } from '@aws-sdk/client-eks';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import type { ClusterAuthProvider } from '../lambda/adapters/kube/cluster-auth.js';
import {
  createHandler,
  type HandlerEvent,
  type WatchdogHandler,
} from '../lambda/handler/create-handler.js';
import type {
  ClusterCredentials,
  MetricName,
  MetricsRecorder,
  ServiceMetricName,
  StructuredLogger,
} from '../lambda/ports/index.js';
import {
  CLUSTER_FILE,
  functionSettingsOf,
  loadRuntimeConfig,
  parseWatchdogSettings,
  RUNTIME_ENV,
  type WatchdogSettings,
} from '../lambda/settings/index.js';
import type { ClusterReport, InvocationEvent } from '../lambda/use-cases/invocation.js';
import { SimCluster } from '../sim/cluster.js';
import { type SimServer, startSimServer } from '../sim/server.js';
import { type LocalDynamoDb, startLocalDynamoDb } from './dynalite.js';
import { FakeClock } from './fake-clock.js';
import { type HostileFront, startHostileFront } from './hostile-front.js';
import { closedPort } from './ports.js';
import { QueuedLooks } from './queued-looks.js';
import { type SecretsServer, startSecretsServer } from './secrets-server.js';
import { type ReceivedMessage, type SnsServer, startSnsServer } from './sns-server.js';

export { FakeClock, T0 } from './fake-clock.js';
/** The default schedule: one invocation a minute. */
export const SCHEDULE_MS = 60_000;
export const TOPIC_ARN = 'arn:aws:sns:us-east-1:123456789012:lease-watchdog-alerts';
/** Static fake credentials; a fresh object each time (the SDK annotates the one it is given). */
export function localCredentials(): { accessKeyId: string; secretAccessKey: string } {
  return { accessKeyId: 'local', secretAccessKey: 'local' };
}

export interface RecordedMetric {
  readonly cluster: string;
  readonly name: MetricName;
  readonly value: number;
  readonly unit: string;
  readonly extra?: Record<string, string> | undefined;
}

/** Metrics at the port: every record, in order. */
export class RecordingMetrics implements MetricsRecorder {
  readonly records: RecordedMetric[] = [];
  /** Optional observer (e.g. to log the order of events across parts). */
  onRecord: ((metric: RecordedMetric) => void) | undefined;

  record(
    cluster: string,
    name: MetricName,
    value: number,
    unit: 'Count' | 'Milliseconds',
    extra?: Record<string, string>,
  ): void {
    const metric = { cluster, name, value, unit, extra };
    this.records.push(metric);
    this.onRecord?.(metric);
  }

  /** Records of one metric (for one cluster, when given). */
  of(name: MetricName, cluster?: string): RecordedMetric[] {
    return this.records.filter((m) => m.name === name && (!cluster || m.cluster === cluster));
  }

  /** How many records of `name` were made since `mark` (an index from `mark()`). */
  countSince(mark: number, name: MetricName, cluster?: string): number {
    return this.records
      .slice(mark)
      .filter((m) => m.name === name && (!cluster || m.cluster === cluster)).length;
  }

  mark(): number {
    return this.records.length;
  }

  /** Metrics of the whole deployment (`recordForService`), in order. */
  readonly service: { name: ServiceMetricName; value: number; unit: string }[] = [];

  recordForService(name: ServiceMetricName, value: number, unit: 'Count'): void {
    this.service.push({ name, value, unit });
  }
}

export interface LogEntry {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

/** A logger at the port: every entry, in order. */
export class RecordingLogger implements StructuredLogger {
  readonly entries: LogEntry[] = [];
  info(message: string, fields: Record<string, unknown> = {}): void {
    this.entries.push({ level: 'info', message, fields });
  }
  warn(message: string, fields: Record<string, unknown> = {}): void {
    this.entries.push({ level: 'warn', message, fields });
  }
  error(message: string, fields: Record<string, unknown> = {}): void {
    this.entries.push({ level: 'error', message, fields });
  }
}

export interface SimClusterSpec {
  /** Nodes spread round-robin over `zones` (default 6 over eu-west-1a/b/c). */
  readonly nodes?: number;
  readonly zones?: string[];
  readonly seed?: number;
  /** Put a hostile HTTPS front (testkit/hostile-front.ts) between the watchdog and the sim. */
  readonly front?: boolean;
  /** More settings of this cluster (e.g. `maintenanceWindows`). */
  readonly settings?: Readonly<Record<string, unknown>>;
}

export interface HarnessOptions {
  /** Cluster name → the simulated cluster behind it. Default `{ prod: {} }`. */
  readonly clusters?: Readonly<Record<string, SimClusterSpec>>;
  /** Extra top-level settings (gracePeriodSeconds, reminderIntervalSeconds, storm, fastMode...). */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Clusters added to the settings whose API server nothing listens on. */
  readonly unreachableClusters?: readonly string[];
  /** Clusters added to the settings behind a scripted API server (e.g. testkit/tiny-api.ts). */
  readonly scriptedClusters?: Readonly<Record<string, ScriptedCluster>>;
  /** SNS client attempts (1: every failure is seen by the watchdog; the SDK default is 3). */
  readonly snsMaxAttempts?: number;
  /** Per-request timeout towards the API servers, real seconds. Default 2. */
  readonly requestTimeoutSeconds?: number;
  /** The chat topic (CHAT_TOPIC_ARN), with `chatNotifications` in `settings`. */
  readonly chatTopicArn?: string;
  /** Where the EventBridge client goes (testkit/events-server.ts), with `eventBus` in `settings`. */
  readonly eventBridgeEndpoint?: string;
  /** `eks` clusters added to the settings (their `auth` without `mode`). */
  readonly eksClusters?: Readonly<
    Record<string, { clusterName?: string; region?: string; roleArn?: string }>
  >;
  /** Where the EKS clients go (testkit/eks-server.ts); default a closed port. */
  readonly eksEndpoint?: string;
  /** Where the STS client that assumes roles goes (testkit/sts-server.ts). */
  readonly stsEndpoint?: string;
  /** Where the EC2 evidence calls go (every region); default a closed port: never AWS. */
  readonly ec2Endpoint?: string;
  /** How long a FIRING's evidence may hold it back, real ms (default the handler's, 2 s). */
  readonly evidenceBudgetMs?: number;
  /**
   * The watchdog asks for looks of its own (re-checks, routine looks), delivered on the fake
   * clock by `h.advanceTo` (as the SQS queue does in the cloud). Default: off, it looks only when run.
   */
  readonly withLooks?: boolean;
}

/** An API server the test scripts: its URL, the CA that signed its certificate, its token. */
export interface ScriptedCluster {
  readonly url: string;
  readonly caPem: string;
  readonly token: string;
}

export interface SimTarget {
  readonly name: string;
  readonly sim: SimCluster;
  readonly server: SimServer;
  readonly tokenSecretId: string;
  /** Node names, in the order they were added (round-robin over the zones). */
  readonly nodes: string[];
  /** The hostile front the watchdog reads through, when the spec asked for one. */
  readonly front?: HostileFront;
}

export interface Invocation {
  /** The Lambda request id (default: a fresh run id). */
  readonly runId?: string;
  /** What `context.getRemainingTimeInMillis()` says at the start, real ms (default 55,000). */
  readonly remainingMs?: number;
}

export type Report = { clusters: ClusterReport[] };

/** One "Lambda container": its own clients, caches and handler, sharing the outside world. */
export interface Container {
  readonly handler: WatchdogHandler;
  /** One invocation of the handler, as Lambda would make it. */
  invoke(event?: HandlerEvent, invocation?: Invocation): Promise<Report>;
  readonly metrics: RecordingMetrics;
  readonly logger: RecordingLogger;
  /** Its DynamoDB client (e.g. to count the capacity units that the state store consumed). */
  readonly dynamodb: DynamoDBClient;
  destroy(): void;
}

export interface Harness {
  readonly clock: FakeClock;
  readonly settings: WatchdogSettings;
  readonly targets: ReadonlyMap<string, SimTarget>;
  readonly sns: SnsServer;
  readonly secrets: SecretsServer;
  readonly dynamo: LocalDynamoDb;
  readonly tableName: string;
  /** The default container's parts. */
  readonly metrics: RecordingMetrics;
  readonly logger: RecordingLogger;
  target(name?: string): SimTarget;
  /** Another container (as a concurrent or later Lambda invocation would get). */
  container(overrides?: {
    credentials?: (provider: ClusterAuthProvider) => ClusterCredentials;
    metrics?: RecordingMetrics;
    /** Where this container's DynamoDB client goes (e.g. a lossy proxy); default dynalite. */
    dynamoEndpoint?: string;
    /** DynamoDB client attempts (default 1: every failure is seen; the SDK default is 3). */
    dynamoMaxAttempts?: number;
    /**
     * The handler's own metrics (Powertools, EMF lines on stdout) instead of recording them at
     * the port; `metrics` then records nothing.
     */
    emfMetrics?: boolean;
  }): Container;
  /** One invocation of the default container, at the clock's now, with a fresh run id. */
  run(event?: InvocationEvent | null): Promise<Report>;
  /** Advances the clock by one schedule interval, then runs. */
  tick(event?: InvocationEvent | null): Promise<Report>;
  /** The watchdog's own looks (with the `withLooks` option). */
  readonly looks: QueuedLooks | undefined;
  /** Moves the clock to `time`, delivering the watchdog's own looks due by then, each at its time. */
  advanceTo(time: number): Promise<void>;
  /** A fresh run id (like a Lambda request id). */
  nextRunId(): string;
  /** Messages SNS accepted, optionally of one kind (the `kind` message attribute). */
  messages(kind?: string): ReceivedMessage[];
  close(): Promise<void>;
}

let tables = 0;

export async function startWatchdogHarness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = new FakeClock();
  const specs = options.clusters ?? { prod: {} };
  const closers: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    const secrets = await startSecretsServer();
    closers.push(() => secrets.close());
    const dynamo = await startLocalDynamoDb();
    closers.push(() => dynamo.stop());
    const sns = await startSnsServer({ now: clock.now });
    closers.push(() => sns.close());
    const tableName = `lease-watchdog-e2e-${++tables}`;
    await dynamo.createStateTable(tableName);

    const targets = new Map<string, SimTarget>();
    const clusterSettings: unknown[] = [];
    for (const [name, spec] of Object.entries(specs)) {
      const sim = new SimCluster({ now: clock.now, seed: spec.seed ?? 11 });
      const nodes = sim.addNodes(spec.nodes ?? 6, {
        zones: spec.zones ?? ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'],
      });
      const server = await startSimServer({ cluster: sim });
      closers.push(() => server.close());
      const tokenSecretId = `${name}-token`;
      secrets.put(tokenSecretId, server.token);
      const front = spec.front ? await startHostileFront(server.url, server.caPem) : undefined;
      if (front) closers.push(() => front.close());
      targets.set(name, { name, sim, server, tokenSecretId, nodes, ...(front ? { front } : {}) });
      clusterSettings.push({
        name,
        auth: {
          mode: 'token',
          server: front?.url ?? server.url,
          caData: Buffer.from(front?.caPem ?? server.caPem).toString('base64'),
          tokenSecretId,
        },
        ...spec.settings,
      });
    }
    for (const [name, scripted] of Object.entries(options.scriptedClusters ?? {})) {
      const tokenSecretId = `${name}-token`;
      secrets.put(tokenSecretId, scripted.token);
      clusterSettings.push({
        name,
        auth: {
          mode: 'token',
          server: scripted.url,
          caData: Buffer.from(scripted.caPem).toString('base64'),
          tokenSecretId,
        },
      });
    }
    for (const name of options.unreachableClusters ?? []) {
      const tokenSecretId = `${name}-token`;
      secrets.put(tokenSecretId, 'no-one-listens');
      clusterSettings.push({
        name,
        auth: {
          mode: 'token',
          server: `https://127.0.0.1:${await closedPort()}`,
          tokenSecretId,
        },
      });
    }
    for (const [name, auth] of Object.entries(options.eksClusters ?? {})) {
      clusterSettings.push({ name, auth: { mode: 'eks', ...auth } });
    }
    const settings = parseWatchdogSettings({
      requestTimeoutSeconds: options.requestTimeoutSeconds ?? 2,
      ...options.settings,
      clusters: clusterSettings,
    });
    const functionSettings = functionSettingsOf(settings);
    const ec2Endpoint = options.ec2Endpoint ?? `http://127.0.0.1:${await closedPort()}`;
    const looks = options.withLooks ? new QueuedLooks(clock) : undefined;
    let runs = 0;
    const nextRunId = () => `run-${String(++runs).padStart(4, '0')}`;

    const container: Harness['container'] = (overrides = {}) => {
      const dynamoClient = new DynamoDBClient({
        endpoint: overrides.dynamoEndpoint ?? dynamo.endpoint,
        region: 'us-east-1',
        credentials: localCredentials(),
        maxAttempts: overrides.dynamoMaxAttempts ?? 1,
      });
      const snsClient = new SNSClient({
        endpoint: sns.url,
        region: 'us-east-1',
        credentials: localCredentials(),
        maxAttempts: options.snsMaxAttempts ?? 1,
      });
      // Token mode never calls EKS; a client for a closed port proves it if it ever does (eks
      // clusters give `eksEndpoint`).
      const eksClients: EKSClient[] = [];
      const eventClients: EventBridgeClient[] = [];
      const metrics = overrides.metrics ?? new RecordingMetrics();
      const logger = new RecordingLogger();
      const handler = createHandler(
        // As the function finds its settings: the environment the stack sets, and the clusters
        // in the file the stack writes into its code (lambda/settings/cluster-file.ts).
        loadRuntimeConfig(
          {
            [RUNTIME_ENV.settings]: functionSettings.environment,
            [RUNTIME_ENV.topicArn]: TOPIC_ARN,
            [RUNTIME_ENV.stateTable]: tableName,
            ...(options.chatTopicArn ? { [RUNTIME_ENV.chatTopicArn]: options.chatTopicArn } : {}),
          },
          { path: CLUSTER_FILE, read: () => functionSettings.clusterFile },
        ),
        {
          clients: {
            sns: snsClient,
            dynamodb: dynamoClient,
            secrets: secrets.client,
            eks: (region, credentials) => {
              const client = new EKSClient({
                endpoint: options.eksEndpoint ?? 'http://127.0.0.1:9',
                region: region ?? 'us-east-1',
                credentials: credentials ?? localCredentials(),
                maxAttempts: 1,
              });
              eksClients.push(client);
              return client;
            },
            credentials: async () => localCredentials(),
            region: 'us-east-1',
            ...(options.stsEndpoint
              ? { sts: { endpoint: options.stsEndpoint, maxAttempts: 1 } }
              : {}),
            eventBridge: (region) => {
              const client = new EventBridgeClient({
                // Nothing listens on port 9: a test that puts events gives its endpoint.
                endpoint: options.eventBridgeEndpoint ?? 'http://127.0.0.1:9',
                region,
                credentials: localCredentials(),
                maxAttempts: 1,
              });
              eventClients.push(client);
              return client;
            },
            ec2Endpoint: () => ec2Endpoint,
          },
          ...(options.evidenceBudgetMs === undefined
            ? {}
            : { evidenceBudgetMs: options.evidenceBudgetMs }),
          clock: clock.now,
          sleep: clock.sleep,
          powertoolsLogger: new Logger({ serviceName: 'lease-watchdog', logLevel: 'SILENT' }),
          logger,
          ...(overrides.emfMetrics ? {} : { metrics }),
          ...(overrides.credentials ? { credentials: overrides.credentials } : {}),
          ...(looks ? { looks: looks } : {}),
        },
      );
      const destroy = () => {
        dynamoClient.destroy();
        snsClient.destroy();
        for (const client of eksClients) client.destroy();
        for (const client of eventClients) client.destroy();
      };
      closers.push(destroy);
      const invoke = (event: HandlerEvent = null, invocation: Invocation = {}) =>
        handler(event, lambdaContext(invocation.runId ?? nextRunId(), invocation.remainingMs));
      return { handler, invoke, metrics, logger, dynamodb: dynamoClient, destroy };
    };

    const main = container();
    const run = (event: InvocationEvent | null = null) => main.invoke(event);

    return {
      clock,
      settings,
      targets,
      sns,
      secrets,
      dynamo,
      tableName,
      metrics: main.metrics,
      logger: main.logger,
      target(name) {
        const target = name === undefined ? targets.values().next().value : targets.get(name);
        if (!target) throw new Error(`no simulated cluster ${String(name)}`);
        return target;
      },
      container,
      run,
      tick(event = null) {
        clock.advance(SCHEDULE_MS);
        return run(event);
      },
      looks,
      async advanceTo(time) {
        if (looks) await looks.runUntil(time, (event) => main.invoke(event));
        else clock.advanceTo(time);
      },
      nextRunId,
      messages: (kind) =>
        kind === undefined
          ? [...sns.messages]
          : sns.messages.filter((m) => m.attributes.kind?.stringValue === kind),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The `kind` attribute of a received message. */
export function kindOf(message: ReceivedMessage): string | undefined {
  return message.attributes.kind?.stringValue;
}

/** The three message attributes subscribers filter on, as SNS received them. */
export function attributesOf(message: ReceivedMessage): {
  cluster: string | undefined;
  kind: string | undefined;
  severity: string | undefined;
} {
  return {
    cluster: message.attributes.cluster?.stringValue,
    kind: message.attributes.kind?.stringValue,
    severity: message.attributes.severity?.stringValue,
  };
}

/** Subject and kind of each message, in order: compact for assertion messages. */
export function summary(messages: readonly ReceivedMessage[]): string {
  return JSON.stringify(messages.map((m) => `${kindOf(m)} | ${m.subject}`));
}

/** A Lambda context whose deadline is `remainingMs` of real time from now. */
export function lambdaContext(requestId: string, remainingMs = 55_000): Context {
  const deadline = Date.now() + remainingMs;
  return {
    awsRequestId: requestId,
    functionName: 'lease-watchdog',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:lease-watchdog',
    memoryLimitInMB: '512',
    logGroupName: '/aws/lambda/lease-watchdog',
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
