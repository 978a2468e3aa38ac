/**
 * The scenarios bench/latency.ts measures, on the real handler with the watchdog's own looks
 * (testkit/queued-looks.ts: SQS's whole-second delays, then the event source mapping's pollers):
 * deaths at random moments, each taken apart into where its time went, and API stalls that must
 * page nothing. Every invocation (scheduled run or delivered look) is recorded, so that a FIRING
 * can be traced to the look that paged it and to the first look after the missed renewal.
 */
import { MINUTE, renewTimeOf } from '../testkit/schedule-runs.js';
import { random } from '../testkit/state-fixtures.js';
import {
  type Container,
  type Harness,
  kindOf,
  type SimClusterSpec,
  startWatchdogHarness,
} from '../testkit/watchdog-harness.js';

/** The grace period and the silence at which a lease is a suspect (default lease, 40 s). */
const GRACE_MS = 50_000;
const SUSPECT_MS = 12_000;

/** Where one death's time went past the grace, ms (see `breakdown`). */
export interface Death {
  /** From the last renewal (true clock) to SNS accepting the FIRING. */
  readonly latency: number;
  /** What paged it: a suspect's re-check, a routine look, or a scheduled run. */
  readonly pagedBy: 're-check' | 'routine look' | 'scheduled run';
  /** From the first missed renewal (last renewal + 12 s) to the first look after it. */
  readonly gap: number;
  /** From the grace (last renewal + 50 s) to the moment the paging look was asked for. */
  readonly wait: number;
  /** SQS's whole-second delay: from that moment to the message being visible. */
  readonly rounding: number;
  /** The event source mapping's pollers: from visible to delivered. */
  readonly polling: number;
  /** The paging check itself, to SNS accepting the FIRING (0 on the fake clock). */
  readonly check: number;
}

export interface Row {
  readonly row: string;
  readonly deaths: Death[];
  mistakes: number;
  stalls: number;
}

/** One invocation of the function: when it was wanted, visible (SQS) and delivered. */
interface Invocation {
  readonly kind: Death['pagedBy'];
  readonly wanted: number;
  readonly visible: number;
  readonly at: number;
}

export interface Scenario {
  /** Where in its minute the k-th scheduled run lands. */
  readonly offset: (minute: number) => number;
  /** Kubelet clock offsets that step in once the watchdog knows the nodes (ms per node). */
  readonly skews?: (nodes: readonly string[]) => Map<string, number>;
  /** A cold container takes over at a random moment between each death and its grace. */
  readonly coldTakeover?: boolean;
  /** The looks stop being delivered (the event source mapping disabled). */
  readonly mappingDisabled?: boolean;
  /** Two warm containers, each invocation served by either (seeded): Lambda keeps one per overlap. */
  readonly twoWarm?: boolean;
  /** Nodes (in different zones) dying at random moments of the same minute (default 1). */
  readonly overlap?: number;
}

/** The function's invocations, as Lambda makes them: scheduled runs and delivered looks. */
class Driver {
  lambda: Container;
  readonly runs: number[] = [];
  /** Serves each invocation when set (two warm containers), else `lambda`. */
  either?: () => Container;

  constructor(private readonly h: Harness) {
    this.lambda = h.container();
  }

  /** Each invocation to either of two warm containers, at random. */
  twoWarm(seed: number): void {
    const pick = random(seed);
    const other = this.h.container();
    this.either = () => (pick() < 0.5 ? this.lambda : other);
  }

  #serving(): Container {
    return this.either?.() ?? this.lambda;
  }

  /** A fresh container takes over every later invocation (the warm one is gone). */
  takeOver(): void {
    this.lambda.destroy();
    this.lambda = this.h.container();
  }

  until(time: number): Promise<void> {
    const looks = this.h.looks as NonNullable<Harness['looks']>;
    return looks.runUntil(time, (event) => this.#serving().invoke(event));
  }

  /** The schedule for the minutes that start in [from, to), then the looks due by `to`. */
  async minutes(from: number, to: number, offset: (minute: number) => number): Promise<void> {
    for (let k = 0; from + k * MINUTE < to; k++) {
      const at = from + k * MINUTE + offset(k);
      await this.until(at);
      this.runs.push(this.h.clock.now());
      await this.#serving().invoke();
    }
    await this.until(Math.max(to, this.h.clock.now()));
  }

  invocations(): Invocation[] {
    const looks = this.h.looks?.delivered ?? [];
    return [
      ...this.runs.map((t) => ({ kind: 'scheduled run' as const, wanted: t, visible: t, at: t })),
      ...looks.map((l) => ({
        kind: l.suspects.length > 0 ? ('re-check' as const) : ('routine look' as const),
        wanted: l.wanted,
        visible: l.visible,
        at: l.at,
      })),
    ].sort((a, b) => a.at - b.at);
  }
}

