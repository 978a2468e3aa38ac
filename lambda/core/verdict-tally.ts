/** The counts of a check's verdicts: per verdict, per suppression cause, per zone and per node group. */
import {
  type Evaluation,
  isSilent,
  type NodeGroupSummary,
  type NodeVerdict,
  type SuppressionCause,
  VERDICTS,
  type Verdict,
  type ZoneSummary,
} from './model.js';
import { compareNames, evaluationOf, verdictListOf } from './verdict-list.js';

type Counts = { total: number; silent: number };

/** Counts one node under `key` (a null key leaves it out). */
function count(groups: Map<string, Counts>, key: string | null, silent: boolean): void {
  if (key === null) return;
  let group = groups.get(key);
  if (group === undefined) {
    group = { total: 0, silent: 0 };
    groups.set(key, group);
  }
  group.total++;
  if (silent) group.silent++;
}

/** The groups sorted by key. */
function sorted(groups: Map<string, Counts>): [string, Counts][] {
  return [...groups.entries()].sort(([a], [b]) => compareNames(a, b));
}

/**
 * The counts of an evaluation's verdicts (after silences changed some: see silences.ts), in one
 * pass: per verdict; per zone (no zone: '') and per node group (nodes with none are left out),
 * with how many are silent. Orphaned leases are not nodes: counted per verdict only.
 */
export function tally(
  nodes: Iterable<NodeVerdict>,
): Pick<Evaluation, 'summary' | 'suppressedBy' | 'zones' | 'nodeGroups'> {
  const summary = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  const suppressedBy: Partial<Record<SuppressionCause, number>> = {};
  const zones = new Map<string, Counts>();
  const nodeGroups = new Map<string, Counts>();
  for (const n of nodes) {
    summary[n.verdict]++;
    if (n.suppressedBy) suppressedBy[n.suppressedBy] = (suppressedBy[n.suppressedBy] ?? 0) + 1;
    if (n.verdict === 'orphaned-lease') continue;
    const silent = isSilent(n.verdict);
    count(zones, n.zone ?? '', silent);
    count(nodeGroups, n.nodeGroup ?? null, silent);
  }
  return {
    summary,
    suppressedBy,
    zones: sorted(zones).map(([zone, counts]): ZoneSummary => ({ zone, ...counts })),
    nodeGroups: sorted(nodeGroups).map(
      ([nodeGroup, counts]): NodeGroupSummary => ({ nodeGroup, ...counts }),
    ),
  };
}

/**
 * The evaluation with `change` applied to every verdict but the healthy ones (kept apart, never
 * changed) and counted again; the evaluation itself when `change` changed none.
 */
export function mapUnhealthy(
  evaluation: Evaluation,
  change: (node: NodeVerdict) => NodeVerdict,
): Evaluation {
  let changed = false;
  const each = (node: NodeVerdict) => {
    const next = change(node);
    if (next !== node) changed = true;
    return next;
  };
  const list = verdictListOf(evaluation);
  if (list !== undefined) {
    const others = list.others.map(each);
    if (!changed) return evaluation;
    const { nodes: _, ...fields } = evaluation;
    const next = list.withOthers(others);
    return evaluationOf({ ...fields, ...tally(next) }, next);
  }
  const nodes = evaluation.nodes.map(each);
  return changed ? { ...evaluation, nodes, ...tally(nodes) } : evaluation;
}
