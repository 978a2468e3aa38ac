/**
 * The end-to-end harness's shapes (testkit/watchdog-harness.ts): what a test asks for
 * (HarnessOptions: the clusters behind the watchdog, its settings, where its clients go) and what
 * it gets (Harness, its Containers and SimTargets), with the constants they share. Types and
 * constants only: importing them loads none of the parts.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ClusterAuthProvider } from '../lambda/adapters/kube/config/cluster-auth.js';
import type { Receiver } from '../lambda/adapters/on-call/receivers.js';
import type {
  DiscoverEvent,
  HandlerEvent,
  WatchdogHandler,
} from '../lambda/handler/create-handler.js';
import type { ClusterCredentials, ClusterReaderFactory } from '../lambda/ports/index.js';
import type { WatchdogSettings } from '../lambda/settings/index.js';
import type { DiscoveryReport } from '../lambda/use-cases/discovery.js';
import type { DispatchReport } from '../lambda/use-cases/dispatch.js';
import type { ClusterReport, InvocationEvent } from '../lambda/use-cases/invocation.js';
import type { SimCluster } from '../sim/cluster.js';
import type { SimServer } from '../sim/server.js';
import type { ConnectProxy } from './connect-proxy.js';
import type { DynamoDbKind, LocalDynamoDb } from './dynalite.js';
import type { FakeClock } from './fake-clock.js';
import type { HostileFront } from './hostile-front.js';
import type { OpsgenieServer } from './opsgenie-server.js';
import type { PagerDutyServer } from './pagerduty-server.js';
import type { QueuedLooks } from './queued-looks.js';
import type { RecordingLogger, RecordingMetrics } from './recording-ports.js';
import type { SecretsServer } from './secrets-server.js';
import type { ReceivedMessage, SnsServer } from './sns-server.js';

/** The default schedule: one invocation a minute. */
export const SCHEDULE_MS = 60_000;
export const TOPIC_ARN = 'arn:aws:sns:us-east-1:123456789012:lease-watchdog-alerts';

/** Static fake credentials; a fresh object each time (the SDK annotates the one it is given). */
export function localCredentials(): { accessKeyId: string; secretAccessKey: string } {
  return { accessKeyId: 'local', secretAccessKey: 'local' };
}

/** Something to stop when the harness closes (in the reverse order of starting). */
export type Closer = () => Promise<void> | void;

export interface SimClusterSpec {
  /** Nodes spread round-robin over `zones` (default 6 over eu-west-1a/b/c). */
  readonly nodes?: number;
  readonly zones?: string[];
  readonly seed?: number;
  /** Put a hostile HTTPS front (testkit/hostile-front.ts) between the watchdog and the sim. */
  readonly front?: boolean;
  /** More settings of this cluster (e.g. `maintenanceWindows`). */
  readonly settings?: Readonly<Record<string, unknown>>;
  /**
   * Read it through a kubeconfig `proxy-url`: `true`, a forward proxy of the harness's own
   * (testkit/connect-proxy.ts, the target's `proxy`), or this URL. The cluster is then in
   * kubeconfig mode, its kubeconfig (the server's, with the proxy-url) in a secret.
   */
  readonly proxy?: true | string;
}