/** Where a death's time went: the look that paged it, and the first look after its missed renewal. */
function breakdown(driver: Driver, lastRenewal: number, firedAt: number): Death {
  const all = driver.invocations();
  const paging = all.filter((i) => i.at <= firedAt).at(-1) as Invocation;
  const first = all.find((i) => i.at >= lastRenewal + SUSPECT_MS) ?? paging;
  return {
    latency: firedAt - lastRenewal,
    pagedBy: paging.kind,
    gap: first.at - (lastRenewal + SUSPECT_MS),
    wait: paging.wanted - (lastRenewal + GRACE_MS),
    rounding: paging.visible - paging.wanted,
    polling: paging.at - paging.visible,
    check: firedAt - paging.at,
  };
}

/** Whether an email names `node`: in full, or (a list of many) by its name up to the first dot. */
function names(m: { readonly message: string }, node: string): boolean {
  return m.message.includes(node) || new RegExp(`\\b${node.split('.')[0]}\\b`).test(m.message);
}

/** Messages since `from` that are mistakes: FIRING/STORM naming none of `dead`, any WATCHDOG. */
function mistakesIn(h: Harness, from: number, dead: readonly string[]): number {
  return h
    .messages()
    .slice(from)
    .filter((m) => {
      const kind = kindOf(m) ?? '';
      if (kind === 'WATCHDOG') return true;
      return ['FIRING', 'STORM'].includes(kind) && !dead.some((n) => names(m, n));
    }).length;
}

async function harness(pollSeed: number, spec: SimClusterSpec = { nodes: 40 }): Promise<Harness> {
  const h = await startWatchdogHarness({
    clusters: { prod: { seed: 11, ...spec } },
    withLooks: true,
  });
  const poll = random(pollSeed);
  // Lambda's pollers long-poll the queue; AWS states no bound on the delay: 0-2 s modelled.
  (h.looks as NonNullable<Harness['looks']>).polling = () => Math.floor(poll() * 2_000);
  return h;
}

/** `count` deaths, each of a different node at a random moment of a minute. */
export async function deaths(row: string, count: number, scenario: Scenario): Promise<Row> {
  const h = await harness(3);
  const driver = new Driver(h);
  if (scenario.twoWarm) driver.twoWarm(29);
  const rand = random(7);
  const result: Row = { row, deaths: [], mistakes: 0, stalls: 0 };
  try {
    const target = h.target('prod');
    const skew = scenario.skews?.(target.nodes) ?? new Map<string, number>();
    let t = h.clock.now();
    await driver.minutes(t, t + 5 * MINUTE, scenario.offset);
    t += 5 * MINUTE;
    // The clocks step once the watchdog knows the nodes (between two renewals), and stay off.
    for (const [node, ms] of skew) target.sim.setClockSkew(node, ms);
    await driver.minutes(t, t + 2 * MINUTE, scenario.offset);
    t += 2 * MINUTE;
    if (scenario.mappingDisabled) (h.looks as NonNullable<Harness['looks']>).mappingEnabled = false;
    const overlap = scenario.overlap ?? 1;
    for (let i = 0; i < count; i += overlap) {
      // Neighbours in the list are in different zones (round-robin): deaths that overlap, no storm;
      // a node dies again only rounds later (sooner, it would be flapping).
      const victims = Array.from(
        { length: overlap },
        (_, k) => target.nodes[(overlap === 1 ? i * 7 : i + k) % target.nodes.length] as string,
      );
      const lastRenewals = new Map<string, number>();
      for (const victim of victims) {
        const dies = t + Math.floor(rand() * MINUTE);
        h.clock.at(dies, () => {
          target.sim.stopKubelet(victim);
          lastRenewals.set(victim, renewTimeOf(h, 'prod', victim) - (skew.get(victim) ?? 0));
        });
        if (scenario.coldTakeover) {
          h.clock.at(dies + Math.floor(rand() * GRACE_MS), () => driver.takeOver());
        }
      }
      const seen = h.messages().length;
      await driver.minutes(t, t + 4 * MINUTE, scenario.offset);
      t += 4 * MINUTE;
      for (const victim of victims) {
        const fired = h
          .messages()
          .slice(seen)
          .find((m) => kindOf(m) === 'FIRING' && names(m, victim));
        if (fired === undefined) throw new Error(`${row}: no FIRING for ${victim}`);
        const lastRenewal = lastRenewals.get(victim) ?? Number.NaN;
        result.deaths.push(breakdown(driver, lastRenewal, fired.receivedAt));
      }
      result.mistakes += mistakesIn(h, seen, victims);
      // They come back; the watchdog sees them recover before the next deaths.
      for (const victim of victims) target.sim.startKubelet(victim);
      await driver.minutes(t, t + 2 * MINUTE, scenario.offset);
      t += 2 * MINUTE;
    }
  } finally {
    await h.close();
  }
  return result;
}

