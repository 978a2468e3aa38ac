/**
 * What a head of the DynamoDB state store names, read back for a load (dynamodb-store.ts): the
 * state blob (in the head itself, or in the chunks of its generation) and the observation snapshot
 * (its chunks verified). Either is 'again' when chunks went missing: a save that committed after
 * the head was read deletes them, and the load reads the head again — but on its last attempt,
 * chunks missing make the state unreadable.
 */

import type { Observations } from '../../../core/model.js';
import { binaryOf, numberOf, stringOf } from './dynamodb-items.js';
import type { ObservationSnapshot } from './observation-snapshot.js';
import { type HeadRead, readSnapshot } from './snapshot-items.js';
import { readPieces } from './state-blob.js';

/** The state blob a head names, and the generation it belongs to. */
export async function headBlob({
  table,
  pk,
  head,
  lastAttempt,
  corrupt,
  signal,
}: HeadRead): Promise<{ blob: Buffer; generation: string } | 'again'> {
  const chunks = numberOf(head, 'chunks');
  const generation = stringOf(head, 'generation');
  if (chunks === 0) return { blob: Buffer.from(binaryOf(head, 'state')), generation };
  const pieces = await readPieces(table, pk, `chunk#${generation}#`, signal);
  if (pieces.length !== chunks) {
    // A save that committed after our head read deletes this generation: read again.
    if (!lastAttempt) return 'again';
    throw corrupt(`generation ${generation} has ${pieces.length} of its ${chunks} chunks`);
  }
  return { blob: Buffer.concat(pieces), generation };
}

/** The observation snapshot a head names, and its observations, read. */
export async function headSnapshot(
  read: HeadRead,
): Promise<{ snapshot: ObservationSnapshot; observations: Observations } | 'again'> {
  const got = await readSnapshot(read);
  if (got !== 'again' || !read.lastAttempt) return got;
  throw read.corrupt(
    `observation snapshot ${stringOf(read.head, 'obsGeneration')} has lost chunks`,
  );
}
