/**
 * The soak of docs/RELIABILITY.md: a simulated week of 1-minute checks (10,080) on the fake clock,
 * at the check-cycle level (`runCheckCycle`, the use case the Lambda and `watch` both run), with
 * in-process parts so that a week takes seconds: the sim's cluster model (SimCluster, its lazy
 * kubelets and fault API) read through a ClusterReader port without HTTP, the memory state store
 * (which keeps each cluster as the same JSON document the DynamoDB store keeps, gzip-compressed,
 * in its item: both sizes are measured on every save), and a notifier that records what it is
 * handed. Seeded randomness: the same week every time.
 *
 * Every day: two nodes die (one for 9 hours, long enough for reminders, one for minutes), one node
 * flaps (down 3 min, up 2 min, for an hour), one zone goes dark for 20 minutes (a storm), six API
 * stalls of 45 s (lists time out and no kubelet renews), and once a week a 5-minute API outage
 * (which must page a WATCHDOG). Restarts: every 90 checks the reader and notifier are replaced (a
 * new container; the state is reloaded from its document on every check anyway); every 97th check
 * is run twice at once (overlapping runs).
 */
import { gzipSync } from 'node:zlib';
import { projectLease, projectNode } from '../lambda/adapters/kube/projection.js';
import { MemoryStateStore } from '../lambda/adapters/state/memory/memory-store.js';
import { serializeClusterState } from '../lambda/adapters/state/state-document.js';
import type { LeaseInfo, NodeInfo, Snapshot } from '../lambda/core/model.js';
import type { AlertNode, Notification } from '../lambda/core/notification.js';
import {
  ClusterReadError,
  type ClusterReader,
  type ClusterState,
  type Notifier,
  type StateStore,
  type StoredState,
} from '../lambda/ports/index.js';
import { DEFAULT_ALERT_POLICY, DEFAULT_POLICY } from '../lambda/settings/index.js';
import { type CycleOutcome, runCheckCycle } from '../lambda/use-cases/check-cycle.js';
import { SimCluster } from '../sim/cluster.js';
import { NODE_LEASE_NAMESPACE } from '../sim/objects.js';
import { FakeClock, T0 } from './fake-clock.js';
import type { Counts } from './reliability-tally.js';
import { random } from './state-fixtures.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const CLUSTER = 'soak';
export const ZONES = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];

export interface SoakOptions {
  readonly days?: number;
  readonly nodes?: number;
  readonly seed?: number;
}

export interface SoakResult {
  readonly days: number;
  readonly checks: number;
  readonly nodes: number;
  /** What was injected, by kind. */
  readonly injected: Readonly<Record<string, number>>;
  /** Check-cycle outcomes by status. */
  readonly runs: Readonly<Record<string, number>>;
  /** Notifications handed to the notifier, by kind. */
  readonly sent: Readonly<Record<string, number>>;
  readonly counts: Counts;
  /** Checks that fell inside a 45-s stall (their read failed). */
  readonly stallChecks: number;
  /** FIRING or STORM notifications naming a node not really down, during or right after a stall. */
  readonly stallAlarms: number;
  /** Largest state document of each day: JSON bytes, and gzip bytes (the DynamoDB item's blob). */
  readonly stateBytesPerDay: readonly { readonly json: number; readonly gzip: number }[];
  /** The state when all is well: after the first check, and at the end of the week. */
  readonly quietStateBytes: { readonly first: number; readonly last: number };
  readonly reminders: {
    readonly intervalSeconds: number;
    readonly count: number;
    readonly minGapSeconds: number;
    readonly maxGapSeconds: number;
  };
}

/** The sim's cluster model read in process, as the HTTP reader would hand it over. */
class SimModelReader implements ClusterReader {
  constructor(
    private readonly sim: SimCluster,
    private readonly clock: () => number,
    private readonly unreadable: () => boolean,
  ) {}

  async read(): Promise<Snapshot> {
    if (this.unreadable()) {
      throw new ClusterReadError(
        'timeout',
        'no answer from the API server within 15s (soak stall)',
      );
    }
    const leases: LeaseInfo[] = [];
    for (const name of this.sim.sortedLeaseNames(NODE_LEASE_NAMESPACE)) {
      const lease = projectLease(this.sim.leaseObject(NODE_LEASE_NAMESPACE, name));
      if (lease) leases.push(lease);
    }
    const nodes: NodeInfo[] = [];
    for (const name of this.sim.sortedNodeNames()) {
      const node = projectNode(this.sim.nodeObject(name));
      if (node) nodes.push(node);
    }
    return {
      cluster: CLUSTER,
      namespace: NODE_LEASE_NAMESPACE,
      leases,
      nodes,
      serverTime: this.clock(),
    };
  }
}

