/**
 * The faults of the simulated week (reliability-soak.ts, and bench/soak-day.ts on the harness),
 * scheduled on a fake clock. Every day: two nodes die (one for 9 hours, long enough for
 * reminders, one for minutes), one node flaps (down 3 min, up 2 min, for an hour), one zone goes
 * dark for 20 minutes (a storm), six API stalls of 45 s (lists time out and no kubelet renews);
 * once a week a 5-minute API outage (which must page a WATCHDOG). Seeded: the same schedule every
 * time (the order in which it draws its random numbers is part of that).
 */
import type { SimCluster } from '../sim/cluster.js';
import { type FakeClock, T0 } from './fake-clock.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
export const ZONES = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];

/** Real outages of one node (kubelet stopped by a death, a flap or a storm), [start, end). */
export interface Outage {
  readonly node: string;
  readonly start: number;
  end: number;
  readonly cause: string;
}

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

/** Schedules `days` of faults on the world's clock (see above). */
export function scheduleFaults(world: FaultWorld, days: number): FaultSchedule {
  const plan = new FaultPlan(world);
  for (let day = 0; day < days; day++) scheduleDay(plan, T0 + day * DAY);
  // One API outage of 5 minutes in the week (day 4, 20:00): it must page a WATCHDOG.
  plan.apiDown('outage', T0 + Math.min(3, days - 1) * DAY + 20 * HOUR + plan.jitter(), 5 * MINUTE);
  plan.count('API outages (5 min)');
  const { injected, outages, stalls, apiOutages } = plan;
  return { injected, outages, stalls, apiOutages };
}

/** One day's faults, from `base` (its midnight). */
function scheduleDay(plan: FaultPlan, base: number): void {
  const { nodes, rand } = plan.world;
  const stormZone = plan.pick(ZONES);
  const others = nodes.filter((n) => plan.zoneOf(n) !== stormZone);
  const [longDeath, shortDeath, flapper] = [
    plan.pick(others),
    plan.pick(others),
    plan.pick(others),
  ];
  // A long death from 01:00 to 10:00 (reminders), a short one from 11:00 for 5-35 min.
  plan.stop([longDeath], 'death', base + HOUR + plan.jitter(), 9 * HOUR);
  plan.count('node deaths');
  if (shortDeath !== longDeath) {
    const minutes = 5 + Math.floor(rand() * 30);
    plan.stop([shortDeath], 'death-short', base + 11 * HOUR + plan.jitter(), minutes * MINUTE);
    plan.count('node deaths');
  }
  // A flapping node from 13:00: down 3 min, up 2 min, for an hour.
  const flapStart = base + 13 * HOUR + plan.jitter();
  for (let k = 0; k < 12; k++) plan.stop([flapper], 'flap', flapStart + k * 5 * MINUTE, 3 * MINUTE);
  plan.count('flapping episodes (12 outages each)');
  // A zone dark for 20 minutes from 16:00.
  const zone = nodes.filter((n) => plan.zoneOf(n) === stormZone);
  plan.stop(zone, 'storm', base + 16 * HOUR + plan.jitter(), 20 * MINUTE);
  plan.count('zone storms (20 min)');
  // Six API stalls of 45 s: lists time out, no kubelet renews.
  for (let k = 0; k < 6; k++) {
    plan.apiDown('stall', base + (2 + k * 3.7) * HOUR + Math.floor(rand() * 40 * MINUTE), 45_000);
    plan.count('API stalls (45 s)');
  }
}

/** Causes that stop a kubelet without the node being down: the API does not answer. */
const NOT_REAL = new Set(['stall', 'outage']);

/** The schedule being made: what is injected, and why each kubelet is stopped, on the clock. */
class FaultPlan implements FaultSchedule {
  readonly injected: Record<string, number> = {};
  readonly outages: Outage[] = [];
  readonly stalls: { start: number; end: number }[] = [];
  readonly apiOutages: { start: number; end: number }[] = [];
  /** Why each kubelet is stopped; it runs when nothing stops it. */
  readonly #stoppedBy: Map<string, Set<string>>;
  readonly #open = new Map<string, Outage>();

  constructor(readonly world: FaultWorld) {
    this.#stoppedBy = new Map(world.nodes.map((n) => [n, new Set()]));
  }

  count(kind: string): void {
    this.injected[kind] = (this.injected[kind] ?? 0) + 1;
  }

  zoneOf(name: string): string {
    return ZONES[this.world.nodes.indexOf(name) % ZONES.length] as string;
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.world.rand() * list.length)] as T;
  }

  /** A small fraction of a minute, so that events do not all land on the check instants. */
  jitter(): number {
    return Math.floor(this.world.rand() * 59_000) + 500;
  }

  /** `names` stopped by `cause` from `start`, for `ms`. */
  stop(names: readonly string[], cause: string, start: number, ms: number): void {
    this.#during(start, ms, (on) => {
      for (const name of names) this.#setStopped(name, cause, on);
    });
  }

  /** The API down from `start` for `ms` (a stall or an outage): no kubelet renews meanwhile. */
  apiDown(cause: 'stall' | 'outage', start: number, ms: number): void {
    (cause === 'stall' ? this.stalls : this.apiOutages).push({ start, end: start + ms });
    this.#during(start, ms, (on) => {
      this.world.api(on);
      for (const name of this.world.nodes) this.#setStopped(name, cause, on);
    });
  }

  #during(start: number, ms: number, set: (on: boolean) => void): void {
    this.world.clock.at(start, () => set(true));
    this.world.clock.at(start + ms, () => set(false));
  }

  #setStopped(name: string, cause: string, on: boolean): void {
    const { clock, sim } = this.world;
    const causes = this.#stoppedBy.get(name) as Set<string>;
    const wasReal = this.#isReallyDown(name);
    if (on) causes.add(cause);
    else causes.delete(cause);
    const isReal = this.#isReallyDown(name);
    if (!wasReal && isReal) {
      const outage = { node: name, start: clock.now(), end: Number.POSITIVE_INFINITY, cause };
      this.outages.push(outage);
      this.#open.set(name, outage);
    } else if (wasReal && !isReal) {
      const outage = this.#open.get(name);
      if (outage) outage.end = clock.now();
      this.#open.delete(name);
    }
    if (causes.size > 0) sim.stopKubelet(name);
    else if (!sim.kubeletAlive(name)) sim.startKubelet(name);
  }

  #isReallyDown(name: string): boolean {
    return [...(this.#stoppedBy.get(name) ?? [])].some((cause) => !NOT_REAL.has(cause));
  }
}
