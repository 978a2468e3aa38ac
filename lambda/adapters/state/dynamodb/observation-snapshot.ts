/**
 * When the DynamoDB state store rewrites the observations (the bulk of a state: one renewTime per
 * lease, which moves every 10 s on every healthy node) and when it may leave the last written copy
 * — the _snapshot_ — as it is. Reasoning and costs: docs/STATE.md ("Observations: written when
 * they matter").
 *
 * An older snapshot is safe to load: a lease whose stored renewTime differs from the one read now
 * counts as changed now (a page can only come later, never falsely), and a lease unchanged since
 * the snapshot keeps its true `changedAt`. What must not be missing from the snapshot is a lease
 * that stopped changing (the one that will page): so a save rewrites the snapshot whenever a lease
 * that did not change since the previous check, or that is marked a suspect or expired, is not in
 * it as it is now. A suspect found by a look whose renewTime the snapshot holds older would
 * otherwise be found again by a cold start's first look, counting from there: a renew interval late.
 */

import type { Observation, Observations } from '../../../core/model.js';
import type { SnapshotFingerprints } from './snapshot-fingerprints.js';

/** A state with this many observations or fewer is kept whole in the head item, as before. */
export const INLINE_OBSERVATIONS = 32;

/** The snapshot is rewritten at least this often (ms), so that its items never reach their TTL. */
export const SNAPSHOT_MAX_AGE_MS = 6 * 3600 * 1000;

/** An observation snapshot as a head item names it (attributes `obs*`), with what it holds. */
export interface ObservationSnapshot {
  readonly generation: string;
  readonly chunks: number;
  readonly bytes: number;
  readonly sha256: string;
  /** The state version whose save wrote it. */
  readonly version: number;
  /** Epoch ms of that save. */
  readonly savedAt: number;
  /**
   * What it holds, lease by lease, as a save compares it (not the observations themselves); absent
   * when the snapshot is older than the head that names it, which a save never compares.
   */
  readonly holds?: SnapshotFingerprints | undefined;
}

/** What the store knows of a cluster's head, from its last load or save in this process. */
export interface Known {
  readonly version: number;
  readonly generation: string;
  /**
   * The observations the load of `version` handed out, or that its save was given: the map itself,
   * shared with the caller, who no longer changes it (StateStore).
   */
  readonly observations: Observations;
  /** True when `observations` are exactly those of `version` (not an older snapshot's). */
  readonly exact: boolean;
  /** The snapshot the head of `version` names (none: the observations are in the head's blob). */
  readonly snapshot?: ObservationSnapshot | undefined;
}

/** Observations remembered across clusters, at most: a few hundred MB. */
const MAX_REMEMBERED_OBSERVATIONS = 400_000;

/**
 * What the store remembers per cluster of the head it last loaded or saved (and its observations,
 * so that a warm container reads the head alone), bounded: past MAX_REMEMBERED_OBSERVATIONS, other
 * clusters are forgotten first.
 */
export class KnownHeads extends Map<string, Known> {
  /** Remembers a cluster's head, forgetting other clusters' first when too much is remembered. */
  remember(cluster: string, known: Known): void {
    this.delete(cluster);
    this.set(cluster, known);
    let total = 0;
    for (const entry of this.values()) total += remembered(entry);
    for (const [name, entry] of this) {
      if (total <= MAX_REMEMBERED_OBSERVATIONS || name === cluster) break;
      this.delete(name);
      total -= remembered(entry);
    }
  }
}

/** A snapshot's fingerprint (8 bytes) counts as a tenth of an observation (~170 bytes). */
function remembered(known: Known): number {
  return known.observations.size + Math.ceil((known.snapshot?.holds?.size ?? 0) / 10);
}

/**
 * Whether a save of `observations` over `expectedVersion` at `now` must write a new snapshot, or
 * may name the one the stored head names.
 */
export function snapshotNeeded(
  known: Known | undefined,
  observations: Observations,
  { expectedVersion, now }: { readonly expectedVersion: number; readonly now: number },
  maxAgeMs: number,
): boolean {
  if (known === undefined || known.version !== expectedVersion) return true;
  const snapshot = known.snapshot;
  if (snapshot === undefined) return true;
  if (now - snapshot.savedAt >= maxAgeMs) return true;
  // The very observations loaded or last saved (the record after a claim, a check whose read
  // failed): nothing was observed that the snapshot could lack. (Equal observations in a new map
  // are a new check in which no lease moved: those must be in the snapshot, below.)
  if (observations === known.observations) return false;
  // A cold start's observations (an older snapshot) are not the previous check's: which leases
  // stopped since cannot be told, so this save writes them all.
  if (!known.exact) return true;
  for (const [name, observation] of observations) {
    // Unchanged since the previous check (it may be going silent), or marked silent past a renew
    // interval (a suspect, an expired silence: the look that confirms it counts from the mark): a
    // cold start must find it as it is, so the snapshot must hold it.
    const marked = observation.suspectSince !== undefined || observation.expiredSince !== undefined;
    if (!marked) {
      const previous = known.observations.get(name);
      if (previous === undefined || !sameObservation(previous, observation)) continue;
    }
    if (snapshot.holds?.holds(name, observation) !== true) return true;
  }
  return false;
}

/** Field by field (fields added to Observation later are compared too); absent = undefined. */
export function sameObservation(a: Observation, b: Observation): boolean {
  const left = a as unknown as Record<string, unknown>;
  const right = b as unknown as Record<string, unknown>;
  for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
    if (!same(left[key], right[key])) return false;
  }
  return true;
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // `estimated: false` and no `estimated` mean the same; so do other false/absent flags.
  if ((a === undefined || a === false) && (b === undefined || b === false)) return true;
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    return JSON.stringify(a) === JSON.stringify(b);
  }
  return false;
}