export interface HarnessOptions {
  /** Cluster name → the simulated cluster behind it. Default `{ prod: {} }`. */
  readonly clusters?: Readonly<Record<string, SimClusterSpec>>;
  /** Extra top-level settings (gracePeriodSeconds, reminderIntervalSeconds, storm...). */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** The paging receivers (default RECEIVERS): a test adds one by its row. */
  readonly receivers?: readonly Receiver[];
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
  /** The machine topic (MACHINE_TOPIC_ARN), with `machineTopic: true` in `settings`. */
  readonly machineTopicArn?: string;
  /** Where the EventBridge client goes (testkit/events-server.ts), with `eventBus` in `settings`. */
  readonly eventBridgeEndpoint?: string;
  /** `eks` clusters added to the settings (their `auth` without `mode`). */
  readonly eksClusters?: Readonly<
    Record<string, { clusterName?: string; region?: string; roleArn?: string }>
  >;
  /** Where the EKS clients go (testkit/eks-server.ts); default a closed port. */
  readonly eksEndpoint?: string;
  /** EKS client attempts (the SDK's own retry; default 1: every failure is seen). */
  readonly eksMaxAttempts?: number;
  /** FUNCTION_ROLE_ARN, as the stack sets it with `discover`. */
  readonly functionRoleArn?: string;
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
  /**
   * With `withLooks`: the fleet's dispatcher sends its checks on the same fake-clock queue
   * (`h.looks.checks`), delivered by `h.advanceTo` like the looks.
   */
  readonly withDispatch?: boolean;
  /** Each cluster's reader instead of the authenticated one (a stand-in serving many clusters). */
  readonly readers?: ClusterReaderFactory;
  /** A PagerDuty stand-in (testkit/pagerduty-server.ts, `h.pagerDuty`) and the `pagerDuty` setting. */
  readonly pagerDuty?: boolean;
  /** An Opsgenie stand-in (testkit/opsgenie-server.ts, `h.opsgenie`) and the `opsgenie` setting. */
  readonly opsgenie?: boolean;
  /** Where receivers' APIs are, by tool, on loopback (e.g. testkit/alertmanager.ts): tests only. */
  readonly onCallBaseUrls?: Readonly<Record<string, string>>;
  /** Where the fake clock starts (default T0): near the real time for a part that reads its own. */
  readonly clockStart?: number;
  /** The handler's `collectGrowthBytes` (heap-release.ts); default its own. */
  readonly collectGrowthBytes?: number;
  /** The local DynamoDB (testkit/dynalite.ts): `moto` validates as DynamoDB does. Default dynalite. */
  readonly dynamoDb?: DynamoDbKind;
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
  /** The forward proxy the watchdog reads through, when the spec asked for one (`proxy: true`). */
  readonly proxy?: ConnectProxy;
}

export interface Invocation {
  /** The Lambda request id (default: a fresh run id). */
  readonly runId?: string;
  /** What `context.getRemainingTimeInMillis()` says at the start, real ms (default 55,000). */
  readonly remainingMs?: number;
}

export type Report = {
  clusters: ClusterReport[];
  discovery?: DiscoveryReport;
  dispatch?: DispatchReport;
  batchItemFailures?: { itemIdentifier: string }[];
};

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

/** How a container differs from the harness's default one. */
export interface ContainerOverrides {
  readonly credentials?: (provider: ClusterAuthProvider) => ClusterCredentials;
  readonly metrics?: RecordingMetrics;
  /** Where this container's DynamoDB client goes (e.g. a lossy proxy); default dynalite. */
  readonly dynamoEndpoint?: string;
  /** DynamoDB client attempts (default 1: every failure is seen; the SDK default is 3). */
  readonly dynamoMaxAttempts?: number;
  /**
   * The handler's own metrics (Powertools, EMF lines on stdout) instead of recording them at
   * the port; `metrics` then records nothing.
   */
  readonly emfMetrics?: boolean;
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
  /** The PagerDuty stand-in, with the `pagerDuty` option. */
  readonly pagerDuty?: PagerDutyServer | undefined;
  /** The Opsgenie stand-in, with the `opsgenie` option. */
  readonly opsgenie?: OpsgenieServer | undefined;
  target(name?: string): SimTarget;
  /** Another container (as a concurrent or later Lambda invocation would get). */
  container(overrides?: ContainerOverrides): Container;
  /** One invocation of the default container, at the clock's now, with a fresh run id. */
  run(event?: HandlerEvent): Promise<Report>;
  /** Advances the clock by one schedule interval, then runs. */
  tick(event?: InvocationEvent | DiscoverEvent | null): Promise<Report>;
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
