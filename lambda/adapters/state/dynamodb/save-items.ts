/**
 * What one save of the DynamoDB state store (dynamodb-store.ts) writes before its head, the commit:
 * the state blob of a new generation, cut into chunk items when it does not fit in the head, and the
 * observation snapshot the head will name — the one the stored head names while it still holds
 * what matters (observation-snapshot.ts), else a new one, with its items.
 */
import { randomBytes } from 'node:crypto';
import type { ClusterState } from '../../../ports/index.js';
import { type Item, split } from './dynamodb-items.js';
import { type Known, type ObservationSnapshot, snapshotNeeded } from './observation-snapshot.js';
import { newSnapshot, type SaveOf } from './snapshot-items.js';
import { packState, pieceItems } from './state-blob.js';

/** The store's limits on what one save writes. */
export interface SaveLimits {
  /** Largest blob piece per item, in bytes. */
  readonly chunkBytes: number;
  /** States with more observations than this keep them in a snapshot of their own. */
  readonly inlineObservations: number;
  /** The snapshot is rewritten at least this often (ms). */
  readonly snapshotMaxAgeMs: number;
}

/**
 * The items a save of `state` writes before its head (`known`: what the store knew of the stored
 * head), with the new generation (its chunks are `chunk#<generation>#<00000>`), its blob (without
 * the observations, when they have a snapshot) and the snapshot the head names.
 */
export async function saveItems(
  state: ClusterState,
  known: Known | undefined,
  save: SaveOf,
  limits: SaveLimits,
) {
  // Observations of more than a few leases go to a snapshot of their own, rewritten only when
  // it matters (observation-snapshot.ts); otherwise the head's blob is the whole state.
  const separate = state.observations.size > limits.inlineObservations;
  let snapshot: ObservationSnapshot | undefined;
  let snapshotItems: Item[] = [];
  if (separate) {
    if (
      known?.snapshot !== undefined &&
      !snapshotNeeded(known, state.observations, save, limits.snapshotMaxAgeMs)
    ) {
      snapshot = known.snapshot;
    } else {
      const written = await newSnapshot(state.observations, save, limits.chunkBytes);
      snapshot = written.snapshot;
      snapshotItems = written.items;
    }
  }
  const document = separate ? { ...state, observations: new Map() } : state;
  const blob = await packState(document);
  const generation = randomBytes(6).toString('hex');
  const pieces = blob.length <= limits.chunkBytes ? [] : split(blob, limits.chunkBytes);
  const chunkItems = pieceItems(save.pk, pieces, `chunk#${generation}#`, save.expiresAt);
  return {
    generation,
    blob,
    // How many chunk items hold the blob (0: it fits in the head).
    chunks: pieces.length,
    snapshot,
    // The chunk items, then the new snapshot's: written before the head.
    items: [...chunkItems, ...snapshotItems],
  };
}

export type SaveItems = Awaited<ReturnType<typeof saveItems>>;
