/** The counts of a check's verdicts: per verdict, per zone and per node group. */
import {
  type Evaluation,
  isSilent,
  type NodeGroupSummary,
  type NodeVerdict,
  VERDICTS,
  type Verdict,
  type ZoneSummary,
} from './model.js';

function summarise(nodes: readonly NodeVerdict[]): Record<Verdict, number> {
  const summary = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const n of nodes) summary[n.verdict]++;
  return summary;
}

/** Nodes per key (orphaned leases are not nodes; a null key leaves the node out), with how many are silent. */
function countBy(
  nodes: readonly NodeVerdict[],
  keyOf: (node: NodeVerdict) => string | null,
): [string, { total: number; silent: number }][] {
  const groups = new Map<string, { total: number; silent: number }>();
  for (const n of nodes) {
    if (n.verdict === 'orphaned-lease') continue;
    const key = keyOf(n);
    if (key === null) continue;
    const group = groups.get(key) ?? { total: 0, silent: 0 };
    group.total++;
    if (isSilent(n.verdict)) group.silent++;
    groups.set(key, group);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Nodes per zone (no zone: ''), with how many are silent. */
function zonesOf(nodes: readonly NodeVerdict[]): ZoneSummary[] {
  return countBy(nodes, (n) => n.zone ?? '').map(([zone, counts]) => ({ zone, ...counts }));
}

/** Nodes per node group (nodes without one are left out), with how many are silent. */
function nodeGroupsOf(nodes: readonly NodeVerdict[]): NodeGroupSummary[] {
  return countBy(nodes, (n) => n.nodeGroup ?? null).map(([nodeGroup, counts]) => ({
    nodeGroup,
    ...counts,
  }));
}

/** The counts of an evaluation's verdicts (after silences changed some: see silences.ts). */
export function tally(
  nodes: readonly NodeVerdict[],
): Pick<Evaluation, 'summary' | 'zones' | 'nodeGroups'> {
  return { summary: summarise(nodes), zones: zonesOf(nodes), nodeGroups: nodeGroupsOf(nodes) };
}
