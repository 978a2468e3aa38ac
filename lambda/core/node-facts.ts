/**
 * What a Node's well-known labels say about where it runs: its node group (or node pool), its
 * instance type and its capacity type. Shown in notifications and `check -o wide`, carried as
 * message attributes, and used to group a storm. Absent when the node carries none of the labels.
 */
import type { NodeFacts, NodeInfo } from './model.js';

/** The labels that name a node's group, in the order they are consulted. */
export const NODE_GROUP_LABELS = [
  'eks.amazonaws.com/nodegroup', // EKS managed node groups
  'karpenter.sh/nodepool', // Karpenter v1
  'karpenter.sh/provisioner-name', // Karpenter before v0.32
  'alpha.eksctl.io/nodegroup-name', // eksctl self-managed node groups
  'cloud.google.com/gke-nodepool', // GKE
  'kubernetes.azure.com/agentpool', // AKS
] as const;

export const INSTANCE_TYPE_LABELS = [
  'node.kubernetes.io/instance-type',
  'beta.kubernetes.io/instance-type',
] as const;

/** EKS writes `ON_DEMAND`/`SPOT`, Karpenter `on-demand`/`spot`: shown as the latter. */
export const CAPACITY_TYPE_LABELS = [
  'karpenter.sh/capacity-type',
  'eks.amazonaws.com/capacityType',
] as const;

export const NODE_FACT_LABELS: readonly string[] = [
  ...NODE_GROUP_LABELS,
  ...INSTANCE_TYPE_LABELS,
  ...CAPACITY_TYPE_LABELS,
];

function firstLabel(node: NodeInfo, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = node.labels[key];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/** EKS's spellings, shown as Karpenter's; any other value as it is, lowercased. */
const CAPACITY_TYPES: ReadonlyMap<string, string> = new Map([
  ['ON_DEMAND', 'on-demand'],
  ['SPOT', 'spot'],
  ['on-demand', 'on-demand'],
  ['spot', 'spot'],
]);

export function nodeGroupOf(node: NodeInfo): string | undefined {
  return firstLabel(node, NODE_GROUP_LABELS);
}

export function instanceTypeOf(node: NodeInfo): string | undefined {
  return firstLabel(node, INSTANCE_TYPE_LABELS);
}

export function capacityTypeOf(node: NodeInfo): string | undefined {
  const value = firstLabel(node, CAPACITY_TYPE_LABELS);
  if (value === undefined) return undefined;
  // The usual values without a new string per node and check.
  return CAPACITY_TYPES.get(value) ?? value.toLowerCase().replaceAll('_', '-');
}

/** Adds the facts of a node to `target`, in NodeFacts' key order, each only when a label gives it. */
export function addNodeFacts(
  target: { -readonly [K in keyof NodeFacts]: NodeFacts[K] },
  node: NodeInfo,
): void {
  const nodeGroup = firstLabel(node, NODE_GROUP_LABELS);
  if (nodeGroup !== undefined) target.nodeGroup = nodeGroup;
  const instanceType = firstLabel(node, INSTANCE_TYPE_LABELS);
  if (instanceType !== undefined) target.instanceType = instanceType;
  const capacityType = capacityTypeOf(node);
  if (capacityType !== undefined) target.capacityType = capacityType;
}

/** The facts of a node (an empty object for no node, or a node without the labels). */
export function nodeFactsOf(node: NodeInfo | undefined): NodeFacts {
  const facts: { -readonly [K in keyof NodeFacts]: NodeFacts[K] } = {};
  if (node) addNodeFacts(facts, node);
  return facts;
}
