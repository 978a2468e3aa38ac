/**
 * What an observation snapshot holds, as the DynamoDB state store remembers it between checks: one
 * 52-bit fingerprint per lease (its name and its observation, as `sameObservation` compares them),
 * sorted, in one Float64Array. All a save asks of the snapshot is whether it holds a lease as it
 * is now (observation-snapshot.ts, snapshotNeeded); the observations themselves are read back
 * only by a load of a head this process did not save or load, which reads the snapshot's items.
 * At 100,000 leases that is 0.8 MB, where the observations were ~17 MB of heap (their objects,
 * renewTime strings, boxed numbers and Map), kept beside the live ones for as long as the snapshot
 * stood (docs/BENCHMARKS.md, "The whole function under 256 MB").
 *
 * Two different observations share a fingerprint with a chance of ~2^-52 per pair: a save that
 * then took the snapshot to hold a lease it does not hold leaves it unwritten, and a cold start
 * that loads the snapshot times that lease's silence from its first look, later, never sooner
 * (what an older snapshot does by design).
 */
import type { Observation, Observations } from '../../../core/model.js';

export class SnapshotFingerprints {
  readonly #sorted: Float64Array;

  private constructor(sorted: Float64Array) {
    this.#sorted = sorted;
  }

  static of(observations: Observations): SnapshotFingerprints {
    const sorted = new Float64Array(observations.size);
    let i = 0;
    for (const [name, observation] of observations) sorted[i++] = fingerprint(name, observation);
    return new SnapshotFingerprints(sorted.sort());
  }

  get size(): number {
    return this.#sorted.length;
  }

  /** Whether the snapshot holds `name` with this very observation (`sameObservation`). */
  holds(name: string, observation: Observation): boolean {
    const wanted = fingerprint(name, observation);
    const sorted = this.#sorted;
    let low = 0;
    let high = sorted.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const value = sorted[middle] as number;
      if (value === wanted) return true;
      if (value < wanted) low = middle + 1;
      else high = middle - 1;
    }
    return false;
  }
}

/**
 * A lease's name and observation as one 52-bit integer, from two independent 32-bit hashes: of the
 * name, and of each field (its key and value; absent or false fields left out, objects as JSON, as
 * `sameObservation` counts them equal) added up, so that the fields' order does not count.
 */
export function fingerprint(name: string, observation: Observation): number {
  const fields = observation as unknown as Record<string, unknown>;
  let a = 0;
  let b = 0;
  for (const key in fields) {
    const value = fields[key];
    if (value === undefined || value === false) continue;
    let keyed = KEYS.get(key);
    if (keyed === undefined) {
      keyed = [text(SEED_A, key, PRIME_A), text(SEED_B, key, PRIME_B)];
      if (KEYS.size < 64) KEYS.set(key, keyed);
    }
    let fa = keyed[0];
    let fb = keyed[1];
    switch (typeof value) {
      case 'string':
        fa = text(mix(fa, 1), value, PRIME_A);
        fb = text(mix(fb, 1), value, PRIME_B);
        break;
      case 'number':
        BITS[0] = value;
        fa = mix(mix(mix(fa, 2), WORDS[0] as number), WORDS[1] as number);
        fb = mix(mix(mix(fb, 2), WORDS[0] as number), WORDS[1] as number);
        break;
      default: {
        const json = `${typeof value}:${JSON.stringify(value)}`;
        fa = text(mix(fa, 3), json, PRIME_A);
        fb = text(mix(fb, 3), json, PRIME_B);
      }
    }
    a = (a + finish(fa)) | 0;
    b = (b + finish(fb)) | 0;
  }
  a = finish(mix(text(SEED_A, name, PRIME_A), a));
  b = finish(mix(text(SEED_B, name, PRIME_B), b));
  return (a >>> 0) * 0x100000 + (b >>> 12);
}

const SEED_A = 0x9747b28c;
const SEED_B = 0x2545f491;
const PRIME_A = 0x01000193;
const PRIME_B = 0x5bd1e995;
/** The fields' keys, hashed once (an observation has a handful). */
const KEYS = new Map<string, readonly [number, number]>();
const BITS = new Float64Array(1);
const WORDS = new Uint32Array(BITS.buffer);

/** murmur3's step for one 32-bit word. */
function mix(hash: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  const h = hash ^ k;
  return (Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64) | 0;
}

/** A string's UTF-16 code units (FNV-1a's step, with the lane's own prime), then its length. */
function text(hash: number, value: string, prime: number): number {
  let h = hash;
  for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), prime);
  return mix(h, value.length);
}

/** murmur3's finaliser. */
function finish(hash: number): number {
  let h = hash ^ (hash >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