/** API stalls of 45 s (lists answer 503, no kubelet renews; they renew 1–8 s after it ends). */
export async function stalls(count: number, offset: (minute: number) => number): Promise<Row> {
  const h = await harness(17);
  const driver = new Driver(h);
  const rand = random(13);
  const result: Row = {
    row: `${count} API stalls of 45 s, nothing dies`,
    deaths: [],
    mistakes: 0,
    stalls: count,
  };
  try {
    const target = h.target('prod');
    let t = h.clock.now();
    await driver.minutes(t, t + 5 * MINUTE, offset);
    t += 5 * MINUTE;
    for (let i = 0; i < count; i++) {
      const start = t + Math.floor(rand() * MINUTE);
      h.clock.at(start, () => {
        target.server.setFault({ kind: 'status', status: 503, message: 'stalled' });
        for (const n of target.nodes) target.sim.stopKubelet(n);
      });
      h.clock.at(start + 45_000, () => target.server.setFault(null));
      for (const n of target.nodes) {
        h.clock.at(start + 45_000 + 1_000 + Math.floor(rand() * 7_000), () =>
          target.sim.startKubelet(n),
        );
      }
      const seen = h.messages().length;
      await driver.minutes(t, t + 4 * MINUTE, offset);
      t += 4 * MINUTE;
      result.mistakes += mistakesIn(h, seen, []);
    }
  } finally {
    await h.close();
  }
  return result;
}

/** Zone outages: in each run, one STORM's latency and whether a FIRING of its nodes came first. */
export interface OutageRow {
  readonly row: string;
  /** From the earliest last renewal of the run's dying nodes to SNS accepting the STORM. */
  readonly latencies: number[];
  /** Runs in which a FIRING naming a dying node came before the STORM (or no STORM came). */
  firstPaged: number;
  mistakes: number;
}

/**
 * `runs` zone outages: `dying` of a zone's `zoneSize` nodes stop in the same second, at a random
 * moment of a minute (their kubelets at whatever phase of their renew cycle they are), and come
 * back four minutes later. Four zones take turns, so that a node dies at most every 24 minutes:
 * more often, its deaths and recoveries would be flapping (3 transitions in 15 minutes).
 */
export async function zoneOutages(
  row: string,
  runs: number,
  { zoneSize, dying, offset }: { zoneSize: number; dying: number; offset: Scenario['offset'] },
): Promise<OutageRow> {
  const zones = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c', 'eu-west-1d'];
  const h = await harness(5, { nodes: zones.length * zoneSize, zones });
  const driver = new Driver(h);
  const rand = random(23);
  const result: OutageRow = { row, latencies: [], firstPaged: 0, mistakes: 0 };
  try {
    const target = h.target('prod');
    // Ten minutes first: the looks learn every kubelet's clock, as a watchdog running for days has.
    let t = h.clock.now();
    await driver.minutes(t, t + 10 * MINUTE, offset);
    t += 10 * MINUTE;
    for (let run = 0; run < runs; run++) {
      // Nodes are spread round-robin over the zones.
      const zone = target.nodes.filter((_, i) => i % zones.length === run % zones.length);
      const victims = [...zone].sort(() => rand() - 0.5).slice(0, dying);
      let earliest = Number.NaN;
      h.clock.at(t + Math.floor(rand() * MINUTE), () => {
        earliest = Math.min(...victims.map((n) => renewTimeOf(h, 'prod', n)));
        for (const n of victims) target.sim.stopKubelet(n);
      });
      const seen = h.messages().length;
      await driver.minutes(t, t + 4 * MINUTE, offset);
      t += 4 * MINUTE;
      const paged = h
        .messages()
        .slice(seen)
        .filter((m) => ['FIRING', 'STORM'].includes(kindOf(m) ?? ''));
      const storm = paged.findIndex((m) => kindOf(m) === 'STORM');
      const first = paged.findIndex((m) => victims.some((n) => names(m, n)));
      if (storm < 0 || (first >= 0 && first < storm)) result.firstPaged++;
      if (storm >= 0) result.latencies.push((paged[storm]?.receivedAt ?? 0) - earliest);
      result.mistakes += mistakesIn(h, seen, victims);
      for (const n of victims) target.sim.startKubelet(n);
      await driver.minutes(t, t + 2 * MINUTE, offset);
      t += 2 * MINUTE;
    }
  } finally {
    await h.close();
  }
  return result;
}
