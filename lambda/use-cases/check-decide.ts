/**
 * Step 0 of the check cycle (check-cycle.ts): read the cluster and judge what it answered, then
 * decide the alerts that follow and the notifications they add to the outbox, with a FIRING's
 * evidence read before it goes (planned exits it finds are suppressed, not paged).
 */
import type { AlertOutcome, AlertPolicy } from '../core/alert-policy.js';
import type { AlertState } from '../core/alert-state.js';
import { evaluate } from '../core/evaluate.js';
import { alertsForEvaluation } from '../core/incidents.js';
import type { Evaluation, Recheck } from '../core/model.js';
import type { Notification } from '../core/notification.js';
import type { Policy } from '../core/policy.js';
import { applySilences, type Silence } from '../core/silences.js';
import { withExits } from '../core/suppression.js';
import {
  alertsForDegraded,
  alertsForReadFailure,
  setAsideNotice,
} from '../core/watchdog-alerts.js';
import {
  ClusterReadError,
  type ClusterReader,
  type EvidenceReader,
  type StateReset,
  type StoredState,
} from '../ports/index.js';
import { plannedExits, withEvidence, withEvidenceOf } from './alert-evidence.js';

export interface DecideDeps {
  readonly reader: ClusterReader;
  readonly policy: Policy;
  readonly alertPolicy: AlertPolicy;
  /** The watchdog's clock, epoch ms. */
  readonly clock: () => number;
  /** Where a FIRING's evidence is read (none: no evidence). */
  readonly evidence?: readonly EvidenceReader[] | undefined;
  /** How long reading it may hold a FIRING back (default EVIDENCE_BUDGET_MS). */
  readonly evidenceBudgetMs?: number | undefined;
  /**
   * A look between scheduled checks (a routine look, a suspect's re-check): the reader reads what
   * a look needs (ClusterReader `look`), and a look that changes nothing that must survive does
   * not save (check-cycle.ts, mustSave).
   */
  readonly look?: boolean | undefined;
  /**
   * Ends the read before `signal` ends the check (the Lambda's: DELIVERY_BUDGET_MS earlier), so
   * that what a read cut short decides (its WATCHDOG) is still saved and published in time.
   */
  readonly readSignal?: AbortSignal | undefined;
  /**
   * Asked before the WATCHDOG of a cluster that cannot be read is raised (a discovered cluster's):
   * true when the cluster is deleted, and then nothing is paged and the alerts stay as they were.
   * Never rejects.
   */
  readonly deleted?: ((signal?: AbortSignal) => Promise<boolean>) | undefined;
}

/** One check of one cluster as the steps below see it: its state as loaded, its moment. */
export interface CheckAt {
  readonly cluster: string;
  readonly deps: DecideDeps;
  readonly stored: StoredState;
  /** When the check began (watchdog clock). */
  readonly now: number;
  readonly signal: AbortSignal | undefined;
}

/** What the check saw of the cluster: its evaluation, or why it could not be read. */
export type Seen =
  | { readonly evaluation: Evaluation; readonly readError?: undefined }
  | { readonly evaluation?: undefined; readonly readError: ClusterReadError };

/**
 * Reads the cluster and judges the answer, with the users' silences and maintenance windows
 * applied. A read that fails (the cluster's fault, or the invocation's deadline: cutShort) is seen
 * too: the alerts report it. Any other error ends the check.
 */
export async function readCluster(
  { cluster, deps, stored, signal }: CheckAt,
  silences: readonly Silence[],
): Promise<Seen> {
  // The check's signal, ended sooner by the time for reading, if any.
  const { readSignal } = deps;
  const reading =
    readSignal && signal ? AbortSignal.any([signal, readSignal]) : (readSignal ?? signal);
  try {
    const snapshot = await deps.reader.read(reading, deps.look ? 'look' : 'check');
    // Judged at the end of the read: every renewal in the answer happened before it, on our clock
    // (the learned clock offsets rest on that: core/renewal-clock.ts).
    const afterReadFailure = (stored.state.alerts.watchdog ?? null) !== null;
    const readAt = deps.clock();
    // Node labels by name, built only when a silence or window has a selector to match.
    let labels: Map<string, Readonly<Record<string, string>>> | undefined;
    const evaluation = applySilences(
      evaluate(snapshot, stored.state.observations, deps.policy, { now: readAt, afterReadFailure }),
      { silences, windows: deps.policy.maintenance ?? [] },
      (name) => {
        labels ??= new Map(snapshot.nodes?.map((n) => [n.name, n.labels]));
        return labels.get(name);
      },
      readAt,
    );
    return { evaluation };
  } catch (error) {
    if (!(error instanceof ClusterReadError)) throw error;
    return { readError: cutShort(error, cluster, reading) };
  }
}

