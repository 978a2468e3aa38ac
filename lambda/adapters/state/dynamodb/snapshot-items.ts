/**
 * The items of an observation snapshot (observation-snapshot.ts says when one is written): the
 * observations alone as a state blob, in items `obs#<generation>#<00000>`, named by the head's
 * `obs*` attributes (docs/STATE.md).
 */
import { randomBytes } from 'node:crypto';
import type { Observations } from '../../../core/model.js';
import { emptyClusterState } from '../../../ports/index.js';
import { type Item, split } from './dynamodb-items.js';
import type { ObservationSnapshot } from './observation-snapshot.js';
import { SnapshotFingerprints } from './snapshot-fingerprints.js';
import { packState, pieceItems, sha256Of } from './state-blob.js';

/** The save these items are for. */
export interface SaveOf {
  readonly pk: string;
  readonly expectedVersion: number;
  /** The version the save commits. */
  readonly version: number;
  /** Epoch ms of the save. */
  readonly now: number;
  /** The items' TTL attribute (epoch seconds). */
  readonly expiresAt: string;
}

/** The items of a new observation snapshot, written by the save of `version`. */
export async function newSnapshot(
  observations: Observations,
  { pk, version, now, expiresAt }: SaveOf,
  chunkBytes: number,
): Promise<{ snapshot: ObservationSnapshot; items: Item[] }> {
  const blob = await packState({ ...emptyClusterState(), observations });
  const generation = randomBytes(6).toString('hex');
  const pieces = split(blob, chunkBytes);
  const items = pieceItems(pk, pieces, `obs#${generation}#`, expiresAt);
  const snapshot: ObservationSnapshot = {
    generation,
    chunks: pieces.length,
    bytes: blob.length,
    sha256: sha256Of(blob),
    version,
    savedAt: now,
    holds: SnapshotFingerprints.of(observations),
  };
  return { snapshot, items };
}

/** The head's attributes that name `snapshot` (none without one). */
export function snapshotAttributes(snapshot: ObservationSnapshot | undefined): Item {
  if (snapshot === undefined) return {};
  return {
    obsGeneration: { S: snapshot.generation },
    obsChunks: { N: String(snapshot.chunks) },
    obsBytes: { N: String(snapshot.bytes) },
    obsSha256: { S: snapshot.sha256 },
    obsVersion: { N: String(snapshot.version) },
    obsSavedAt: { N: String(snapshot.savedAt) },
  };
}
