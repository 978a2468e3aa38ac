/**
 * Projects API objects, parsed as plain JSON, onto the few fields the core needs (LeaseInfo,
 * NodeInfo): a Node object is several kilobytes (images, conditions, capacity), and keeping
 * 100,000 of them, or running them through the client's model deserialiser, costs far more than
 * the check needs. Never throws on odd shapes: the core judges them.
 *
 * Names are cut here, once, where they enter: a name longer than Kubernetes allows (253
 * characters) is kept as its first characters and a hash of the whole (`cutName`), with its
 * length in `nameLength`, so the core reports the object `invalid` and every output after it —
 * table, JSON, YAML, email, document, state, logs — holds the cut name, never a megabyte.
 */
import { createHash } from 'node:crypto';
import { MAX_NAME_LENGTH } from '../../../core/lease.js';
import type { LeaseInfo, NodeInfo, Taint } from '../../../core/model.js';
import { shared } from '../node-rows.js';
import { ALL, type Keep, keepEach, keepFields } from './pruned-json.js';

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

/**
 * Every field `projectLease` reads, and nothing else: a list page is read keeping these alone
 * (pruned-json.ts). A field read below and missing here would be read as absent.
 */
export const LEASE_FIELDS: Keep = keepFields({
  metadata: keepFields({ name: ALL, creationTimestamp: ALL }),
  spec: keepFields({ renewTime: ALL, leaseDurationSeconds: ALL }),
});

/** The characters of a long name kept before its hash: `<first 200>…<12 hex digits>`. */
const CUT_PREFIX = 200;

/**
 * A name as the core may keep it: itself when Kubernetes would accept its length, or else its
 * first characters and a hash of the whole, so that a Node and its Lease still pair and two long
 * names stay apart; `nameLength` is set only for a cut name.
 */
function cutName(name: string): { name: string; nameLength?: number | undefined } {
  if (name.length <= MAX_NAME_LENGTH) return { name };
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 12);
  // Cut on a code point: never half of a surrogate pair (an emoji), which no output can write.
  const last = name.charCodeAt(CUT_PREFIX - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? CUT_PREFIX - 1 : CUT_PREFIX;
  return { name: `${name.slice(0, end)}…${hash}`, nameLength: name.length };
}

/**
 * Keeps what the core needs of a Lease; never throws on odd shapes (the core judges them). With an
 * interner, its name is the one string the read keeps for it (Interner.name).
 */
export function projectLease(item: unknown, interner?: Interner): LeaseInfo | undefined {
  const metadata = record(record(item).metadata);
  const spec = record(record(item).spec);
  const raw = str(metadata.name);
  if (!raw) return undefined;
  const { name, nameLength } = cutName(raw);
  const renewTime = spec.renewTime;
  // Every field written in one literal: V8 keeps them in the object, without a second array. The
  // creation time counts only for a lease never renewed (core/lease-observations.ts, createdAtMs):
  // a renewed lease does not keep it (100,000 strings a read at 100,000 nodes).
  const lease = {
    name: interner ? interner.name(name) : name,
    renewTime,
    leaseDurationSeconds: spec.leaseDurationSeconds,
    createdAt: typeof renewTime === 'string' ? undefined : str(metadata.creationTimestamp),
  };
  return nameLength === undefined ? lease : { ...lease, nameLength };
}

const MAX_MESSAGE = 300;
const NO_TAINTS: readonly Taint[] = Object.freeze([]);

/**
 * One copy of each repeated value (zones, condition reasons, taint keys), and of each label set:
 * JSON.parse gives every node its own copy of "eu-west-1a" and "KubeletReady", and its own labels
 * object although a cluster's nodes have a few dozen distinct sets of the labels a check reads,
 * which at 100,000 nodes adds up. With a NameTable, names too (Interner.name).
 */
export class Interner {
  private readonly values = new Map<string, string>();
  private readonly labelSets = new Map<string, Readonly<Record<string, string>>>();

  constructor(private readonly names?: NameTable) {}

  intern(value: string | undefined): string | undefined {
    return value === undefined ? undefined : shared(this.values, value, () => value);
  }

  /** The name as the read keeps it: one string for a Lease, its Node and the last read's copy. */
  name(name: string): string {
    return this.names ? this.names.intern(name) : name;
  }

  /** One object for every node of the read whose kept labels are these. */
  labels(labels: Record<string, string>): Readonly<Record<string, string>> {
    // JSON names every key and value unambiguously, whatever characters a server put in them.
    return shared(this.labelSets, JSON.stringify(labels), () => labels);
  }
}

