/**
 * The cloud watchdog: what one Lambda invocation does, with every outside part injected (the
 * handler wires the real ones; tests hand in local endpoints). For each cluster the event names
 * (or every configured cluster), run the check cycle — several times in fast mode — and report.
 *
 * A cluster that cannot be read is not a failure of the invocation: it is a WATCHDOG
 * notification. The invocation fails (so the Lambda error alarm fires) only when the watchdog
 * itself is broken: state cannot be loaded or saved, the event names an unknown cluster, a bug.
 * One failing cluster never stops the others.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { AlertPolicy } from '../core/incidents.js';
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
   * Waits between the checks of one invocation in fast mode, when there is no `looks` to ask
   * for looks instead; rejects when `signal` aborts. Default `timers/promises` setTimeout (tests
   * pair it with their fake clock).
   */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Where the watchdog asks for looks of its own: a suspect's re-check, and the routine looks
   * between scheduled runs (ROUTINE_LOOKS_MS). None: it looks only when invoked.
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
   * cluster that this container saw ask for its own looks supersedes it (ROUTINE_LOOKS_MS).
   */
  readonly run?: number | undefined;
}

/**
 * After each scheduled run, the watchdog asks for looks of its own this long after the run's start,
 * in one request (`scheduleLooks`). EventBridge Scheduler fires `rate(1 minute)` anywhere in its
 * minute (runs ~1 to ~119 s apart), so detection must not wait for it: with looks 32, 64 and 96 s
 * after each run, no two reads are asked for more than 32 s apart whatever the runs' jitter (a run
 * at most 119 s after the last one comes at most 23 s after its +96 look; SQS and its pollers add
 * up to 3 s). A routine look is superseded
 * once a later scheduled run of its cluster has read it and asked for looks of its own (in this
 * container: `supersededLook`): it reads nothing. So on a punctual schedule the +64 and +96 looks
 * of a run come after the next run and read nothing: two reads a minute, 30 s apart (looks 40 and
 * 80 s after each run read three times a minute, up to 40 s apart).
 *
 * A suspect is found by the first look 12 s or more after its last renewal, and re-checked when its
 * silence reaches the grace period and at least 12 s after the first look that saw its renewTime
 * (core/renewal-clock.ts). That look comes at most 32 s after the renewal (plus SQS's whole-second
 * rounding and the pollers), remembered by a warm container even when it saved nothing
 * (StateStore.keepUnsaved): so the re-check lands at the grace. Only where a cold container took
 * over after such a look, within 10.4 s of the renewal (a later one saves it: check-cycle.ts,
 * mustSave), does it come 12 s after the cold container's own first look: at most
 * 10.4 + 32 + 12 ≈ 55 s after the last renewal, plus the rounding, the pollers and the lag of the
 * renewal estimate (docs/BENCHMARKS.md). Each look is the lease list alone, saved only when
 * something must survive it (check-cycle.ts, mustSave).
 */
