/**
 * The cloud watchdog: what one Lambda invocation does, with every outside part injected (the
 * handler wires the real ones; tests hand in local endpoints). For each cluster the event names
 * (or every configured cluster), run the check cycle and report.
 *
 * A cluster that cannot be read is not a failure of the invocation: it is a WATCHDOG
 * notification. The invocation fails (so the Lambda error alarm fires) only when the watchdog
 * itself is broken: state cannot be loaded or saved, the event names an unknown cluster, a bug.
 * One failing cluster never stops the others.
 */

import type { AlertPolicy } from '../core/alert-policy.js';
import type { Policy } from '../core/policy.js';
import type {
  CheckLedger,
  ClusterDirectory,
  ClusterReader,
  ClusterReaderFactory,
  EvidenceReader,
  EvidenceReaderFactory,
  Looks,
  MetricsRecorder,
  Notifier,
  OnCallSender,
  SilenceStore,
  StateStore,
  StructuredLogger,
} from '../ports/index.js';
import type { ClusterSettings, WatchdogSettings } from '../settings/index.js';
import { policiesOf } from '../settings/policies.js';
import { type CycleOutcome, runCheckCycle } from './check-cycle.js';
import { alertingCount, reportCheck } from './check-report.js';
import { isDispatched } from './dispatch.js';
import { LookRequests } from './look-requests.js';

export interface InvocationDeps {
  readonly settings: WatchdogSettings;
  /** Builds each cluster's reader once (the Lambda's: authenticated, with its node cache). */
  readonly readers: ClusterReaderFactory;
  /** Builds each cluster's evidence sources once (none: FIRINGs carry no evidence). */
  readonly evidence?: EvidenceReaderFactory | undefined;
  /** How long reading evidence may hold a FIRING back (default EVIDENCE_BUDGET_MS). */
  readonly evidenceBudgetMs?: number | undefined;
  readonly store: StateStore;
  /** The users' silences (beside the state), read once per check. */
  readonly silences?: SilenceStore | undefined;
  readonly notifier: Notifier;
  readonly logger: StructuredLogger;
  readonly metrics: MetricsRecorder;
  readonly clock: () => number;
  /**
   * Where the watchdog asks for looks of its own: a suspect's re-check, and the routine looks
   * between scheduled runs (look-requests.ts). None: it looks only when invoked.
   */
  readonly looks?: Looks | undefined;
  /** The paging tools (PagerDuty, Opsgenie) that get on-call events; none when empty or absent. */
  readonly onCall?: readonly OnCallSender[] | undefined;
  /** The clusters discovery found (none: the listed clusters only). */
  readonly directory?: ClusterDirectory | undefined;
  /**
   * Asked before a discovered cluster that cannot be read is paged: true when it is deleted (and
   * then announced as discovery announces it), and nothing pages. Never rejects.
   */
  readonly deleted?: ((cluster: string, signal?: AbortSignal) => Promise<boolean>) | undefined;
  /**
   * Where a dispatched cluster's successful checks are recorded, for the fleet-wide dead-man's
   * switch (use-cases/dispatch.ts); such a cluster has no `CheckSucceeded` metric of its own.
   */
  readonly ledger?: CheckLedger | undefined;
}

export interface InvocationEvent {
  /** The cluster to check (the schedule's input); absent: every configured cluster, listed or discovered. */
  readonly cluster?: string;
  /**
   * Set on a look the watchdog asked for itself: a suspect's re-check (naming the suspect leases)
   * or a routine look (naming none). A look asks for no routine looks of its own.
   */
  readonly look?: LookRequest | undefined;
}

/** What a look asked for names: the suspects it re-checks (none for a routine look). */
export interface LookRequest {
  readonly suspects: readonly string[];
  /**
   * A routine look: the start of the scheduled run that asked for it. A later run of the same
   * cluster that this container saw ask for its own looks supersedes it (look-requests.ts).
   */
  readonly run?: number | undefined;
}

export interface ClusterReport {
  readonly cluster: string;
  readonly checks: number;
  readonly lastStatus: CycleOutcome['status'] | 'not-run';
  readonly alerting: number;
  readonly published: number;
  readonly pending: number;
}

