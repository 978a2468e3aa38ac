/**
 * An evaluation's verdicts as it keeps them: the healthy renewing leases (nearly every node of
 * nearly every check) as rows of a few columns, each verdict built when it is read; every other
 * verdict as an object. A healthy verdict is ~170 bytes with its instance id (no pointer
 * compression in Lambda's V8), a row ~50: at 100,000 nodes ~12 MB less live through a check.
 *
 * `Evaluation.nodes` stays the whole array, built on first use (the command's output, the tests);
 * the function's own path reads the verdicts one by one through `verdictsOf` and `verdictCount`.
 */
import type { Evaluation, NodeInfo, NodeVerdict } from './model.js';

/** What a healthy verdict is made of (node-verdicts.ts builds it). */
export interface HealthyLease
  extends Pick<NodeVerdict, 'name' | 'renewTime' | 'leaseDurationSeconds' | 'reason'> {
  readonly node: NodeInfo | undefined;
  readonly silentForSeconds: number;
  /** The silence was estimated from the API server's clock (no earlier observation). */
  readonly firstSight: boolean;
  /** This check is the first to see the lease. */
  readonly newlySeen: boolean;
}

const FIRST_SIGHT = 1;
const NEWLY_SEEN = 2;

/**
 * Healthy leases as columns, in the order they were added. Sized once for the most rows a check
 * can add (its leases): seven columns grown a push at a time left ~12 MB of outgrown arrays at
 * 100,000 nodes, in the large-object space that only a full collection frees.
 */
export class HealthyRows {
  private count = 0;
  private readonly names: string[];
  private readonly nodes: (NodeInfo | undefined)[];
  private readonly renewTimes: (string | null)[];
  private readonly durations: (number | null)[];
  private readonly silent: Float64Array;
  private readonly flags: Uint8Array;
  private readonly reasons: (string | undefined)[];

  constructor(
    /** `renewed 9s ago` for 9 seconds (one string per value, shared by the rows). */
    private readonly reasonFor: (silentForSeconds: number) => string,
    /** The most rows that will be added. */
    capacity: number,
  ) {
    this.names = new Array(capacity);
    this.nodes = new Array(capacity);
    this.renewTimes = new Array(capacity);
    this.durations = new Array(capacity);
    this.silent = new Float64Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.reasons = new Array(capacity);
  }

  get length(): number {
    return this.count;
  }

  add(lease: HealthyLease): void {
    const i = this.count++;
    if (i >= this.names.length) throw new RangeError(`more than ${this.names.length} healthy rows`);
    this.names[i] = lease.name;
    this.nodes[i] = lease.node;
    this.renewTimes[i] = lease.renewTime;
    this.durations[i] = lease.leaseDurationSeconds;
    this.silent[i] = lease.silentForSeconds;
    this.flags[i] = (lease.firstSight ? FIRST_SIGHT : 0) | (lease.newlySeen ? NEWLY_SEEN : 0);
    // Only a reason that is not the shared one is kept per row.
    const shared = lease.reason === this.reasonFor(lease.silentForSeconds);
    this.reasons[i] = shared ? undefined : lease.reason;
  }

  nameAt(i: number): string {
    return this.names[i] as string;
  }

  leaseAt(i: number): HealthyLease {
    const flags = this.flags[i] as number;
    const silentForSeconds = this.silent[i] as number;
    return {
      name: this.names[i] as string,
      node: this.nodes[i],
      renewTime: this.renewTimes[i] as string | null,
      leaseDurationSeconds: this.durations[i] as number | null,
      silentForSeconds,
      firstSight: (flags & FIRST_SIGHT) !== 0,
      newlySeen: (flags & NEWLY_SEEN) !== 0,
      reason: this.reasons[i] ?? this.reasonFor(silentForSeconds),
    };
  }

  /** The row indices in name order. */
  byName(): Int32Array {
    const order = new Int32Array(this.count);
    for (let i = 0; i < order.length; i++) order[i] = i;
    const names = this.names;
    return order.sort((a, b) => compareNames(names[a] as string, names[b] as string));
  }
}

/** Code-unit order (the API server's order of names), not the locale's. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every verdict of one evaluation in name order: the healthy rows and the other verdicts merged. */
export class VerdictList implements Iterable<NodeVerdict> {
  constructor(
    private readonly healthy: HealthyRows,
    private readonly order: Int32Array,
    private readonly build: (lease: HealthyLease) => NodeVerdict,
    /** Sorted by name. */
    readonly others: readonly NodeVerdict[],
  ) {}

  static of(
    healthy: HealthyRows,
    build: (lease: HealthyLease) => NodeVerdict,
    others: NodeVerdict[],
  ): VerdictList {
    others.sort((a, b) => compareNames(a.name, b.name));
    return new VerdictList(healthy, healthy.byName(), build, others);
  }

  get length(): number {
    return this.order.length + this.others.length;
  }

  /** The same healthy rows with other verdicts in place of these (as many, in the same order). */
  withOthers(others: readonly NodeVerdict[]): VerdictList {
    return new VerdictList(this.healthy, this.order, this.build, others);
  }

  *[Symbol.iterator](): Iterator<NodeVerdict> {
    const { healthy, order, others } = this;
    let h = 0;
    let o = 0;
    while (h < order.length || o < others.length) {
      const row = h < order.length ? (order[h] as number) : -1;
      const other = others[o];
      if (row >= 0 && (other === undefined || healthy.nameAt(row) < other.name)) {
        h++;
        yield this.build(healthy.leaseAt(row));
      } else {
        o++;
        yield other as NodeVerdict;
      }
    }
  }
}

const lists = new WeakMap<Evaluation, VerdictList>();

/**
 * The evaluation of these fields and verdicts: `nodes` is built from them when first read.
 * Registered so that `verdictsOf` reads them one by one instead.
 */
export function evaluationOf(fields: Omit<Evaluation, 'nodes'>, list: VerdictList): Evaluation {
  let nodes: readonly NodeVerdict[] | undefined;
  // The keys in the order they always had (`nodes` after `suspect`).
  const { cluster, checkedAt, serverTime, degraded, suspect, ...rest } = fields;
  const evaluation: Evaluation = {
    cluster,
    checkedAt,
    serverTime,
    degraded,
    suspect,
    get nodes() {
      nodes ??= [...list];
      return nodes;
    },
    ...rest,
  };
  lists.set(evaluation, list);
  return evaluation;
}

/** The verdict list behind an evaluation built by `evaluationOf`, if it was. */
export function verdictListOf(evaluation: Evaluation): VerdictList | undefined {
  return lists.get(evaluation);
}

/** An evaluation's verdicts in name order, the healthy ones built as they are read. */
export function verdictsOf(evaluation: Evaluation): Iterable<NodeVerdict> {
  return lists.get(evaluation) ?? evaluation.nodes;
}

/** How many verdicts an evaluation has. */
export function verdictCount(evaluation: Evaluation): number {
  return (lists.get(evaluation) ?? evaluation.nodes).length;
}
