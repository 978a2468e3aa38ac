/**
 * The soak of docs/RELIABILITY.md: a simulated week of 1-minute checks (10,080) on the fake clock,
 * at the check-cycle level (`runCheckCycle`, the use case the Lambda and `watch` both run), with
 * in-process parts so that a week takes seconds (reliability-soak-parts.ts): the sim's cluster
 * model (SimCluster, its lazy kubelets and fault API) read through a ClusterReader port without
 * HTTP, the memory state store (which keeps each cluster as the same JSON document the DynamoDB
 * store keeps, gzip-compressed, in its item: both sizes are measured on every save), and a
 * notifier that records what it is handed. Seeded randomness: the same week every time.
 *
 * The faults of each day are reliability-fault-schedule.ts's. Restarts: every 90 checks the
 * reader and notifier are replaced (a new container; the state is reloaded from its document on
 * every check anyway); every 97th check is run twice at once (overlapping runs). What was sent
 * is judged against the schedule's ground truth by reliability-soak-judge.ts.
 */
import { gzipSync } from 'node:zlib';
import { DEFAULT_ALERT_POLICY, DEFAULT_POLICY } from '../lambda/settings/index.js';
import { type CycleOutcome, runCheckCycle } from '../lambda/use-cases/check-cycle.js';
import { SimCluster } from '../sim/cluster.js';
import { FakeClock, T0 } from './fake-clock.js';
import { scheduleFaults, ZONES } from './reliability-fault-schedule.js';
import { type Judgement, judge } from './reliability-soak-judge.js';
import {
  CLUSTER,
  MeasuredStore,
  RecordingNotifier,
  type Sent,
  SimModelReader,
} from './reliability-soak-parts.js';
import { random } from './state-fixtures.js';

const MINUTE = 60_000;

export interface SoakOptions {
  readonly days?: number;
  readonly nodes?: number;
  readonly seed?: number;
}

export interface SoakResult extends Judgement {
  readonly days: number;
  readonly checks: number;
  readonly nodes: number;
  /** What was injected, by kind. */
  readonly injected: Readonly<Record<string, number>>;
  /** Check-cycle outcomes by status. */
  readonly runs: Readonly<Record<string, number>>;
  /** Notifications handed to the notifier, by kind. */
  readonly sent: Readonly<Record<string, number>>;
  /** Checks that fell inside a 45-s stall (their read failed). */
  readonly stallChecks: number;
  /** Largest state document of each day: JSON bytes, and gzip bytes (the DynamoDB item's blob). */
  readonly stateBytesPerDay: readonly { readonly json: number; readonly gzip: number }[];
  /** The state when all is well: after the first check, and at the end of the week. */
  readonly quietStateBytes: { readonly first: number; readonly last: number };
}

export async function runSoak(options: SoakOptions = {}): Promise<SoakResult> {
  const days = options.days ?? 7;
  const nodeCount = options.nodes ?? 12;
  const clock = new FakeClock(T0);
  const sim = new SimCluster({ now: clock.now, seed: options.seed ?? 2026 });
  const nodes = sim.addNodes(nodeCount, { zones: ZONES });
  let apiDown = 0;
  const schedule = scheduleFaults(
    {
      clock,
      sim,
      nodes,
      rand: random(options.seed ?? 2026),
      api: (down) => {
        apiDown += down ? 1 : -1;
      },
    },
    days,
  );
  const week = await runChecks(days * 24 * 60, clock, {
    reader: () => new SimModelReader(sim, clock.now, () => apiDown > 0),
    inStall: (at) => schedule.stalls.some((s) => at >= s.start && at < s.end),
    count: (kind) => {
      schedule.injected[kind] = (schedule.injected[kind] ?? 0) + 1;
    },
  });
  return {
    days,
    checks: week.checks,
    nodes: nodeCount,
    injected: schedule.injected,
    runs: week.runs,
    sent: countKinds(week.sent),
    stallChecks: week.stallChecks,
    ...judge(week.sent, schedule.outages, schedule.stalls, schedule.apiOutages),
    stateBytesPerDay: week.largest.map((doc) => ({ json: doc.length, gzip: gzipSync(doc).length })),
    quietStateBytes: { first: week.firstQuiet, last: week.store.last.length },
  };
}

/**
 * `checks` checks, one a minute from T0, with restarts and overlaps (see above); what they sent,
 * their outcomes, and the state documents they saved (the largest of each day).
 */
async function runChecks(
  checks: number,
  clock: FakeClock,
  world: {
    readonly reader: () => SimModelReader;
    readonly inStall: (at: number) => boolean;
    readonly count: (kind: string) => void;
  },
) {
  const store = new MeasuredStore();
  const sent: Sent[] = [];
  const runs: Record<string, number> = {};
  // The largest document of each day (gzip-compressed once, at the end: it is the costly part).
  const largest: Buffer[] = [];
  let reader = world.reader();
  let notifier = new RecordingNotifier(sent, clock.now);
  const deps = (runId: string) => ({
    reader,
    store,
    notifier,
    policy: DEFAULT_POLICY,
    alertPolicy: DEFAULT_ALERT_POLICY,
    clock: clock.now,
    runId,
    lockMs: MINUTE,
  });
  let firstQuiet = 0;
  let stallChecks = 0;
  for (let i = 0; i < checks; i++) {
    clock.advanceTo(T0 + i * MINUTE);
    if (i > 0 && i % 90 === 0) {
      reader = world.reader();
      notifier = new RecordingNotifier(sent, clock.now);
      world.count('restarts (new container)');
    }
    if (world.inStall(clock.now())) stallChecks++;
    const cycles: Promise<CycleOutcome>[] = [runCheckCycle(CLUSTER, deps(`run-${i}`))];
    if (i > 0 && i % 97 === 0) {
      cycles.push(runCheckCycle(CLUSTER, deps(`run-${i}-overlap`)));
      world.count('overlapping runs');
    }
    for (const outcome of await Promise.all(cycles)) {
      runs[outcome.status] = (runs[outcome.status] ?? 0) + 1;
    }
    if (i === 0) firstQuiet = store.last.length;
    const day = Math.floor(i / (24 * 60));
    if (store.last.length > (largest[day]?.length ?? 0)) largest[day] = store.last;
  }
  return { checks, store, sent, runs, largest, firstQuiet, stallChecks };
}

function countKinds(sent: readonly Sent[]): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const { notification } of sent)
    kinds[notification.kind] = (kinds[notification.kind] ?? 0) + 1;
  return kinds;
}