/** The memory store, measuring each saved document as the DynamoDB store would keep it. */
class MeasuredStore implements StateStore {
  readonly #inner = new MemoryStateStore();
  /** The last document saved. */
  last: Buffer = Buffer.alloc(0);
  load(cluster: string, signal?: AbortSignal): Promise<StoredState> {
    return this.#inner.load(cluster, signal);
  }
  async save(
    cluster: string,
    state: ClusterState,
    expectedVersion: number,
    signal?: AbortSignal,
  ): Promise<number> {
    const version = await this.#inner.save(cluster, state, expectedVersion, signal);
    this.last = Buffer.from(serializeClusterState(state), 'utf8');
    return version;
  }
}

interface Sent {
  readonly at: number;
  readonly notification: Notification;
}

class RecordingNotifier implements Notifier {
  constructor(
    private readonly sent: Sent[],
    private readonly clock: () => number,
  ) {}
  async publish(notification: Notification): Promise<void> {
    this.sent.push({ at: this.clock(), notification });
  }
}

/** Real outages of one node (kubelet stopped by a death, a flap or a storm), [start, end). */
export interface Outage {
  readonly node: string;
  readonly start: number;
  end: number;
  readonly cause: string;
}

const names = (list: readonly AlertNode[]) => list.map((n) => n.name);

/** What the fault schedule works on: the soak's in-process world, or the harness's (bench/). */
export interface FaultWorld {
  readonly clock: FakeClock;
  readonly sim: SimCluster;
  /** Node names, in the order they were added (round-robin over ZONES). */
  readonly nodes: readonly string[];
  readonly rand: () => number;
  /** The API server stops answering (true) or answers again (false); calls nest. */
  api(down: boolean): void;
}

export interface FaultSchedule {
  /** What is injected, by kind (callers add their own: restarts, overlaps). */
  readonly injected: Record<string, number>;
  readonly outages: readonly Outage[];
  readonly stalls: readonly { start: number; end: number }[];
  readonly apiOutages: readonly { start: number; end: number }[];
}

/**
 * Schedules `days` of faults on the world's clock (see the top of this file): deaths, flapping, a
 * storm, six 45-s stalls a day, one 5-minute API outage. Seeded: the same schedule every time.
 */
export function scheduleFaults(world: FaultWorld, days: number): FaultSchedule {
  const { clock, sim, nodes, rand } = world;
  const zoneOf = (name: string) => ZONES[nodes.indexOf(name) % ZONES.length] as string;
  const injected: Record<string, number> = {};
  const count = (kind: string) => {
    injected[kind] = (injected[kind] ?? 0) + 1;
  };

  // Why each kubelet is stopped; it runs when nothing stops it.
  const stoppedBy = new Map<string, Set<string>>(nodes.map((n) => [n, new Set()]));
  const outages: Outage[] = [];
  const open = new Map<string, Outage>();
  const REAL = (cause: string) => cause !== 'stall' && cause !== 'outage';
  const realCauses = (name: string) => [...(stoppedBy.get(name) ?? [])].filter(REAL);
  const setStopped = (name: string, cause: string, on: boolean) => {
    const causes = stoppedBy.get(name) as Set<string>;
    const wasReal = realCauses(name).length > 0;
    if (on) causes.add(cause);
    else causes.delete(cause);
    const isReal = realCauses(name).length > 0;
    if (!wasReal && isReal) {
      const outage = { node: name, start: clock.now(), end: Number.POSITIVE_INFINITY, cause };
      outages.push(outage);
      open.set(name, outage);
    } else if (wasReal && !isReal) {
      const outage = open.get(name);
      if (outage) outage.end = clock.now();
      open.delete(name);
    }
    if (causes.size > 0) sim.stopKubelet(name);
    else if (!sim.kubeletAlive(name)) sim.startKubelet(name);
  };
  const during = (start: number, ms: number, on: () => void, off: () => void) => {
    clock.at(start, on);
    clock.at(start + ms, off);
  };
  const stalls: { start: number; end: number }[] = [];
  const outagesOfApi: { start: number; end: number }[] = [];

  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  // A small fraction of a minute, so that events do not all land on the check instants.
  const jitter = () => Math.floor(rand() * 59_000) + 500;

  for (let day = 0; day < days; day++) {
    const base = T0 + day * DAY;
    const stormZone = pick(ZONES);
    const others = nodes.filter((n) => zoneOf(n) !== stormZone);
    const [longDeath, shortDeath, flapper] = [pick(others), pick(others), pick(others)];
    // A long death from 01:00 to 10:00 (reminders), a short one from 11:00 for 5-35 min.
    during(
      base + HOUR + jitter(),
      9 * HOUR,
      () => setStopped(longDeath, 'death', true),
      () => setStopped(longDeath, 'death', false),
    );
    count('node deaths');
    if (shortDeath !== longDeath) {
      const minutes = 5 + Math.floor(rand() * 30);
      during(
        base + 11 * HOUR + jitter(),
        minutes * MINUTE,
        () => setStopped(shortDeath, 'death-short', true),
        () => setStopped(shortDeath, 'death-short', false),
      );
      count('node deaths');
    }
    // A flapping node from 13:00: down 3 min, up 2 min, for an hour.
    const flapStart = base + 13 * HOUR + jitter();
    for (let k = 0; k < 12; k++) {
      during(
        flapStart + k * 5 * MINUTE,
        3 * MINUTE,
        () => setStopped(flapper, 'flap', true),
        () => setStopped(flapper, 'flap', false),
      );
    }
    count('flapping episodes (12 outages each)');
    // A zone dark for 20 minutes from 16:00.
    during(
      base + 16 * HOUR + jitter(),
      20 * MINUTE,
      () => {
        for (const n of nodes) if (zoneOf(n) === stormZone) setStopped(n, 'storm', true);
      },
      () => {
        for (const n of nodes) if (zoneOf(n) === stormZone) setStopped(n, 'storm', false);
      },
    );
    count('zone storms (20 min)');
    // Six API stalls of 45 s: lists time out, no kubelet renews.
    for (let k = 0; k < 6; k++) {
      const start = base + (2 + k * 3.7) * HOUR + Math.floor(rand() * 40 * MINUTE);
      stalls.push({ start, end: start + 45_000 });
      during(
        start,
        45_000,
        () => {
          world.api(true);
          for (const n of nodes) setStopped(n, 'stall', true);
        },
        () => {
          world.api(false);
          for (const n of nodes) setStopped(n, 'stall', false);
        },
      );
      count('API stalls (45 s)');
    }
  }
  // One API outage of 5 minutes in the week (day 4, 20:00): it must page a WATCHDOG.
  const outageStart = T0 + Math.min(3, days - 1) * DAY + 20 * HOUR + jitter();
  outagesOfApi.push({ start: outageStart, end: outageStart + 5 * MINUTE });
  during(
    outageStart,
    5 * MINUTE,
    () => {
      world.api(true);
      for (const n of nodes) setStopped(n, 'outage', true);
    },
    () => {
      world.api(false);
      for (const n of nodes) setStopped(n, 'outage', false);
    },
  );
  count('API outages (5 min)');
  return { injected, outages, stalls, apiOutages: outagesOfApi };
}

