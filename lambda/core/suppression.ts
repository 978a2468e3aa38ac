/**
 * Expected removals, planned exits and user exclusions: a node that goes silent for one of these
 * reasons is `suppressed`, not paged. What Kubernetes and AWS say about why a node leaves, each
 * its own cause (cited in docs/DECIDING.md): the taints the cluster autoscaler, Karpenter and
 * the non-graceful shutdown put on nodes, the kubelet's graceful shutdown, and EC2's state reason
 * of the node's instance (read as evidence before a page: evidencedExit).
 */
import {
  type Evaluation,
  isAlerting,
  type NodeInfo,
  type NodeVerdict,
  type SuppressionCause,
  type Verdict,
} from './model.js';
import type { NodeEvidence } from './notification.js';
import type { Policy } from './policy.js';
import { matchesSelector } from './selector.js';
import { mapUnhealthy } from './verdict-tally.js';

/**
 * The taints that announce a node's exit, and the cause each says.
 * Karpenter < 1.0 used `karpenter.sh/disruption`.
 */
const EXIT_TAINTS: Readonly<Record<string, SuppressionCause>> = {
  ToBeDeletedByClusterAutoscaler: 'autoscaler-removal',
  'karpenter.sh/disrupted': 'karpenter-disruption',
  'karpenter.sh/disruption': 'karpenter-disruption',
  'node.kubernetes.io/out-of-service': 'out-of-service',
};

/** What the kubelet's node shutdown manager adds to the Ready condition's message (Ready=False). */
const SHUTDOWN_MESSAGE = 'node is shutting down';

/**
 * Per cause: how a reason says it, and for an expected removal or planned exit (timed out as stuck
 * after `stuckRemovalSeconds`) how "removal seems stuck" names it.
 */
const CAUSES: Record<SuppressionCause, readonly [says: string, removal?: string]> = {
  deleting: ['node is being deleted (deletionTimestamp set)', 'being deleted'],
  'autoscaler-removal': [
    'node is being removed by the cluster autoscaler (ToBeDeletedByClusterAutoscaler taint)',
    'tainted for removal by the cluster autoscaler',
  ],
  'karpenter-disruption': [
    'node is being disrupted by Karpenter (karpenter.sh/disrupted taint)',
    'being disrupted by Karpenter',
  ],
  'graceful-shutdown': [
    `planned exit: the kubelet reported a graceful shutdown (Ready=False: ${SHUTDOWN_MESSAGE})`,
    'shut down gracefully',
  ],
  'out-of-service': [
    'planned exit: tainted node.kubernetes.io/out-of-service',
    'tainted out of service',
  ],
  'spot-interruption': [
    'planned exit: EC2 reclaimed its Spot instance (Server.SpotInstanceTermination)',
    'interrupted as a Spot instance',
  ],
  'instance-terminated': [
    'planned exit: its instance was terminated through the EC2 API, as Auto Scaling does (Client.UserInitiatedShutdown)',
    'terminated through the EC2 API',
  ],
  cordoned: ['node is cordoned (spec.unschedulable)', 'cordoned'],
  excluded: ['node is excluded by the selector'],
  silenced: ['node is silenced (lease-watchdog silence add)'],
  maintenance: ['node is in a maintenance window'],
};

/** The causes that are expected removals: timed out as stuck after `stuckRemovalSeconds`. */
export type RemovalCause = Exclude<SuppressionCause, 'excluded' | 'silenced' | 'maintenance'>;

export function isRemovalCause(cause: SuppressionCause): cause is RemovalCause {
  return CAUSES[cause][1] !== undefined;
}

/**
 * Why this node's silence is expected, or undefined when it is not. The user's exclusion first (it
 * is for good: a silent excluded node never pages), then the most specific expected removal (those
 * page once silent for too long: see node-step.ts).
 */
export function suppressionOf(node: NodeInfo, policy: Policy): SuppressionCause | undefined {
  if (policy.exclude && matchesSelector(policy.exclude, node.labels)) return 'excluded';
  if (node.deletionTimestamp) return 'deleting';
  const tainted = node.taints.find((t) => Object.hasOwn(EXIT_TAINTS, t.key));
  if (tainted) return EXIT_TAINTS[tainted.key];
  if (node.ready === 'False' && node.readyMessage?.includes(SHUTDOWN_MESSAGE)) {
    return 'graceful-shutdown';
  }
  if (node.unschedulable) return 'cordoned';
  return undefined;
}

/**
 * The planned exit the evidence read before a page says of a node, if any: its instance shutting
 * down or terminated because EC2 reclaimed its Spot capacity, or through the EC2 API (Auto
 * Scaling's scale-in, a user); else a kubelet `Shutdown` event (its node shutdown manager's) newer
 * than its last `Starting` one, for the node lifecycle controller overwrites the Ready condition
 * that said so once the kubelet is silent.
 */
export function evidencedExit(evidence: NodeEvidence): SuppressionCause | undefined {
  const { instance, events = [] } = evidence;
  if (instance?.state === 'shutting-down' || instance?.state === 'terminated') {
    const code = instance.stateReason?.split(':')[0];
    if (code === 'Server.SpotInstanceTermination') return 'spot-interruption';
    if (code === 'Client.UserInitiatedShutdown') return 'instance-terminated';
  }
  const last = events.find((e) => e.reason === 'Shutdown' || e.reason === 'Starting');
  return last?.reason === 'Shutdown' ? 'graceful-shutdown' : undefined;
}

/**
 * The evaluation with the alerting nodes of `exits` (what the evidence read before a page says:
 * evidencedExit) suppressed for that cause, as if their Node said so.
 */
export function withExits(
  evaluation: Evaluation,
  exits: ReadonlyMap<string, SuppressionCause>,
  policy: Policy,
): Evaluation {
  return mapUnhealthy(evaluation, (n) => {
    const cause = isAlerting(n.verdict) ? exits.get(n.name) : undefined;
    return cause === undefined ? n : suppressedOr(n, n, cause, policy);
  });
}

/** The verdict `verdict` saying `what`, or suppressed by `cause` (saying both) when there is one. */
export function suppressedOr(
  judged: Omit<NodeVerdict, 'verdict' | 'reason'>,
  { verdict, reason: what }: { readonly verdict: Verdict; readonly reason: string },
  cause: SuppressionCause | undefined,
  policy: Policy,
): NodeVerdict {
  if (cause === undefined) return { ...judged, verdict, reason: what };
  return {
    ...judged,
    verdict: 'suppressed',
    suppressedBy: cause,
    suppressedVerdict: verdict,
    reason: `${describe(cause, policy)}; ${what}`,
  };
}

function describe(cause: SuppressionCause, { exclude }: Policy): string {
  if (cause === 'excluded' && exclude)
    return `node is excluded by the selector "${exclude.source}"`;
  return CAUSES[cause][0];
}

/** How a stuck removal is named in a reason: `cordoned` (and silent for 1h05m). */
export function removalPhrase(cause: RemovalCause): string {
  return CAUSES[cause][1] ?? cause;
}
