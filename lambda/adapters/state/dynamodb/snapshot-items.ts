/**
 * The items of an observation snapshot (observation-snapshot.ts says when one is written): the
 * observations alone as a state blob, in items `obs#<generation>#<00000>`, named by the head's
 * `obs*` attributes (docs/STATE.md).
 */
import { randomBytes } from 'node:crypto';
import type { Observations } from '../../../core/model.js';
import { emptyClusterState } from '../../../ports/index.js';
import { type Item, numberOf, snapshotKey, split, stringOf } from './dynamodb-items.js';
import type { StateTable } from './dynamodb-table.js';
import type { ObservationSnapshot } from './observation-snapshot.js';
import { SnapshotFingerprints } from './snapshot-fingerprints.js';
import { packState, pieceItems, readPieces, sha256Of, unpackState } from './state-blob.js';

/** One head being read back. */
export interface HeadRead {
  readonly table: StateTable;
  readonly pk: string;
  readonly head: Item;
  /** The load's last attempt: chunks missing are no longer taken for a save committed meanwhile. */
  readonly lastAttempt: boolean;
  /** The error that says the state is unreadable, and why. */
  readonly corrupt: (reason: string) => Error;
  readonly signal: AbortSignal | undefined;
}

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
  const items = pieceItems(pk, pieces, (index) => snapshotKey(generation, index), expiresAt);
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

/**
 * The snapshot a head names and its observations, read (its pieces verified; an error from
 * `corrupt` when they do not match); 'again' when pieces are gone (a save committed meanwhile).
 */
export async function readSnapshot({
  table,
  pk,
  head,
  corrupt,
  signal,
}: HeadRead): Promise<{ snapshot: ObservationSnapshot; observations: Observations } | 'again'> {
  const generation = stringOf(head, 'obsGeneration');
  const ref = {
    generation,
    chunks: numberOf(head, 'obsChunks'),
    bytes: numberOf(head, 'obsBytes'),
    sha256: stringOf(head, 'obsSha256'),
    version: numberOf(head, 'obsVersion'),
    savedAt: numberOf(head, 'obsSavedAt'),
  };
  const pieces = await readPieces(table, pk, `obs#${generation}#`, signal);
  if (pieces.length !== ref.chunks) return 'again';
  const state = await unpackState(
    Buffer.concat(pieces),
    { bytes: ref.bytes, sha256: ref.sha256, what: 'observation snapshot' },
    corrupt,
  );
  const { observations } = state;
  // Fingerprints only of a snapshot its head's own save wrote: an older one is never compared (a
  // save over it writes a new one: snapshotNeeded), and most loads that read one are cold starts
  // over an older snapshot (~50-100 ms per 100,000 leases saved).
  const exact = ref.version === numberOf(head, 'version');
  const holds = exact ? SnapshotFingerprints.of(observations) : undefined;
  return { snapshot: { ...ref, holds }, observations };
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
