/**
 * Flapping: a node whose incident keeps opening and resolving gets one FLAPPING notice instead of
 * a FIRING or RESOLVED per transition, until it has been stable for a while. Pure.
 *
 * - A transition is an incident opening or resolving. They are counted inside a sliding window
 *   (`now - t <= windowSeconds`, inclusive); the transition that brings the count to
 *   `transitions` (default 3: open, resolve, open) puts the node in FLAPPING.
 * - While flapping, transitions are not counted, only the time of the latest one is kept: the node
 *   is released once `now - lastTransitionAt >= stableSeconds`.
 * - `transitions <= 0` turns flap detection off (no records are kept).
 */
import type { Flapping, FlapRecord, NodeSnapshot } from './alert-state.js';
import type { Resolution } from './notification.js';

export interface FlapPolicy {
  /** Open/resolve transitions within the window that make a node flap. Default 3; 0 = off. */
  readonly transitions: number;
  /** The window, in seconds. Default 15 min. */
  readonly windowSeconds: number;
  /** A flapping node is released after this long without a transition, in seconds. Default 15 min. */
  readonly stableSeconds: number;
}

export const DEFAULT_FLAP_POLICY: FlapPolicy = Object.freeze({
  transitions: 3,
  windowSeconds: 15 * 60,
  stableSeconds: 15 * 60,
});

export function flapDetectionOn(policy: FlapPolicy): boolean {
  return policy.transitions > 0;
}

/**
 * Drops transitions that left the window. Returns the same record when nothing changed, and
 * undefined when nothing is left to remember.
 */
export function pruneFlapRecord(
  record: FlapRecord,
  policy: FlapPolicy,
  now: number,
): FlapRecord | undefined {
  const windowMs = policy.windowSeconds * 1000;
  const kept = record.transitions.filter((t) => now - t <= windowMs);
  if (kept.length === 0 && record.flapping === undefined) return undefined;
  if (kept.length === record.transitions.length) return record;
  return record.flapping === undefined
    ? { transitions: kept }
    : { transitions: kept, flapping: record.flapping };
}

export type TransitionOutcome =
  /** Counted; the node is not flapping (yet). */
  | { readonly outcome: 'counted'; readonly record: FlapRecord }
  /** This transition made the node flap: send the FLAPPING notice instead of FIRING/RESOLVED. */
  | { readonly outcome: 'started'; readonly record: FlapRecord }
  /** The node was already flapping: say nothing. */
  | { readonly outcome: 'held'; readonly record: FlapRecord };

/** Records one open/resolve transition of a node (its record already pruned, or undefined). */
export function recordTransition(
  record: FlapRecord | undefined,
  node: NodeSnapshot,
  resolution: Resolution | undefined,
  policy: FlapPolicy,
  now: number,
): TransitionOutcome {
  if (record?.flapping !== undefined) {
    const key = record.flapping.key;
    const flapping: Flapping = withResolution(
      { since: record.flapping.since, lastTransitionAt: now, node, ...(key ? { key } : {}) },
      resolution ?? record.flapping.resolution,
    );
    return { outcome: 'held', record: { transitions: record.transitions, flapping } };
  }
  const transitions = [...(record?.transitions ?? []), now];
  if (transitions.length < policy.transitions) {
    return { outcome: 'counted', record: { transitions } };
  }
  const flapping = withResolution({ since: now, lastTransitionAt: now, node }, resolution);
  return { outcome: 'started', record: { transitions, flapping } };
}

/** True when a flapping node has been stable long enough to be released. */
export function stableAgain(flapping: Flapping, policy: FlapPolicy, now: number): boolean {
  return now - flapping.lastTransitionAt >= policy.stableSeconds * 1000;
}

function withResolution(flapping: Flapping, resolution: Resolution | undefined): Flapping {
  return resolution === undefined ? flapping : { ...flapping, resolution };
}
