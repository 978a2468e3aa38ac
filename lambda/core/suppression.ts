/**
 * Expected removals and user exclusions: a node that goes silent for one of these reasons is
 * `suppressed`, not paged. The taints are the ones the cluster autoscaler and Karpenter put on
 * nodes they are about to remove.
 */
import type { NodeInfo, SuppressionCause } from './model.js';
import type { Policy } from './policy.js';
import { matchesSelector } from './selector.js';

export const AUTOSCALER_REMOVAL_TAINT = 'ToBeDeletedByClusterAutoscaler';
/** Karpenter ≥ 1.0 taints nodes it disrupts with `karpenter.sh/disrupted`; v0.3x used `karpenter.sh/disruption`. */
export const KARPENTER_DISRUPTION_TAINTS: readonly string[] = [
  'karpenter.sh/disrupted',
  'karpenter.sh/disruption',
];

const DESCRIPTIONS: Record<SuppressionCause, string> = {
  deleting: 'node is being deleted (deletionTimestamp set)',
  'autoscaler-removal': `node is being removed by the cluster autoscaler (${AUTOSCALER_REMOVAL_TAINT} taint)`,
  'karpenter-disruption': 'node is being disrupted by Karpenter (karpenter.sh/disrupted taint)',
  cordoned: 'node is cordoned (spec.unschedulable)',
  excluded: 'node is excluded by the selector',
  silenced: 'node is silenced (lease-watchdog silence add)',
  maintenance: 'node is in a maintenance window',
};

/** The causes that are expected removals: timed out as stuck after `stuckRemovalSeconds`. */
export type RemovalCause = Exclude<SuppressionCause, 'excluded' | 'silenced' | 'maintenance'>;

export function isRemovalCause(cause: SuppressionCause): cause is RemovalCause {
  return cause !== 'excluded' && cause !== 'silenced' && cause !== 'maintenance';
}

/**
 * Why this node's silence is expected, or undefined when it is not. The user's exclusion first (it
 * is for good: a silent excluded node never pages), then the most specific expected removal (those
 * page once silent for too long: see node-step.ts).
 */
export function suppressionOf(node: NodeInfo, policy: Policy): SuppressionCause | undefined {
  if (policy.exclude && matchesSelector(policy.exclude, node.labels)) return 'excluded';
  if (node.deletionTimestamp) return 'deleting';
  if (node.taints.some((t) => t.key === AUTOSCALER_REMOVAL_TAINT)) return 'autoscaler-removal';
  if (node.taints.some((t) => KARPENTER_DISRUPTION_TAINTS.includes(t.key))) {
    return 'karpenter-disruption';
  }
  if (node.unschedulable) return 'cordoned';
  return undefined;
}

export function describeSuppression(cause: SuppressionCause, policy: Policy): string {
  if (cause === 'excluded' && policy.exclude) {
    return `node is excluded by the selector "${policy.exclude.source}"`;
  }
  return DESCRIPTIONS[cause];
}

const REMOVALS: Record<RemovalCause, string> = {
  deleting: 'being deleted',
  'autoscaler-removal': 'tainted for removal by the cluster autoscaler',
  'karpenter-disruption': 'being disrupted by Karpenter',
  cordoned: 'cordoned',
};

/** How a stuck removal is named in a reason: `cordoned` (and silent for 1h05m). */
export function removalPhrase(cause: RemovalCause): string {
  return REMOVALS[cause];
}