/**
 * The alert state that follows from what was seen, and the notifications it adds to the outbox,
 * in the order they go out: a reset state's NOTICE, set-aside silences' NOTICE, a degraded
 * check's notice, then the check's
 * own notification (a FIRING with its evidence), or the WATCHDOG of a cluster that cannot be read.
 */
export async function decideAlerts(
  check: CheckAt,
  seen: Seen,
  silencesSetAside: StateReset | undefined,
): Promise<{
  /** What was seen, with the planned exits the evidence found suppressed. */
  judged: Seen;
  alerts: AlertState;
  fresh: Notification[];
  deleted?: true;
  wake?: Recheck;
}> {
  const { cluster, deps, stored, now, signal } = check;
  const { alerts } = stored.state;
  let judged = seen;
  let decided = seen.evaluation
    ? alertsForEvaluation(seen.evaluation, alerts, deps.alertPolicy, now)
    : await readFailureAlerts(check, seen.readError);
  // A FIRING carries what EC2 and the node's Events said at alert time (bounded in time). Nodes
  // they say are leaving as planned are suppressed for that cause and the alerts decided again:
  // not paged, and paged still once stuck (core/suppression.ts, evidencedExit).
  let decidedNotification =
    decided.notification && deps.evidence
      ? await withEvidence(decided.notification, deps.evidence, deps.evidenceBudgetMs, signal)
      : decided.notification;
  const exits = plannedExits(decidedNotification);
  if (seen.evaluation && exits.size > 0) {
    judged = { evaluation: withExits(seen.evaluation, exits, deps.policy) };
    decided = alertsForEvaluation(judged.evaluation, alerts, deps.alertPolicy, now);
    decidedNotification = withEvidenceOf(decided.notification, decidedNotification);
  }
  // Degraded checks (Nodes unreadable) and a reset state are the watchdog's own notices, sent on
  // their own ahead of the check's notification.
  const degraded = seen.evaluation
    ? alertsForDegraded(
        cluster,
        { degraded: seen.evaluation.degraded, previous: alerts.degraded ?? null },
        decided.state,
        now,
      )
    : decided;
  const fresh = [
    stored.reset ? setAsideNotice(cluster, 'state-reset', stored.reset, now) : null,
    silencesSetAside ? setAsideNotice(cluster, 'silences-set-aside', silencesSetAside, now) : null,
    seen.evaluation ? degraded.notification : null,
    decidedNotification,
  ].filter((n): n is Notification => n !== null);
  return {
    judged,
    alerts: degraded.state,
    fresh,
    ...('deleted' in decided ? { deleted: true } : {}),
    ...(decided.wake === undefined ? {} : { wake: decided.wake }),
  };
}

/**
 * After a failed read: the read-failure lifecycle's alerts, unless the WATCHDOG it raises is of a
 * cluster that is deleted (`deps.deleted`): then nothing, and the alerts as they were.
 */
async function readFailureAlerts(
  { cluster, deps, stored, now, signal }: CheckAt,
  error: ClusterReadError,
): Promise<AlertOutcome | (AlertOutcome & { deleted: true })> {
  const { alerts } = stored.state;
  const decided = alertsForReadFailure(
    { cluster, failure: error.failure, message: error.message },
    alerts,
    deps.alertPolicy,
    now,
  );
  if (decided.notification === null || deps.deleted === undefined) return decided;
  if (!(await deps.deleted(signal))) return decided;
  return { notification: null, state: alerts, deleted: true };
}

/**
 * A read stopped by the caller's deadline (a TimeoutError reason, as `AbortSignal.timeout` gives)
 * is a `timeout` failure of the cluster, not an error of the watchdog; any other abort (the CLI's
 * Ctrl-C) ends the check.
 */
function cutShort(
  error: ClusterReadError,
  cluster: string,
  signal: AbortSignal | undefined,
): ClusterReadError {
  if (error.failure !== 'aborted') return error;
  const reason: unknown = signal?.reason;
  const deadline =
    typeof reason === 'object' && reason !== null && (reason as Error).name === 'TimeoutError';
  if (!deadline) throw error;
  return new ClusterReadError(
    'timeout',
    `reading cluster ${cluster} did not finish in the time the invocation leaves for reading`,
    undefined,
    { cause: error },
  );
}
