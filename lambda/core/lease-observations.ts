/**
 * What a check sees of each lease before any verdict: its renewal read once, its observation
 * carried forward on the watchdog's clock (renewal-clock.ts), and whether the look is frozen.
 */
import {
  type LeaseDuration,
  nameProblem,
  parseTimestamp,
  type RenewTime,
  readLeaseDuration,
  readRenewTime,
} from './lease.js';
import type { LeaseInfo, NodeInfo, Observation, Observations, Snapshot } from './model.js';
import { DEFAULT_LEASE_DURATION_SECONDS, type Policy } from './policy.js';
import {
  FREEZE_MIN,
  markSuspect,
  observeChange,
  renewIntervalMs,
  silenceStart,
  suspectMs,
} from './renewal-clock.js';

/** What observing needs of a check. */
export interface ObserveContext {
  readonly snapshot: Snapshot;
  readonly policy: Policy;
  readonly now: number;
  readonly previous: Observations;
}

/** Where a lease stands on the watchdog's clock after this check. */
export interface Silence {
  readonly observation: Observation;
  readonly silentMs: number;
}

/**
 * Carries the observation of one lease forward: an unchanged renewTime keeps its observation; a
 * changed one restarts at `now`, its renewal estimated on our clock (renewal-clock.ts); a first
 * sight is estimated against the API server's clock.
 */
function observe(
  key: string | null,
  renewAt: number | undefined,
  firstSightAgeMs: number | undefined,
  { previous, now }: { readonly previous: Observation | undefined; readonly now: number },
): Silence {
  let observation: Observation;
  if (previous && previous.renewTime === key) {
    observation = previous;
  } else if (previous) {
    observation = observeChange(key, renewAt, previous, now);
  } else if (firstSightAgeMs === undefined) {
    observation = { renewTime: key, changedAt: now, estimated: false };
  } else {
    observation = {
      renewTime: key,
      changedAt: now - Math.max(0, firstSightAgeMs),
      estimated: true,
      // An upper bound of the kubelet's clock offset, to learn from (never used for this silence).
      ...(renewAt === undefined ? {} : { offsetMs: now - renewAt }),
    };
  }
  return { observation, silentMs: Math.max(0, now - silenceStart(observation)) };
}

export function createdAtMs(
  node: NodeInfo | undefined,
  lease: LeaseInfo | undefined,
): number | undefined {
  const text = node?.createdAt ?? lease?.createdAt;
  return text === undefined ? undefined : parseTimestamp(text);
}

/**
 * A lease with its spec read once per check (renewTime parsing is most of a check's core CPU),
 * joined once with its Node and its last observation: at 100,000 leases each lookup by name is
 * ~100,000 Map probes, which every phase of a check (suspect lists, observing, judging) would
 * otherwise repeat.
 */
export interface ReadLease {
  readonly lease: LeaseInfo;
  readonly renew: RenewTime;
  readonly duration: LeaseDuration;
  /** Its Node, when listed (undefined too when the check runs on leases alone). */
  readonly node: NodeInfo | undefined;
  /** What the last check observed of it. */
  readonly previous: Observation | undefined;
}

/** One lease's observation for this look, and the limits it is judged by. */
export interface Observed {
  readonly silence: Silence;
  readonly thresholdSeconds: number;
  /** How long a live kubelet goes between renewals (renewal-clock.ts); for a lease ever renewed. */
  readonly limitMs?: number | undefined;
  /**
   * This look is the first to see the lease's renewTime (the observations handed in hold an older
   * one), and its estimated silence is already past a bare renew interval (renewIntervalMs): the
   * kubelet has likely missed a renewal since. A look that saved nothing would forget that it saw
   * the value, and the look that finds the suspect would count its renew interval from itself.
   */
  readonly lateSighting?: true | undefined;
}

/**
 * The duration a lease may claim, in seconds: its `leaseDurationSeconds`, capped at the grace
 * period (or the kubelet's default 40 s, when the grace is shorter). The node lifecycle controller
 * never reads a lease's duration: it marks a node Unknown once its own grace period passes with no
 * renewal, so a lease claiming an hour must not hide a dead node for an hour. Below the cap a
 * longer duration still lengthens the threshold and the renew interval a live kubelet needs.
 */
export function claimedSeconds(durationSeconds: number, policy: Policy): number {
  return Math.min(
    durationSeconds,
    Math.max(policy.gracePeriodSeconds, DEFAULT_LEASE_DURATION_SECONDS),
  );
}

