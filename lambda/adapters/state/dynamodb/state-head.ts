/**
 * The head item of a cluster's state (`sk = head`, dynamodb-store.ts): version (the lock),
 * generation, chunk count, byte count and SHA-256 of the state blob (the blob itself when it fits),
 * the snapshot it names; the condition under which a save writes it; and the items a committed
 * save leaves behind.
 */
import type { PutItemCommandInput } from '@aws-sdk/client-dynamodb';
import { type Item, pieceKey } from './dynamodb-items.js';
import type { ObservationSnapshot } from './observation-snapshot.js';
import type { SaveItems } from './save-items.js';
import { type SaveOf, snapshotAttributes } from './snapshot-items.js';
import { sha256Of } from './state-blob.js';

/** The head that commits `save`: what `items` hold (the blob itself when it is in no chunk). */
export function headItem(save: SaveOf, items: SaveItems): Item {
  const { blob, chunks } = items;
  return {
    pk: { S: save.pk },
    sk: { S: 'head' },
    version: { N: String(save.version) },
    generation: { S: items.generation },
    chunks: { N: String(chunks) },
    bytes: { N: String(blob.length) },
    sha256: { S: sha256Of(blob) },
    updatedAt: { N: String(save.now) },
    expiresAt: { N: save.expiresAt },
    ...(chunks === 0 ? { state: { B: blob } } : {}),
    ...snapshotAttributes(items.snapshot),
  };
}

/**
 * The condition of the head write that commits a save over `expectedVersion`. Version 0: nothing
 * stored, or a head without a number for its version (kept aside by loadOrReset); either way the
 * first save to land wins.
 */
export function headCondition(
  expectedVersion: number,
): Pick<PutItemCommandInput, 'ConditionExpression' | 'ExpressionAttributeValues'> {
  return expectedVersion === 0
    ? {
        ConditionExpression: 'attribute_not_exists(pk) OR NOT attribute_type(version, :number)',
        ExpressionAttributeValues: { ':number': { S: 'N' } },
      }
    : {
        ConditionExpression: 'version = :expected',
        ExpressionAttributeValues: { ':expected': { N: String(expectedVersion) } },
      };
}

/**
 * The sort keys a committed save leaves to delete: the chunks of the replaced head's generation,
 * and its snapshot's unless the new head names the same one.
 */
export function replacedKeys(
  previous: Item,
  generation: string,
  snapshot: ObservationSnapshot | undefined,
): string[] {
  const stale: string[] = [];
  const oldChunks = Number(previous.chunks?.N ?? 0);
  const oldGeneration = previous.generation?.S;
  if (oldGeneration !== undefined && oldChunks > 0 && oldGeneration !== generation) {
    stale.push(...keys(oldChunks, `chunk#${oldGeneration}#`));
  }
  const oldSnapshot = previous.obsGeneration?.S;
  if (oldSnapshot !== undefined && oldSnapshot !== snapshot?.generation) {
    const count = Number(previous.obsChunks?.N ?? 0);
    stale.push(...keys(count, `obs#${oldSnapshot}#`));
  }
  return stale;
}

function keys(count: number, prefix: string): string[] {
  return Number.isSafeInteger(count) && count > 0
    ? Array.from({ length: count }, (_, i) => pieceKey(prefix, i))
    : [];
}