export class InvocationError extends Error {
  override readonly name = 'WatchdogError';
}

/** What one run is, and how long it may take: the same for every cluster it checks. */
interface RunLimits {
  readonly runId: string;
  readonly lockMs: number;
  readonly look: boolean;
  /** The run's deadline: publishing stops. */
  readonly signal?: AbortSignal | undefined;
  /** Earlier than `signal`: reading stops (a `timeout` failure of the cluster). */
  readonly readSignal?: AbortSignal | undefined;
}

/** One watched cluster, as built once for the life of the container. */
interface Watched {
  readonly cluster: ClusterSettings;
  readonly policy: Policy;
  readonly alertPolicy: AlertPolicy;
  readonly reader: ClusterReader;
  readonly evidence: readonly EvidenceReader[];
}

export class InvocationRunner {
  /** Per cluster: its policies (selectors parsed once) and its reader. */
  private readonly watched: ReadonlyMap<string, Watched>;
  /** Per discovered cluster: the same, built when first checked (again when its settings change). */
  private readonly discovered = new Map<
    string,
    { readonly key: string; readonly watched: Watched }
  >();

  /** The looks this container asks for, and what it knows of them. */
  private readonly lookRequests: LookRequests;

  constructor(private readonly deps: InvocationDeps) {
    this.watched = new Map(deps.settings.clusters.map((c) => [c.name, this.build(c)]));
    this.lookRequests = new LookRequests(deps.looks, deps.logger);
  }

  private build(cluster: ClusterSettings): Watched {
    const { policy, alertPolicy } = policiesOf(this.deps.settings, cluster);
    return {
      cluster,
      policy,
      alertPolicy,
      reader: this.deps.readers(cluster, policy),
      evidence: this.deps.evidence?.(cluster) ?? [],
    };
  }

  /**
   * The clusters an event names: the one named (listed, else discovered), or every one. Listed
   * clusters win over discovered ones of the same name.
   */
  private async clustersFor(wanted: string | undefined): Promise<readonly ClusterSettings[]> {
    const listed = this.deps.settings.clusters;
    const named = listed.filter((c) => c.name === wanted);
    const { directory } = this.deps;
    if (named.length > 0 || directory === undefined) return wanted === undefined ? listed : named;
    const names = new Set(listed.map((c) => c.name));
    const discovered = (await directory.discovered()).filter((c) => !names.has(c.name));
    return wanted === undefined
      ? [...listed, ...discovered]
      : discovered.filter((c) => c.name === wanted);
  }