/** The observation of a lease that can be read (undefined: invalid), before any verdict. */
export function observeLease(
  ctx: ObserveContext,
  { lease, renew, duration, node, previous }: ReadLease,
): Observed | undefined {
  const { snapshot, policy, now } = ctx;
  if (renew.kind === 'invalid' || duration.kind === 'invalid') return undefined;
  if (renew.kind === 'never') {
    // Never renewed: silence counts from the node's (or lease's) creation, against the startup grace.
    const created = createdAtMs(node, lease);
    const age = created === undefined ? undefined : snapshot.serverTime - created;
    const silence = observe(null, undefined, age, { previous, now });
    return { silence, thresholdSeconds: policy.startupGraceSeconds };
  }
  const age = snapshot.serverTime - renew.at;
  const seen = observe(renew.raw, renew.at, age, { previous, now });
  const claimed = claimedSeconds(duration.seconds, policy);
  const limitMs = suspectMs(claimed);
  const observation = markSuspect(seen.observation, seen.silentMs, limitMs, now);
  const late =
    previous !== undefined &&
    observation.changedAt === now &&
    seen.silentMs >= renewIntervalMs(claimed);
  return {
    silence: { observation, silentMs: seen.silentMs },
    thresholdSeconds: Math.max(policy.gracePeriodSeconds, claimed),
    limitMs,
    ...(late ? { lateSighting: true as const } : {}),
  };
}

/**
 * What observing every lease found, column by column: the observation of each lease (kept anyway:
 * it is carried to the next check) and, in typed arrays, the numbers judging needs of it. At
 * 100,000 leases an `Observed` and its `Silence` per lease, all live until the last lease is judged,
 * held ~11 MB at a check's peak; the columns ~2 MB. `at(i)` builds lease i's, to be judged and let go.
 */
export class ObservedLeases {
  readonly #observations: (Observation | undefined)[];
  readonly #silentMs: Float64Array;
  readonly #thresholdSeconds: Float64Array;
  /** NaN: none (a lease never renewed). */
  readonly #limitMs: Float64Array;
  readonly #late: Uint8Array;

  constructor(size: number) {
    this.#observations = new Array(size);
    this.#silentMs = new Float64Array(size);
    this.#thresholdSeconds = new Float64Array(size);
    this.#limitMs = new Float64Array(size);
    this.#late = new Uint8Array(size);
  }

  set(i: number, observed: Observed | undefined): void {
    if (observed === undefined) return;
    this.#observations[i] = observed.silence.observation;
    this.#silentMs[i] = observed.silence.silentMs;
    this.#thresholdSeconds[i] = observed.thresholdSeconds;
    this.#limitMs[i] = observed.limitMs ?? Number.NaN;
    this.#late[i] = observed.lateSighting ? 1 : 0;
  }

  /** The observation of lease i as observeLease gave it (undefined: unreadable). */
  at(i: number): Observed | undefined {
    const observation = this.#observations[i];
    if (observation === undefined) return undefined;
    const silence = { observation, silentMs: this.#silentMs[i] as number };
    const thresholdSeconds = this.#thresholdSeconds[i] as number;
    const limitMs = this.#limitMs[i] as number;
    if (Number.isNaN(limitMs)) return { silence, thresholdSeconds };
    return this.#late[i] === 1
      ? { silence, thresholdSeconds, limitMs, lateSighting: true }
      : { silence, thresholdSeconds, limitMs };
  }
}

/**
 * Observes every lease first: a look at which most leases with history are suspects (at least
 * half, at least FREEZE_MIN) sees a frozen cluster (renewal-clock.ts). `observed.at(i)` is the
 * observation of `leases[i]` (undefined: unreadable); `lateSightings` counts the leases this look
 * saw late (Observed `lateSighting`).
 */
export function observeAll(
  ctx: ObserveContext,
  leases: LeaseReads,
): { observed: ObservedLeases; frozen: boolean; lateSightings: number } {
  const observed = new ObservedLeases(leases.length);
  let known = 0;
  let suspects = 0;
  let lateSightings = 0;
  for (let i = 0; i < leases.length; i++) {
    const read = leases.at(i);
    const o = observeLease(ctx, read);
    observed.set(i, o);
    if (o === undefined || read.previous === undefined) continue;
    known++;
    if (o.silence.observation.suspectSince !== undefined) suspects++;
    if (o.lateSighting) lateSightings++;
  }
  return { observed, frozen: suspects >= FREEZE_MIN && suspects * 2 >= known, lateSightings };
}

/** Where a renewTime places a lease among copies of it: never or unreadable before any time. */
function renewedAt(read: ReadLease): number {
  return read.renew.kind === 'time' ? read.renew.at : Number.NEGATIVE_INFINITY;
}

/**
 * The leases of a check, one per name, each joined with its Node and last observation, as
 * columns: `at(i)` builds lease i's ReadLease, to be read and let go. At 100,000 leases a
 * ReadLease and its RenewTime per lease, all live until the last one is judged, held ~13 MB at a
 * check's peak; the columns ~4 MB. A renewTime is parsed once, when the lease is added.
 */
export class LeaseReads {
  #count = 0;
  readonly #leases: LeaseInfo[];
  readonly #nodes: (NodeInfo | undefined)[];
  readonly #previous: (Observation | undefined)[];
  readonly #durations: LeaseDuration[];
  /** When a lease's renewTime (the string it was listed with) was; else its RenewTime in #other. */
  readonly #renewAt: Float64Array;
  readonly #other = new Map<number, RenewTime>();
  #carried = 0;

