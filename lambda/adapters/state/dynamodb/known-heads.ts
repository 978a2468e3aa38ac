/**
 * What the DynamoDB state store remembers per cluster of the head it last loaded or saved (and
 * its observations, so that a warm container reads the head alone: observation-snapshot.ts),
 * bounded: past MAX_REMEMBERED_OBSERVATIONS, other clusters are forgotten first.
 */
import type { Known } from './observation-snapshot.js';

/** Observations remembered across clusters, at most: a few hundred MB. */
const MAX_REMEMBERED_OBSERVATIONS = 400_000;

export class KnownHeads {
  readonly #known = new Map<string, Known>();

  get(cluster: string): Known | undefined {
    return this.#known.get(cluster);
  }

  forget(cluster: string): void {
    this.#known.delete(cluster);
  }

  /** Remembers a cluster's head, forgetting other clusters' first when too much is remembered. */
  remember(cluster: string, known: Known): void {
    this.#known.delete(cluster);
    this.#known.set(cluster, known);
    let total = 0;
    for (const entry of this.#known.values()) total += remembered(entry);
    for (const [name, entry] of this.#known) {
      if (total <= MAX_REMEMBERED_OBSERVATIONS || name === cluster) break;
      this.#known.delete(name);
      total -= remembered(entry);
    }
  }
}

/** A snapshot's fingerprint (8 bytes) counts as a tenth of an observation (~170 bytes). */
function remembered(known: Known): number {
  return known.observations.size + Math.ceil((known.snapshot?.holds?.size ?? 0) / 10);
}