/**
 * The names of the objects a reader has seen, kept from one read to the next, so that a Lease,
 * its Node, the node cache and the observations carried between checks hold one string per name
 * instead of one per list and per check (~60 bytes each, 100,000 of each at 100,000 nodes). One
 * look-up per name; names no longer seen are let go when a read ends with far fewer (`turn`).
 */
export class NameTable {
  private names = new Map<string, string>();
  /** The names seen by the read under way (a name may come twice: its Lease and its Node). */
  private seen: string[] = [];

  intern(name: string): string {
    let known = this.names.get(name);
    if (known === undefined) {
      known = name;
      this.names.set(name, name);
    }
    this.seen.push(known);
    return known;
  }

  /** Names kept. */
  get size(): number {
    return this.names.size;
  }

  /** A read is over: past this read's names (and a little), the table keeps only those. */
  turn(): void {
    if (this.names.size > this.seen.length + 1_000) {
      this.names = new Map(this.seen.map((name) => [name, name]));
    }
    this.seen = [];
  }
}

/**
 * Every field `projectNode` reads, and nothing else: the images, capacity, nodeInfo, annotations
 * and managedFields that are most of a Node's bytes are never built. A field read below and
 * missing here would be read as absent.
 */
const NODE_PARTS: Readonly<Record<string, Keep>> = {
  metadata: keepFields({
    name: ALL,
    creationTimestamp: ALL,
    deletionTimestamp: ALL,
    labels: ALL,
  }),
  spec: keepFields({ unschedulable: ALL, taints: ALL, providerID: ALL }),
  status: keepFields({
    conditions: keepEach(keepFields({ type: ALL, status: ALL, reason: ALL, message: ALL })),
  }),
};
export const NODE_FIELDS: Keep = keepFields(NODE_PARTS);
/** A Node answered alone (a GET): its `kind` too. */
export const NODE_OBJECT_FIELDS: Keep = keepFields({ kind: ALL, ...NODE_PARTS });

/** Keeps what the verdicts, grouping and notifications need of a Node (only `labelKeys` labels, when given). */
export function projectNode(
  item: unknown,
  labelKeys?: ReadonlySet<string>,
  interner: Interner = new Interner(),
): NodeInfo | undefined {
  const metadata = record(record(item).metadata);
  const spec = record(record(item).spec);
  const status = record(record(item).status);
  const raw = str(metadata.name);
  if (!raw) return undefined;
  const { name, nameLength } = cutName(raw);
  // Labels, then taints, then conditions: the order the interner sees values in.
  const labels = interner.labels(projectLabels(metadata.labels, labelKeys, interner));
  const taints = projectTaints(spec.taints, interner);
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const ready = record(conditions.find((c) => record(c).type === 'Ready'));
  const notReady = ready.status !== 'True';
  // Every field written in one literal: V8 keeps them in the object, without a second array.
  const node = {
    name: interner.name(name),
    createdAt: str(metadata.creationTimestamp),
    labels,
    unschedulable: spec.unschedulable === true,
    deletionTimestamp: str(metadata.deletionTimestamp),
    taints: taints.length > 0 ? taints : NO_TAINTS,
    ready: interner.intern(str(ready.status)),
    // Reason and message matter only when the node is not Ready; kubelets can write long ones.
    readyReason: notReady ? interner.intern(str(ready.reason)) : undefined,
    readyMessage: notReady ? str(ready.message)?.slice(0, MAX_MESSAGE) : undefined,
    providerID: str(spec.providerID),
  };
  return nameLength === undefined ? node : { ...node, nameLength };
}

function projectLabels(
  raw: unknown,
  labelKeys: ReadonlySet<string> | undefined,
  interner: Interner,
): Record<string, string> {
  const labels: Record<string, string> = {};
  const allLabels = record(raw);
  for (const key of labelKeys ?? Object.keys(allLabels)) {
    const value = allLabels[key];
    if (typeof value === 'string') labels[key] = interner.intern(value) as string;
  }
  return labels;
}

function projectTaints(raw: unknown, interner: Interner): Taint[] {
  const rawTaints = Array.isArray(raw) ? raw : [];
  const taints: Taint[] = [];
  for (const taint of rawTaints) {
    const key = interner.intern(str(record(taint).key));
    if (key) {
      taints.push({
        key,
        effect: interner.intern(str(record(taint).effect)),
        value: interner.intern(str(record(taint).value)),
      });
    }
  }
  return taints;
}