export const ROUTINE_LOOKS_MS = [32_000, 64_000, 96_000] as const;

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

  /**
   * Per cluster, the start of the latest scheduled run in this container that asked for its
   * routine looks and had them accepted: the looks of earlier runs are superseded.
   */
  private readonly lookingSince = new Map<string, number>();

  constructor(private readonly deps: InvocationDeps) {
    this.watched = new Map(deps.settings.clusters.map((c) => [c.name, this.build(c)]));
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
  async run(
    event: InvocationEvent | null | undefined,
    runId: string,
    lockMs: number,
    signal?: AbortSignal,
    { readSignal }: { readonly readSignal?: AbortSignal | undefined } = {},
  ) {
    const { settings } = this.deps;
    const wanted = event?.cluster;
    if (this.supersededLook(event)) return { clusters: [] };
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
    const look = event?.look !== undefined;
    const results = await Promise.allSettled(
      clusters.map((c) =>
        this.watchCluster(this.watchedOf(c), { runId, lockMs, look, signal, readSignal }),
      ),
    );
    const reports: ClusterReport[] = [];
    const failures: string[] = [];
    results.forEach((result, i) => {
      const name = clusters[i]?.name ?? '?';
      if (result.status === 'fulfilled') {
        reports.push(result.value);
      } else {
        const message =
          result.reason instanceof Error ? result.reason.message : String(result.reason);
        this.deps.logger.error('check failed: the watchdog itself is broken', {
          cluster: name,
          error: message,
        });
        failures.push(`${name}: ${message}`);
      }
    });
    if (failures.length > 0) {
      throw new InvocationError(
        `${failures.length} of ${clusters.length} cluster checks failed: ${failures.join('; ')}`,
      );
    }
    return { clusters: reports };
  }

  /**
   * A routine look whose cluster a later scheduled run has read since, and asked for looks of its
   * own (ROUTINE_LOOKS_MS): it would read what that run's looks read, so it reads nothing. A
   * container that did not see that run (a cold one) looks, as it would without the mark.
   */
  private supersededLook(event: InvocationEvent | null | undefined): boolean {
    const asked = event?.look?.run;
    const cluster = event?.cluster;
    if (asked === undefined || cluster === undefined) return false;
    const since = this.lookingSince.get(cluster);
    if (since === undefined || since <= asked) return false;
    this.deps.logger.info('look not needed: a later scheduled run looked and asked for its own', {
      cluster,
      run: asked,
      later: since,
    });
    return true;
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

  /**
   * One cluster: one check. In fast mode, the checks that follow at fixed offsets from the start
   * are looks asked of `looks` (nothing is billed while waiting for them); without `looks`
   * (no queue: tests, a bare function) they run in this invocation, asleep in between.
   */
  private async watchCluster(watched: Watched, run: RunLimits) {
    const { signal, readSignal } = run;
    const { fastMode } = this.deps.settings;
    const { cluster } = watched;
    const started = this.deps.clock();
    let report: ClusterReport = {
      cluster: cluster.name,
      checks: 0,
      lastStatus: 'not-run',
      alerting: 0,
      published: 0,
      pending: 0,
    };
    // A look is one check; a scheduled run is one, unless no one can be asked for looks.
    const checks = !run.look && this.deps.looks === undefined ? fastMode.checksPerInvocation : 1;
    for (let i = 0; i < checks; i++) {
      if (i > 0) {
        const wait = started + i * fastMode.intervalSeconds * 1000 - this.deps.clock();
        try {
          if (wait > 0) await (this.deps.sleep ?? defaultSleep)(wait, signal);
        } catch {
          break; // the invocation's deadline is near: stop starting checks
        }
      }
      // Past the time for reading, another check could only fail to read.
      if (signal?.aborted || (i > 0 && readSignal?.aborted)) break;
      const outcome = await this.checkOnce(watched, run);
      report = {
        cluster: cluster.name,
        checks: report.checks + 1,
        lastStatus: outcome.status,
        alerting: outcome.status === 'checked' ? alertingCount(outcome) : report.alerting,
        published: report.published + (outcome.status === 'busy' ? 0 : outcome.published.length),
        pending: outcome.status === 'busy' ? report.pending : outcome.pending.length,
      };
    }
    if (!run.look) await this.routineLooks(cluster.name, started);
    return report;
  }

  /**
   * The looks a scheduled run asks for: ROUTINE_LOOKS_MS after its start, and in fast mode its
   * further checks (every `intervalSeconds` after the start), in one request when the port can.
   */
  private async routineLooks(cluster: string, started: number) {
    const { looks, logger, settings } = this.deps;
    if (looks === undefined) return;
    const { checksPerInvocation, intervalSeconds } = settings.fastMode;
    const fast = Array.from(
      { length: checksPerInvocation - 1 },
      (_, i) => (i + 1) * intervalSeconds * 1000,
    );
    const offsets = [...new Set([...fast, ...ROUTINE_LOOKS_MS])].sort((a, b) => a - b);
    const at = offsets.map((after) => started + after);
    if (looks.scheduleLooks === undefined) {
      for (const when of at) await this.lookAgain(cluster, [], when);
      return;
    }
    try {
      await looks.scheduleLooks(cluster, at, started);
      if (started > (this.lookingSince.get(cluster) ?? Number.NEGATIVE_INFINITY)) {
        this.lookingSince.set(cluster, started);
      }
    } catch (error) {
      logger.error('could not ask for another look; the next scheduled check looks instead', {
        cluster,
        looks: at.length,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /**
   * Asks for a look at `at`. A request that is not accepted is logged, not fatal: the check itself
   * succeeded, and the next scheduled run (or routine look) looks again, later.
   */
  private async lookAgain(cluster: string, leases: readonly string[], at: number) {
    const { looks, logger } = this.deps;
    if (looks === undefined) return;
    try {
      await looks.schedule(cluster, leases, at);
    } catch (error) {
      logger.error('could not ask for another look; the next scheduled check looks instead', {
        cluster,
        suspects: leases.length,
        error: error instanceof Error ? error.message : String(error),
      });
    }
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
    if (outcome.status !== 'checked') return outcome;
    if (outcome.evaluation.recheck !== undefined) {
      const { at, leases } = outcome.evaluation.recheck;
      logger.info('suspects: looking again', { cluster: name, suspects: leases.length, at });
      await this.lookAgain(name, leases, at);
    }
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
      metrics.record(cluster, 'CheckSucceeded', 1, 'Count');
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

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return sleep(ms, undefined, signal ? { signal } : undefined);
}
