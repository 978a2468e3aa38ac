/**
 * The state blob of the DynamoDB state store (dynamodb-store.ts): the state document (or an
 * observation snapshot's) gzip-compressed and checksummed, cut into items when it does not fit in
 * one, and read back only when its size and SHA-256 match what the head recorded.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGzip, gunzip } from 'node:zlib';
import type { ClusterState } from '../../../ports/index.js';
import { parseClusterState, serializeClusterStateParts } from '../state-document.js';
import { binaryOf, type Item, pieceKey, stringOf } from './dynamodb-items.js';
import type { StateTable } from './dynamodb-table.js';

const gunzipAsync = promisify(gunzip);

/** Text handed to gzip at a time, UTF-16 code units. */
const PACK_PART_CHARS = 64 * 1024;

/**
 * The gzip-compressed state document, its text gzipped part by part as it is written: at 100,000
 * leases the whole text and its UTF-8 were ~18 MB more at the peak of the save that writes the
 * observation snapshot.
 */
export async function packState(state: ClusterState): Promise<Buffer> {
  const compressed: Buffer[] = [];
  await pipeline(Readable.from(textParts(state)), createGzip(), async (gzipped) => {
    for await (const chunk of gzipped) compressed.push(chunk as Buffer);
  });
  return Buffer.concat(compressed);
}

/** The document's text in parts of at least PACK_PART_CHARS (the last one less). */
function* textParts(state: ClusterState): Generator<string> {
  let pending = '';
  for (const part of serializeClusterStateParts(state)) {
    pending += part;
    if (pending.length < PACK_PART_CHARS) continue;
    yield pending;
    pending = '';
  }
  if (pending !== '') yield pending;
}

export function sha256Of(blob: Buffer): string {
  return createHash('sha256').update(blob).digest('hex');
}

/**
 * The state a stored blob holds, once its size and checksum match the recorded ones; otherwise,
 * or when it cannot be read, throws what `corrupt` makes of the reason.
 */
export async function unpackState(
  blob: Buffer,
  recorded: { readonly bytes: number; readonly sha256: string; readonly what: string },
  corrupt: (reason: string) => Error,
): Promise<ClusterState> {
  if (blob.length !== recorded.bytes || sha256Of(blob) !== recorded.sha256) {
    throw corrupt(`the stored ${recorded.what} does not match its checksum`);
  }
  try {
    return parseClusterState((await gunzipAsync(blob)).toString('utf8'));
  } catch (error) {
    throw corrupt(error instanceof Error ? error.message : String(error));
  }
}

/** The items holding a blob's pieces in partition `pk`, under `prefix` (pieceKey). */
export function pieceItems(
  pk: string,
  pieces: readonly Buffer[],
  prefix: string,
  expiresAt: string,
): Item[] {
  return pieces.map(
    (piece, index): Item => ({
      pk: { S: pk },
      sk: { S: pieceKey(prefix, index) },
      data: { B: piece },
      expiresAt: { N: expiresAt },
    }),
  );
}

/**
 * The `data` of a partition's items under `prefix` (`<prefix><00000>`…), in order; a gap ends them
 * (the caller compares their count with the head's and reports what is missing).
 */
export async function readPieces(
  table: StateTable,
  pk: string,
  prefix: string,
  signal: AbortSignal | undefined,
): Promise<Buffer[]> {
  let next = 0;
  const items = await table.query(
    pk,
    prefix,
    signal,
    (item) => Number(stringOf(item, 'sk').slice(prefix.length)) === next++,
  );
  return items.map((item) => Buffer.from(binaryOf(item, 'data')));
}
