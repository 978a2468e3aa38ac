/**
 * The ports: what the use cases (check-cycle.ts, watchdog.ts, the CLI's `watch`) need from the
 * world outside, declared in one place. Adapters implement them — lambda/adapters/kube (reading clusters,
 * credentials), lambda/adapters/state (memory, JSON file, DynamoDB), lambda/adapters/notify (SNS, terminal),
 * lambda/adapters/metrics/emf-metrics.ts — and the composition roots (create-handler.ts, cli/compose.ts) wire them.
 * Use cases import this module, the core and the settings; never an adapter folder.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { AlertState } from '../core/alert-state.js';
import { EMPTY_ALERT_STATE } from '../core/alert-state.js';
import type { ClusterReadFailure, Observations, Snapshot, Verdict } from '../core/model.js';
import type { AlertNode, NodeEvidence, Notification } from '../core/notification.js';
import type { Policy } from '../core/policy.js';
import type { Silence } from '../core/silences.js';
import type { ClusterAuth, ClusterSettings } from '../settings/index.js';

// --- Reading a cluster --------------------------------------------------------------------------

/** Reads one cluster. */
export interface ClusterReader {
  /**
   * Lists the node Leases and the Nodes. Rejects with a ClusterReadError; honours `signal`.
   * `look`: a look between scheduled checks (a routine look, a suspect's re-check): a reader that
   * keeps the Nodes may list the Leases alone and read afresh only the nodes that may page now.
   */
  read(signal?: AbortSignal, mode?: ReadMode): Promise<Snapshot>;
}

/** `check`: a scheduled check, everything its verdicts need; `look`: what a look needs. */
export type ReadMode = 'check' | 'look';

export type { ClusterReadFailure };

/**
 * Why a cluster could not be read. Every failure of a reader is one of these, with one clear
 * line (`message`) that names what failed and what to check. Messages never contain secrets.
 */