  constructor(capacity: number) {
    this.#leases = new Array(capacity);
    this.#nodes = new Array(capacity);
    this.#previous = new Array(capacity);
    this.#durations = new Array(capacity);
    this.#renewAt = new Float64Array(capacity);
  }

  get length(): number {
    return this.#count;
  }

  /** How many of the leases the last check observed are among these. */
  get carried(): number {
    return this.#carried;
  }

  /** Adds a lease as `read` reads it (readOf). */
  add(read: ReadLease): void {
    const i = this.#count++;
    this.#leases[i] = read.lease;
    this.#nodes[i] = read.node;
    this.#previous[i] = read.previous;
    this.#durations[i] = read.duration;
    const renew = read.renew;
    if (renew.kind === 'time' && renew.raw === read.lease.renewTime) this.#renewAt[i] = renew.at;
    else this.#other.set(i, renew);
    if (read.previous !== undefined) this.#carried++;
  }

  at(i: number): ReadLease {
    const lease = this.#leases[i] as LeaseInfo;
    return {
      lease,
      renew: this.#other.get(i) ?? {
        kind: 'time',
        raw: lease.renewTime as string,
        at: this.#renewAt[i] as number,
      },
      duration: this.#durations[i] as LeaseDuration,
      node: this.#nodes[i],
      previous: this.#previous[i],
    };
  }

  /** On leases alone (a suspect Node list): no lease has a Node. */
  withoutNodes(): void {
    this.#nodes.fill(undefined);
  }
}

/** The leases of a check (LeaseReads) and the listed Nodes that have no lease, in the order listed. */
export interface JoinedLeases {
  readonly reads: LeaseReads;
  readonly unleased: NodeInfo[];
}

/**
 * One lease per name, joined with its Node and last observation (`previous`). A list should never
 * hold two, but a broken server or proxy can: the copy renewed last wins (on a tie, the first
 * listed), so a stale copy listed first cannot make a live node expired.
 *
 * The API lists both kinds by name, ascending: then leases and Nodes are joined as two sorted
 * lists are merged, with no Map of either. At 100,000 nodes the two Maps by name this replaced
 * were ~15 MB a check allocated and dropped, at its peak (docs/BENCHMARKS.md). Either list in
 * any other order (a proxy's; the cache's, once a new node was read afresh into it) is joined
 * through the Maps.
 */
export function latestLeases(
  leases: readonly LeaseInfo[],
  nodes: readonly NodeInfo[],
  previous: Observations,
): JoinedLeases {
  if (!ascending(leases) || !ascending(nodes)) return joinByName(leases, nodes, previous);
  const reads = new LeaseReads(leases.length);
  const unleased: NodeInfo[] = [];
  let n = 0;
  for (const lease of leases) {
    const name = lease.name;
    while (n < nodes.length && (nodes[n] as NodeInfo).name < name) {
      unleased.push(nodes[n] as NodeInfo);
      n++;
    }
    const node = n < nodes.length && nodes[n]?.name === name ? nodes[n++] : undefined;
    reads.add(readOf(lease, node, previous.get(name)));
  }
  for (; n < nodes.length; n++) unleased.push(nodes[n] as NodeInfo);
  return { reads, unleased };
}

/** `latestLeases` for leases in any order: through a Map of the leases and one of the Nodes. */
function joinByName(
  leases: readonly LeaseInfo[],
  nodes: readonly NodeInfo[],
  previous: Observations,
): JoinedLeases {
  // Of two Nodes with one name, the last listed (in the place of the first).
  const listed = new Map<string, NodeInfo>();
  for (const node of nodes) listed.set(node.name, node);
  const byName = new Map<string, ReadLease>();
  for (const lease of leases) {
    const name = lease.name;
    const kept = byName.get(name);
    const read = kept
      ? readOf(lease, kept.node, kept.previous)
      : readOf(lease, listed.get(name), previous.get(name));
    if (!kept || renewedAt(read) > renewedAt(kept)) byName.set(name, read);
  }
  const reads = new LeaseReads(byName.size);
  for (const read of byName.values()) reads.add(read);
  const unleased: NodeInfo[] = [];
  for (const node of listed.values()) if (!byName.has(node.name)) unleased.push(node);
  return { reads, unleased };
}

function readOf(
  lease: LeaseInfo,
  node: NodeInfo | undefined,
  previous: Observation | undefined,
): ReadLease {
  return {
    lease,
    // A name the API itself would refuse: nothing of the lease is trusted.
    renew:
      lease.nameLength === undefined
        ? readRenewTime(lease.renewTime)
        : { kind: 'invalid', problem: nameProblem(lease.nameLength) },
    duration: readLeaseDuration(lease.leaseDurationSeconds),
    node,
    previous,
  };
}

/** Whether the names come strictly ascending: then none repeats. */
function ascending(objects: readonly { readonly name: string }[]): boolean {
  return objects.every((o, i) => i === 0 || (objects[i - 1] as { name: string }).name < o.name);
}
