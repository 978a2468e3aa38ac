/**
 * The rows the node cache keeps between checks (node-cache.ts): one object per Node, with every
 * field in the object itself, and the labels and taints shared by every node that has the same.
 *
 * A read shares label sets between its own nodes (projection.ts); the rows share them from one
 * whole list to the next, for the life of a warm container: the labels a check reads (zone, node
 * group, instance and capacity type) take a few dozen distinct sets in a cluster of 100,000 nodes.
 * The cache held 39 MB at 100,000 nodes as projections built field by field; as rows, 29 MB
 * (docs/BENCHMARKS.md).
 */
import type { NodeInfo, Taint } from '../../core/model.js';

/** Distinct label (or taint) sets shared at most: past this, a node keeps its own. */
export const MAX_SHARED_SETS = 10_000;

const NO_TAINTS: readonly Taint[] = Object.freeze([]);

/** Shares equal label and taint sets between the rows of one cache. */
export class NodeRows {
  private readonly labelSets = new Map<string, Readonly<Record<string, string>>>();
  private readonly taintSets = new Map<string, readonly Taint[]>();
  /** The kept set for each label set object seen (a read's shared ones): at most MAX_SHARED_SETS. */
  private readonly bySet = new Map<
    Readonly<Record<string, string>>,
    Readonly<Record<string, string>>
  >();

  /**
   * `kept` itself when it is the row `row(node)` would build (every field the same): a whole list
   * of unchanged Nodes then keeps the rows it had, and builds none (at 100,000 nodes, ~20 MB a
   * relist that lived until the next collection of the old space).
   */
  same(kept: NodeInfo, node: NodeInfo): boolean {
    return (
      kept.name === node.name &&
      kept.createdAt === node.createdAt &&
      kept.unschedulable === node.unschedulable &&
      kept.deletionTimestamp === node.deletionTimestamp &&
      kept.ready === node.ready &&
      kept.readyReason === node.readyReason &&
      kept.readyMessage === node.readyMessage &&
      kept.providerID === node.providerID &&
      kept.nameLength === node.nameLength &&
      kept.labels === this.labels(node.labels) &&
      kept.taints === this.taints(node.taints)
    );
  }

  /**
   * The row to keep for a node: its fields in one object, its label and taint sets shared. A
   * spread of the projection (one literal, projection.ts) holds the same heap as a literal of each
   * field: 23.3 MB for 100,000 rows either way.
   */
  row(node: NodeInfo): NodeInfo {
    return { ...node, labels: this.labels(node.labels), taints: this.taints(node.taints) };
  }

  private labels(labels: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
    // A read shares each label set between its nodes (projection.ts): one look-up by identity
    // per node, and one JSON key per set, not per node.
    const seen = this.bySet.get(labels);
    if (seen !== undefined) return seen;
    // JSON names every key and value unambiguously, whatever characters a server put in them.
    const kept = shared(this.labelSets, JSON.stringify(labels), () => labels);
    if (this.bySet.size >= MAX_SHARED_SETS) this.bySet.clear();
    this.bySet.set(labels, kept);
    return kept;
  }

  private taints(taints: readonly Taint[]): readonly Taint[] {
    if (taints.length === 0) return NO_TAINTS;
    return shared(this.taintSets, JSON.stringify(taints), () => taints);
  }
}

/** The set kept under `key`, or a new one kept there while there is room. */
export function shared<T>(sets: Map<string, T>, key: string, make: () => T): T {
  const known = sets.get(key);
  if (known !== undefined) return known;
  const made = make();
  if (sets.size < MAX_SHARED_SETS) sets.set(key, made);
  return made;
}