  /**
   * Checks the clusters the event names. `lockMs` bounds how long this run may hold a cluster's
   * outbox (the time it has left); `signal` is its deadline, and `readSignal` the earlier one that
   * ends reading (leaving time to save and publish what a read cut short decided). Throws
   * WatchdogError when the watchdog itself is broken.
   */
  async run(event: InvocationEvent | null | undefined, given: Omit<RunLimits, 'look'>) {
    const { settings } = this.deps;
    const wanted = event?.cluster;
    if (wanted !== undefined && this.lookRequests.superseded(wanted, event?.look?.run)) {
      return { clusters: [] };
    }
    const clusters = await this.clustersFor(wanted);
    if (clusters.length === 0 && this.deps.directory !== undefined) {
      // Discovered clusters come and go: one deleted since the event was sent is not an error.
      if (wanted !== undefined) {
        this.deps.logger.warn('not checked: the cluster is neither listed nor discovered (now)', {
          cluster: wanted,
        });
      }
      return { clusters: [] };
    }
    if (clusters.length === 0) {
      const known = settings.clusters.map((c) => c.name).join(', ');
      throw new InvocationError(
        `the event names cluster "${String(wanted)}", which is not configured (clusters: ${known})`,
      );
    }
    const limits = { ...given, look: event?.look !== undefined };
    const results = await Promise.allSettled(
      clusters.map((c) => this.watchCluster(this.watchedOf(c), limits)),
    );
    const failures = results.flatMap((result, i) => {
      if (result.status === 'fulfilled') return [];
      const name = clusters[i]?.name ?? '?';
      const error = result.reason instanceof Error ? result.reason.message : String(result.reason);
      this.deps.logger.error('check failed: the watchdog itself is broken', {
        cluster: name,
        error,
      });
      return [`${name}: ${error}`];
    });
    if (failures.length > 0) {
      throw new InvocationError(
        `${failures.length} of ${clusters.length} cluster checks failed: ${failures.join('; ')}`,
      );
    }
    return { clusters: results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])) };
  }

  private watchedOf(cluster: ClusterSettings): Watched {
    const listed = this.watched.get(cluster.name);
    if (listed) return listed;
    const key = JSON.stringify(cluster);
    const known = this.discovered.get(cluster.name);
    if (known?.key === key) return known.watched;
    const watched = this.build(cluster);
    this.discovered.set(cluster.name, { key, watched });
    return watched;
  }

  /** One cluster: one check; after a scheduled run, the routine looks it asks for (look-requests.ts). */
  private async watchCluster(watched: Watched, run: RunLimits): Promise<ClusterReport> {
    const { cluster } = watched;
    const started = this.deps.clock();
    const outcome = run.signal?.aborted ? undefined : await this.checkOnce(watched, run);
    if (!run.look) await this.lookRequests.afterRun(cluster.name, started);
    return {
      cluster: cluster.name,
      checks: outcome === undefined ? 0 : 1,
      lastStatus: outcome?.status ?? 'not-run',
      alerting: outcome?.status === 'checked' ? alertingCount(outcome) : 0,
      published: outcome && outcome.status !== 'busy' ? outcome.published.length : 0,
      pending: outcome && outcome.status !== 'busy' ? outcome.pending.length : 0,
    };
  }

  /**
   * One check of one cluster, reported (check-report.ts); then the look its suspects ask for, and
   * the dead-man's switch.
   */
  private async checkOnce(
    { cluster, reader, policy, alertPolicy, evidence }: Watched,
    { runId, lockMs, look, signal, readSignal }: RunLimits,
  ): Promise<CycleOutcome> {
    const { logger, metrics, clock } = this.deps;
    const started = clock();
    const outcome = await runCheckCycle(
      cluster.name,
      {
        reader,
        store: this.deps.store,
        notifier: this.deps.notifier,
        policy,
        alertPolicy,
        clock,
        runId,
        lockMs,
        evidence,
        evidenceBudgetMs: this.deps.evidenceBudgetMs,
        silences: this.deps.silences,
        look,
        readSignal,
        ...(this.deps.deleted && !this.watched.has(cluster.name)
          ? { deleted: this.deps.deleted.bind(undefined, cluster.name) }
          : {}),
        ...(this.deps.onCall?.length
          ? { onCall: { senders: this.deps.onCall, clock, logger, metrics } }
          : {}),
      },
      signal,
    );
    const name = cluster.name;
    reportCheck(this.deps, name, outcome, started);
    for (const { at, leases } of outcome.status === 'unreadable' ? [] : (outcome.rechecks ?? [])) {
      logger.info('suspects: looking again', { cluster: name, suspects: leases.length, at });
      await this.lookRequests.recheck(name, leases, at);
    }
    if (outcome.status !== 'checked') return outcome;
    // The dead-man's switch: a check counts as successful once its notifications are out too.
    if (outcome.pending.length === 0) await this.checkSucceeded(name, look, signal);
    return outcome;
  }

  /**
   * A successful check, for the dead-man's switches: a cluster of its own schedule counts in its
   * `CheckSucceeded` metric; a dispatched one's scheduled checks (not its looks) in the ledger.
   */
  private async checkSucceeded(cluster: string, look: boolean, signal?: AbortSignal) {
    const { ledger, settings, metrics, logger, clock } = this.deps;
    if (ledger === undefined || !isDispatched(settings, cluster)) {
      metrics.record(cluster, 'CheckSucceeded', 1);
      return;
    }
    if (look) return;
    try {
      await ledger.checked(cluster, clock(), signal);
    } catch (error) {
      logger.error('successful check not recorded; the fleet switch may call it overdue', {
        cluster,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
