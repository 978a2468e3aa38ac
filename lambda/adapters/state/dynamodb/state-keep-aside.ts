/**
 * `loadOrReset`'s copy of a state it cannot read (dynamodb-store.ts): the head and the chunks of
 * its generation and snapshot, copied as they are to `corrupt#<time>#head` and
 * `corrupt#<time>#<chunk key>` in the same partition, expiring like every item (docs/STATE.md).
 */
import {
  emptyClusterState,
  type StateCorruptError,
  type StoredState,
} from '../../../ports/index.js';
import type { Item } from './dynamodb-items.js';
import type { HeadRead } from './head-reads.js';

/** Copies an unreadable head and its chunks aside; hands out an empty state to save over it. */
export async function keepAside(
  { table, pk, head, signal }: Pick<HeadRead, 'table' | 'pk' | 'head' | 'signal'>,
  error: StateCorruptError,
  at: { readonly now: number; readonly expiresAt: number },
): Promise<StoredState> {
  const prefix = `corrupt#${new Date(at.now).toISOString()}#`;
  const expiresAt = { N: String(at.expiresAt) };
  const generation = head.generation?.S;
  const snapshot = head.obsGeneration?.S;
  const chunks = [
    ...(generation === undefined ? [] : await table.query(pk, `chunk#${generation}#`, signal)),
    ...(snapshot === undefined ? [] : await table.query(pk, `obs#${snapshot}#`, signal)),
  ];
  const copies = [head, ...chunks].map(
    (item): Item => ({
      ...item,
      sk: { S: `${prefix}${item === head ? 'head' : String(item.sk?.S)}` },
      expiresAt,
    }),
  );
  await table.batchWrite(
    copies.map((item) => ({ PutRequest: { Item: item } })),
    signal,
  );
  // A head without a number for its version is saved over as version 0 (see `save`).
  const version = Number(head.version?.N);
  const copy = `table ${table.name}, pk ${pk}, sk ${prefix}head${chunks.length > 0 ? ` and ${chunks.length} chunk items under ${prefix}${snapshot === undefined ? 'chunk#' : ''}` : ''}`;
  return {
    version: head.version?.N === undefined || !Number.isFinite(version) ? 0 : version,
    state: emptyClusterState(),
    // The reason, without the advice to delete (the reset did what it says).
    reset: { reason: error.message.replace(/ \u2014 delete its items .*$/, ''), copy },
  };
}