export async function runSoak(options: SoakOptions = {}): Promise<SoakResult> {
  const days = options.days ?? 7;
  const nodeCount = options.nodes ?? 12;
  const rand = random(options.seed ?? 2026);
  const clock = new FakeClock(T0);
  const sim = new SimCluster({ now: clock.now, seed: options.seed ?? 2026 });
  const nodes = sim.addNodes(nodeCount, { zones: ZONES });
  let apiDown = 0;
  const { injected, outages, stalls, apiOutages } = scheduleFaults(
    {
      clock,
      sim,
      nodes,
      rand,
      api: (down) => {
        apiDown += down ? 1 : -1;
      },
    },
    days,
  );
  const count = (kind: string) => {
    injected[kind] = (injected[kind] ?? 0) + 1;
  };

  const store = new MeasuredStore();
  const sent: Sent[] = [];
  const runs: Record<string, number> = {};
  // The largest document of each day (gzip-compressed once, at the end: it is the costly part).
  const largest: Buffer[] = [];
  let reader = new SimModelReader(sim, clock.now, () => apiDown > 0);
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
  const checks = days * 24 * 60;
  let firstQuiet = 0;
  let stallChecks = 0;
  for (let i = 0; i < checks; i++) {
    clock.advanceTo(T0 + i * MINUTE);
    if (i > 0 && i % 90 === 0) {
      reader = new SimModelReader(sim, clock.now, () => apiDown > 0);
      notifier = new RecordingNotifier(sent, clock.now);
      count('restarts (new container)');
    }
    if (stalls.some((s) => clock.now() >= s.start && clock.now() < s.end)) stallChecks++;
    const cycles: Promise<CycleOutcome>[] = [runCheckCycle(CLUSTER, deps(`run-${i}`))];
    if (i > 0 && i % 97 === 0) {
      cycles.push(runCheckCycle(CLUSTER, deps(`run-${i}-overlap`)));
      count('overlapping runs');
    }
    for (const outcome of await Promise.all(cycles)) {
      runs[outcome.status] = (runs[outcome.status] ?? 0) + 1;
    }
    if (i === 0) firstQuiet = store.last.length;
    const day = Math.floor(i / (24 * 60));
    if (store.last.length > (largest[day]?.length ?? 0)) largest[day] = store.last;
  }
  const stateBytesPerDay = largest.map((doc) => ({ json: doc.length, gzip: gzipSync(doc).length }));

  return {
    days,
    checks,
    nodes: nodeCount,
    injected,
    runs,
    sent: countKinds(sent),
    stallChecks,
    ...judge(sent, outages, stalls, apiOutages),
    stateBytesPerDay,
    quietStateBytes: { first: firstQuiet, last: store.last.length },
  };
}

