/**
 * A storm forming: one outage, one page. Kubelets that die together renew at different points of
 * their renew interval, so their leases cross the grace period over ~10 s, and each would page on
 * its own (FIRING, FIRING, then STORM) before the storm is confirmed. Alertmanager waits
 * `group_wait` for a new group's alerts to gather; here only where a group is forming. Pure.
 *
 * - A silent node that would open its incident now (a FIRING) is held while its zone, node group
 *   or the cluster holds enough suspects (leases silent past one renew interval, not confirmed
 *   yet: their `suspectSince`) that, confirmed, they would make a STORM with its silent nodes
 *   (storms.ts's thresholds). A single death, or deaths too few to storm, are never held.
 * - Held until the last suspect is confirmed (the storm starts: one STORM names them all) or for
 *   GROUP_WAIT_MS from the first node held (`AlertState.gathering`), whichever comes first; a
 *   group that stops forming (a suspect renewed) releases its nodes at once. Released nodes
 *   FIRING as usual; a STORM that follows names them without paging them again (node-step.ts).
 * - The check that starts holding asks for a look at the end of the wait (`wakeAt`: the
 *   AlertOutcome's `wake`).
 */
import type { Evaluation, NodeVerdict } from './model.js';
import { DEFAULT_LEASE_DURATION_SECONDS } from './policy.js';
import { renewIntervalMs } from './renewal-clock.js';
import { detectStorm, inStorm, type StormPolicy } from './storms.js';
import { verdictsOf } from './verdict-list.js';

/** The longest a forming storm holds a FIRING: one renew interval of the default lease (10.4 s). */
export const GROUP_WAIT_MS = renewIntervalMs(DEFAULT_LEASE_DURATION_SECONDS);

/** The FIRINGs a forming storm holds at one check. */
export interface Gathering {
  /** Since when FIRINGs have been held (the next `AlertState.gathering`); none: none held. */
  readonly since?: number | undefined;
  readonly holds: (node: NodeVerdict) => boolean;
  /** A look is wanted then, when holding starts at this check. */
  readonly wakeAt?: number | undefined;
}

const NONE: Gathering = { holds: () => false };

/**
 * Which of `opening` (silent nodes that would open their incident now, outside a storm) a forming
 * storm holds at this check, held since `since` (none: nothing was held).
 */
export function gather(
  evaluation: Evaluation,
  opening: readonly NodeVerdict[],
  since: number | undefined,
  { policy, now }: { readonly policy: StormPolicy; readonly now: number },
): Gathering {
  const start = since ?? now;
  if (opening.length === 0 || now - start >= GROUP_WAIT_MS) return NONE;
  const forming = formingStorm(evaluation, policy);
  if (forming === null || !opening.some((node) => inStorm(forming, node))) return NONE;
  return {
    since: start,
    holds: (node) => inStorm(forming, node),
    ...(since === undefined ? { wakeAt: start + GROUP_WAIT_MS } : {}),
  };
}

/** The storm the silent nodes and the suspects would make together, if they would. */
function formingStorm(evaluation: Evaluation, policy: StormPolicy) {
  // Marked leases beyond the expired ones (a death alone): without, no pass over the verdicts.
  let marked = 0;
  for (const o of evaluation.observations.values()) if (o.suspectSince !== undefined) marked++;
  if (marked <= evaluation.summary.expired) return null;
  const zones = new Map<string, number>();
  const groups = new Map<string, number>();
  const count = (counts: Map<string, number>, key: string) =>
    counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const node of verdictsOf(evaluation)) {
    if (node.verdict !== 'healthy' && node.verdict !== 'suspect') continue;
    if (evaluation.observations.get(node.name)?.suspectSince === undefined) continue;
    count(zones, node.zone ?? '');
    if (node.nodeGroup !== undefined) count(groups, node.nodeGroup);
  }
  if (zones.size === 0) return null;
  return detectStorm(
    evaluation.zones.map((z) => ({ ...z, silent: z.silent + (zones.get(z.zone) ?? 0) })),
    policy,
    evaluation.nodeGroups.map((g) => ({ ...g, silent: g.silent + (groups.get(g.nodeGroup) ?? 0) })),
  );
}
