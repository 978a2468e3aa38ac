/**
 * What a head of the DynamoDB state store names, read back for a load (dynamodb-store.ts): the
 * state blob (in the head itself, or in the chunks of its generation) and the observation snapshot
 * (its chunks verified). Either is 'again' when chunks went missing: a save that committed after
 * the head was read deletes them, and the load reads the head again — but on its last attempt,
 * chunks missing make the state unreadable.
 */

import type { Observations } from '../../../core/model.js';
import { binaryOf, type Item, numberOf, stringOf } from './dynamodb-items.js';
import type { StateTable } from './dynamodb-table.js';
import type { ObservationSnapshot } from './observation-snapshot.js';
import { SnapshotFingerprints } from './snapshot-fingerprints.js';
import { readPieces, unpackState } from './state-blob.js';

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

/** The state blob a head names, and the generation it belongs to. */
export async function headBlob(
  read: HeadRead,
): Promise<{ blob: Buffer; generation: string } | 'again'> {
  const chunks = numberOf(read.head, 'chunks');
  const generation = stringOf(read.head, 'generation');
  if (chunks === 0) return { blob: Buffer.from(binaryOf(read.head, 'state')), generation };
  const blob = await joined(
    read,
    `chunk#${generation}#`,
    chunks,
    (found) => `generation ${generation} has ${found} of its ${chunks} chunks`,
  );
  return blob === 'again' ? blob : { blob, generation };
}

/**
 * The snapshot a head names and its observations, read (its pieces verified; an error from
 * `corrupt` when they do not match).
 */
export async function headSnapshot(
  read: HeadRead,
): Promise<{ snapshot: ObservationSnapshot; observations: Observations } | 'again'> {
  const { head, corrupt } = read;
  const generation = stringOf(head, 'obsGeneration');
  const ref = {
    generation,
    chunks: numberOf(head, 'obsChunks'),
    bytes: numberOf(head, 'obsBytes'),
    sha256: stringOf(head, 'obsSha256'),
    version: numberOf(head, 'obsVersion'),
    savedAt: numberOf(head, 'obsSavedAt'),
  };
  const blob = await joined(
    read,
    `obs#${generation}#`,
    ref.chunks,
    () => `observation snapshot ${generation} has lost chunks`,
  );
  if (blob === 'again') return blob;
  const { observations } = await unpackState(
    blob,
    { bytes: ref.bytes, sha256: ref.sha256, what: 'observation snapshot' },
    corrupt,
  );
  // Fingerprints only of a snapshot its head's own save wrote: an older one is never compared (a
  // save over it writes a new one: snapshotNeeded), and most loads that read one are cold starts
  // over an older snapshot (~50-100 ms per 100,000 leases saved).
  const exact = ref.version === numberOf(head, 'version');
  const holds = exact ? SnapshotFingerprints.of(observations) : undefined;
  return { snapshot: { ...ref, holds }, observations };
}

/** The `count` pieces under `prefix`, joined; 'again' (or, on the last attempt, corrupt) when some are missing. */
async function joined(
  { table, pk, lastAttempt, corrupt, signal }: HeadRead,
  prefix: string,
  count: number,
  missing: (found: number) => string,
): Promise<Buffer | 'again'> {
  const pieces = await readPieces(table, pk, prefix, signal);
  if (pieces.length === count) return Buffer.concat(pieces);
  // A save that committed after our head read deletes this generation: read again.
  if (!lastAttempt) return 'again';
  throw corrupt(missing(pieces.length));
}