function countKinds(sent: readonly Sent[]): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const { notification } of sent)
    kinds[notification.kind] = (kinds[notification.kind] ?? 0) + 1;
  return kinds;
}

const GRACE_MS = DEFAULT_POLICY.gracePeriodSeconds * 1000;
/** An outage this long is certainly seen by a check, even with one failed read inside it. */
const SURELY_SEEN_MS = GRACE_MS + 3 * MINUTE;

/** The ground truth against what was sent. */
function judge(
  sent: readonly Sent[],
  outages: readonly Outage[],
  stalls: readonly { start: number; end: number }[],
  apiOutages: readonly { start: number; end: number }[],
): Pick<SoakResult, 'counts' | 'stallAlarms' | 'reminders'> {
  const outageAt = (node: string, at: number) =>
    outages.find((o) => o.node === node && o.start <= at && at < o.end);
  let lost = 0;
  let duplicated = 0;
  let falseAlarms = 0;
  let unexpected = 0;
  let silent = 0;

  // Each notification once.
  const ids = new Set<string>();
  for (const { notification } of sent) {
    if (ids.has(notification.id)) duplicated++;
    ids.add(notification.id);
  }
  // FIRING and STORM name only nodes really down; a FIRING names a node once per outage.
  const fired = new Map<Outage, number>();
  for (const { at, notification } of sent) {
    if (notification.kind !== 'FIRING' && notification.kind !== 'STORM') continue;
    if (notification.storm?.state === 'ended') continue;
    for (const name of names(notification.firing)) {
      const outage = outageAt(name, at);
      if (!outage) falseAlarms++;
      else if (notification.kind === 'FIRING') fired.set(outage, (fired.get(outage) ?? 0) + 1);
    }
  }
  for (const times of fired.values()) duplicated += Math.max(0, times - 1);
  // Every outage long enough is told (firing or flapping), while it lasts or just after.
  for (const outage of outages) {
    if (outage.end - outage.start < SURELY_SEEN_MS) continue;
    const told = sent.some(
      ({ at, notification }) =>
        at >= outage.start &&
        at <= outage.end + 2 * MINUTE &&
        [...notification.firing, ...notification.flapping].some((n) => n.name === outage.node),
    );
    if (!told) lost++;
  }
  // The API outage pages; nothing else does.
  const watchdogs = sent.filter(
    ({ notification }) =>
      notification.kind === 'WATCHDOG' && notification.watchdog?.state === 'failing',
  );
  for (const api of apiOutages) {
    const paged = watchdogs.some(({ at }) => at >= api.start && at <= api.end + MINUTE);
    if (!paged) silent++;
  }
  unexpected += watchdogs.filter(
    ({ at }) => !apiOutages.some((api) => at >= api.start && at <= api.end + MINUTE),
  ).length;
  // Stalls: no FIRING or STORM in the check during or right after one.
  const stallAlarms = sent.filter(
    ({ at, notification }) =>
      (notification.kind === 'FIRING' || notification.kind === 'STORM') &&
      stalls.some((s) => at >= s.start && at <= s.end + MINUTE) &&
      names(notification.firing).some((name) => !outageAt(name, at)),
  ).length;

  // Reminders: the gaps between one outage's notices (its FIRING or STORM, then its REMINDERs).
  const gaps: number[] = [];
  let reminders = 0;
  for (const outage of outages) {
    const times = sent
      .filter(
        ({ at, notification }) =>
          at >= outage.start &&
          at < outage.end &&
          ((notification.kind !== 'FLAPPING' && names(notification.firing).includes(outage.node)) ||
            names(notification.reminders).includes(outage.node)),
      )
      .map(({ at }) => at);
    reminders += sent.filter(
      ({ at, notification }) =>
        at >= outage.start &&
        at < outage.end &&
        names(notification.reminders).includes(outage.node),
    ).length;
    for (let k = 1; k < times.length; k++)
      gaps.push(((times[k] as number) - (times[k - 1] as number)) / 1000);
  }
  return {
    counts: { lost, duplicated, falseAlarms, unexpected, silent, resent: 0 },
    stallAlarms,
    reminders: {
      intervalSeconds: DEFAULT_ALERT_POLICY.reminderIntervalSeconds,
      count: reminders,
      minGapSeconds: gaps.length > 0 ? Math.min(...gaps) : 0,
      maxGapSeconds: gaps.length > 0 ? Math.max(...gaps) : 0,
    },
  };
}