export class ClusterReadError extends Error {
  override readonly name = 'ClusterReadError';
  constructor(
    readonly failure: ClusterReadFailure,
    message: string,
    /** HTTP status code, when the API answered. */
    readonly statusCode?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isClusterReadError(error: unknown): error is ClusterReadError {
  return error instanceof ClusterReadError;
}

/** Builds the reader of one cluster, judged by `policy` (its labels, its grace period). */
export type ClusterReaderFactory = (cluster: ClusterSettings, policy: Policy) => ClusterReader;

/** A cluster as its credentials know it: its name and how to reach it. */
export interface AuthenticatedCluster {
  readonly name: string;
  readonly auth: ClusterAuth;
}

/** Where a check gets a KubeConfig for a cluster (Secrets Manager and EKS in Lambda). */
export interface ClusterCredentials {
  kubeConfigFor(cluster: AuthenticatedCluster, signal?: AbortSignal): Promise<KubeConfig>;
  /** Drops what is cached for the cluster, so the next check fetches credentials afresh. */
  forget(cluster: AuthenticatedCluster): void;
}

// --- Keeping state ------------------------------------------------------------------------------

/** Everything the watchdog carries from one check of a cluster to the next. */
export interface ClusterState {
  /** Last seen renewTime per lease, and when it changed on the watchdog's clock. */
  readonly observations: Observations;
  readonly alerts: AlertState;
  /**
   * Notifications a check saved (with its new state) but the notifier has not accepted yet: the
   * outbox. A check saves first, then publishes oldest first, removing each once accepted.
   */
  readonly outbox: readonly Notification[];
  /**
   * Set by a run while it publishes the outbox: other runs that find an unexpired lock back off,
   * so two overlapping runs never send the same notification twice.
   */
  readonly lock?: OutboxLock | null | undefined;
  /**
   * Per outbox notification id: how many checks the notifier refused it for good (absent: 0).
   * Older state documents have none.
   */
  readonly refusals?: Readonly<Record<string, number>> | undefined;
}

export interface OutboxLock {
  /** Who holds it (e.g. the Lambda request id). */
  readonly owner: string;
  /** Watchdog-clock epoch ms after which the lock is stale (its holder died or timed out). */
  readonly until: number;
}

/** A fresh empty state (what stores hand out for a cluster never saved: nothing shared). */
export function emptyClusterState(): ClusterState {
  return { observations: new Map(), alerts: EMPTY_ALERT_STATE, outbox: [] };
}

export interface StoredState {
  /** 0 when nothing was stored yet for the cluster. */
  readonly version: number;
  readonly state: ClusterState;
  /**
   * Set when the stored state could not be read: the store kept the unreadable copy aside and
   * hands out an empty state, with the version to save over (a conditional save still protects
   * against an overlapping run). The check announces it once (a NOTICE).
   */
  readonly reset?: StateReset | undefined;
}

/** What a store did with a state it could not read. */
export interface StateReset {
  /** Why it could not be read: one line, no secrets. */
  readonly reason: string;
  /** Where the unreadable copy was kept (a DynamoDB key, a file path). */
  readonly copy: string;
}

/** Thrown by `save` when another run saved first: the loser backs off (reload, recompute). */
export class StateConflictError extends Error {
  override readonly name = 'StateConflictError';
  constructor(
    readonly cluster: string,
    readonly expectedVersion: number,
  ) {
    super(
      `state of cluster ${cluster} changed since version ${expectedVersion}: another run saved first`,
    );
  }
}

/**
 * Thrown by `load` (and `save`, when it must read first) when the stored state cannot be read:
 * a corrupt or foreign state file, shards missing from a DynamoDB generation, a bad checksum.
 * The message is one line that says what to do.
 */
export class StateCorruptError extends Error {
  override readonly name = 'StateCorruptError';
}

/** Where state is kept (DynamoDB in the cloud, a JSON file for the CLI, memory in tests). */
export interface StateStore {
  /**
   * The stored version and state. Its observations may be those of an earlier save (the DynamoDB
   * store's snapshot, docs/STATE.md): never newer than the version, and every lease that had
   * stopped changing is in them as it was saved, so a check that reads them times silence later,
   * never sooner. Everything else (alerts, outbox, lock) is exactly the version's.
   */
  load(cluster: string, signal?: AbortSignal): Promise<StoredState>;
  /**
   * Saves `state` as version `expectedVersion + 1`, only if the stored version is still
   * `expectedVersion` (0: nothing stored yet). Returns the new version; throws StateConflictError.
   */
  save(
    cluster: string,
    state: ClusterState,
    expectedVersion: number,
    signal?: AbortSignal,
  ): Promise<number>;
  /**
   * Like `load`, but a state it cannot read (what makes `load` throw StateCorruptError) is kept
   * aside and an empty state handed out instead, with `reset` saying why and where the copy is.
   * Other errors (the store cannot be reached) still throw. Stores that cannot hold unreadable
   * state need not offer it.
   */
  loadOrReset?(cluster: string, signal?: AbortSignal): Promise<StoredState>;
}

// --- Silences -----------------------------------------------------------------------------------

/**
 * Where a cluster's silences are kept: beside its state, never inside the state document (the
 * check rewrites that every minute under a conditional version; the CLI must not race it).
 */
export interface SilenceStore {
  /** The cluster's silences still kept (active, and ended within the audit period), by end. */
  list(cluster: string, signal?: AbortSignal): Promise<readonly Silence[]>;
  /** Adds one; throws SilenceError when its id is taken. */
  add(cluster: string, silence: Silence, signal?: AbortSignal): Promise<void>;
  /**
   * Ends one at `at` (its `endsAt` becomes `at`, `expiredBy` is set); returns it as stored.
   * Throws SilenceError when there is no such silence, or it has already ended.
   */
  expire(
    cluster: string,
    id: string,
    at: number,
    by: string,
    signal?: AbortSignal,
  ): Promise<Silence>;
}

/** A silence that cannot be added or ended as asked: one line saying why. */
export class SilenceError extends Error {
  override readonly name = 'SilenceError';
}

// --- Notifying ----------------------------------------------------------------------------------

/**
 * Where notifications leave. `publish` resolves only once the message was accepted; it rejects
 * with an error whose `retryable` is `false` when the message will never be accepted as it is
 * (e.g. SNS's InvalidParameter, a disabled KMS key, a topic that is gone).
 */
export interface Notifier {
  publish(notification: Notification, signal?: AbortSignal): Promise<void>;
  /** A one-line description of a notification for logs (the email subject). */
  subjectOf?(notification: Notification): string;
}

// --- Evidence at alert time --------------------------------------------------------------------

/**
 * One source of evidence about the nodes of a FIRING (lambda/adapters/kube: the node's Events; lambda/adapters/evidence:
 * EC2's word on the instance), bound to one cluster. Asked only when a FIRING is about to be saved,
 * for a few nodes, under a small time budget the use case enforces.
 */
export interface EvidenceReader {
  /** What it reads, for the line that says it could not: "EC2 state", "Kubernetes Events". */
  readonly what: string;
  /**
   * What it found about `nodes` (nodes it has nothing on are left out). Rejects with an
   * EvidenceReadError when it could read nothing; honours `signal`.
   */
  read(nodes: readonly AlertNode[], signal: AbortSignal): Promise<readonly NodeEvidence[]>;
}

/** Why evidence could not be read: one line, no secrets ("AccessDenied (grant ec2:...)"). */
export class EvidenceReadError extends Error {
  override readonly name = 'EvidenceReadError';
}

/** The evidence readers of a cluster (none: no evidence is gathered). */
export type EvidenceReaderFactory = (cluster: ClusterSettings) => readonly EvidenceReader[];

// --- Looking again ------------------------------------------------------------------------------

/**
 * Another look at one cluster, at a moment of the watchdog's own choosing: a suspect's deadline
 * (core/renewal-clock.ts), or a routine look between two scheduled runs. In the cloud, an SQS
 * message with a per-second delay that invokes the function; in tests, the fake clock.
 */
export interface Rechecks {
  /**
   * Asks for a check of `cluster` at `at` (watchdog-clock ms; now or earlier: as soon as possible),
   * naming the suspect `leases` (none: a routine look). Resolves once the request is accepted;
   * rejects when it is not (the next scheduled check still looks). Honours `signal`.
   */
  schedule(
    cluster: string,
    leases: readonly string[],
    at: number,
    signal?: AbortSignal,
  ): Promise<void>;
  /**
   * Asks for routine looks of `cluster` at each of `at` in one request (SQS: one
   * SendMessageBatch); rejects when any is not accepted. Absent: one `schedule` each.
   */
  scheduleLooks?(cluster: string, at: readonly number[], signal?: AbortSignal): Promise<void>;
}

// --- Observing the watchdog itself ---------------------------------------------------------------

/** The few logger methods the watchdog uses (Powertools Logger satisfies it). */
export interface WatchdogLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export type MetricName =
  | 'CheckSucceeded'
  | 'CheckDuration'
  | 'NodesChecked'
  | 'NodesAlerting'
  | 'ClusterReadFailures'
  | 'NotificationsSent'
  | 'NotificationsFailed'
  /** Notifications given up after being refused for good on MAX_REFUSALS checks. */
  | 'NotificationsAbandoned'
  /** 1 for a check that ran degraded (Nodes unreadable, leases read), 0 for a complete one. */
  | 'DegradedChecks'
  /** Notifications the topic accepted whose EventBridge event (`eventBus`) could not be put. */
  | 'NotificationEventsFailed';

/** The verdicts `NodesAlerting` is emitted for (dimension `verdict`), one value each per check. */
export const NODES_ALERTING_VERDICTS = [
  'expired',
  'not-ready',
  'missing-lease',
] as const satisfies readonly Verdict[];

/** Metrics of one cluster's check; the adapter decides their dimensions (lambda/adapters/metrics/emf-metrics.ts). */
export interface WatchdogMetrics {
  record(
    cluster: string,
    name: MetricName,
    value: number,
    unit: 'Count' | 'Milliseconds',
    extra?: Record<string, string>,
  ): void;
  /** A metric of the deployment as a whole, not of one cluster (no `cluster` dimension). */
  recordForService(name: ServiceMetricName, value: number, unit: 'Count'): void;
}

/** Metrics of the deployment as a whole. */
export type ServiceMetricName =
  /** How many confirmed subscriptions the notification topic has. */
  'ConfirmedSubscriptions';

// --- Watching the notification topic -----------------------------------------------------------

/**
 * The notification topic's subscriptions: an unsubscribe link (or a mail gateway that follows
 * it) removes one silently, and with the last one every alert reaches nobody.
 */
export interface TopicSubscriptions {
  /**
   * How many subscriptions of the topic are confirmed (pending and deleted ones do not count).
   * Rejects when they cannot be listed; honours `signal`.
   */
  confirmedCount(signal?: AbortSignal): Promise<number>;
}
