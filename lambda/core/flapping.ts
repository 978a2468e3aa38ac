/**
 * Flapping: a node whose incident keeps opening and resolving gets one FLAPPING notice instead of
 * a FIRING or RESOLVED per transition, until it has been stable for a while. Its policy, and the
 * window its record keeps; the transitions are counted in the node's step (node-step.ts). Pure.
 */
import type { FlapRecord } from './alert-state.js';

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
