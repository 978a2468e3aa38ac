/**
 * The looks the watchdog asks for itself, through the `Looks` port: a scheduled run's routine
 * looks (ROUTINE_LOOKS_MS), a suspect's re-check, and which
 * routine looks a later run in this container has superseded. A request the port does not accept
 * is logged, never fatal: the check itself succeeded, and the next scheduled run looks again.
 */
import type { Looks, StructuredLogger } from '../ports/index.js';

/**
 * After each scheduled run, the watchdog asks for looks of its own this long after the run's start,
 * in one request (`scheduleLooks`). EventBridge Scheduler fires `rate(1 minute)` anywhere in its
 * minute (runs ~1 to ~119 s apart), so detection must not wait for it: with looks 32, 64 and 96 s
 * after each run, no two reads are asked for more than 32 s apart whatever the runs' jitter (a run
 * at most 119 s after the last one comes at most 23 s after its +96 look; SQS and its pollers add
 * up to 3 s). A routine look is superseded
 * once a later scheduled run of its cluster has read it and asked for looks of its own (in this
 * container: LookRequests.superseded): it reads nothing. So on a punctual schedule the +64 and +96 looks
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

export class LookRequests {
  /**
   * Per cluster, the start of the latest scheduled run in this container that asked for its
   * routine looks and had them accepted: the looks of earlier runs are superseded.
   */
  readonly #lookingSince = new Map<string, number>();

  constructor(
    private readonly looks: Looks | undefined,
    private readonly logger: StructuredLogger,
  ) {}

  /**
   * The looks a scheduled run that started at `started` asks for: ROUTINE_LOOKS_MS after its
   * start, in one request.
   */
  async afterRun(cluster: string, started: number): Promise<void> {
    const { looks } = this;
    if (looks === undefined) return;
    const at = ROUTINE_LOOKS_MS.map((after) => started + after);
    try {
      await looks.scheduleLooks(cluster, at, started);
      if (started > (this.#lookingSince.get(cluster) ?? Number.NEGATIVE_INFINITY)) {
        this.#lookingSince.set(cluster, started);
      }
    } catch (error) {
      this.#refused(cluster, { looks: at.length }, error);
    }
  }

  /** Asks for a look at `at`, naming the suspect `leases` (none: a routine look). */
  async recheck(cluster: string, leases: readonly string[], at: number): Promise<void> {
    if (this.looks === undefined) return;
    try {
      await this.looks.schedule(cluster, leases, at);
    } catch (error) {
      this.#refused(cluster, { suspects: leases.length }, error);
    }
  }

  /**
   * Whether a routine look of `cluster` asked for by the run that started at `run` is superseded:
   * a later scheduled run has read the cluster since, and asked for looks of its own, so the look
   * would read what that run's looks read. A container that did not see that run (a cold one)
   * looks, as it would without the mark; so does a look that names no run (a re-check).
   */
  superseded(cluster: string, run: number | undefined): boolean {
    if (run === undefined) return false;
    const since = this.#lookingSince.get(cluster);
    if (since === undefined || since <= run) return false;
    this.logger.info('look not needed: a later scheduled run looked and asked for its own', {
      cluster,
      run,
      later: since,
    });
    return true;
  }

  #refused(cluster: string, fields: Record<string, number>, error: unknown): void {
    this.logger.error('could not ask for another look; the next scheduled check looks instead', {
      cluster,
      ...fields,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
