/**
 * State kept in DynamoDB, for the Lambda. Layout and costs: docs/STATE.md.
 *
 * One partition per cluster (`pk = cluster#<name>`):
 * - the head item (`sk = head`): version (the lock), generation id, chunk count, byte count and
 *   SHA-256 of the state blob, and — when the blob fits in one item — the blob itself (`state`);
 * - chunk items (`sk = chunk#<generation>#<00000>`), when it does not: the blob cut into pieces of
 *   at most `chunkBytes` (default 350,000 bytes, safely under the 400 KB item limit).
 * The blob is the gzip-compressed state document (observations, alerts, outbox): alerts and outbox
 * grow with the number of alerting nodes too (a storm across 100,000 nodes), so they are not kept
 * in the head.
 *
 * Saving writes the chunks of a new generation first, then the head with a condition on the
 * expected version; the head write is the commit. The loser of a race gets StateConflictError
 * and its chunks are deleted; the winner deletes the previous generation's chunks. Every item
 * carries the TTL attribute `expiresAt`, so leftovers and clusters no longer checked disappear.
 * A state that cannot be read is copied aside by `loadOrReset` (docs/STATE.md).
 */

import { createHash, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { type DynamoDBClient, PutItemCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import {
  type ClusterState,
  emptyClusterState,
  StateConflictError,
  StateCorruptError,
  type StateStore,
  type StoredState,
} from '../ports.js';
import {
  binaryOf,
  chunkKey,
  type Item,
  isConditionalCheckFailed,
  itemBytes,
  numberOf,
  partitionKey,
  split,
  stringOf,
} from './dynamodb-items.js';
import { type DynamoDbUsage, StateTable } from './dynamodb-table.js';
import { parseClusterState, serializeClusterState } from './state-document.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** The table the stack creates: on-demand, these keys, TTL on `expiresAt`. */
export const STATE_TABLE_KEYS = Object.freeze({
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'expiresAt',
} as const);

/** DynamoDB's item size limit (400 KB, names and values together). */
export const MAX_ITEM_BYTES = 400 * 1024;
const DEFAULT_CHUNK_BYTES = 350_000;
const DEFAULT_TTL_SECONDS = 30 * 24 * 3600;
const MAX_CHUNK_BYTES = 380_000;
const LOAD_ATTEMPTS = 3;

export interface DynamoDbStateStoreOptions {
  /** Built by the composition root (region, credentials, endpoint); never by the store. */
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Items expire this long after their last write (default 30 days). */
  readonly ttlSeconds?: number | undefined;
  /** Largest blob piece per item, in bytes (default 350,000; tests use small ones). */
  readonly chunkBytes?: number | undefined;
  /** Epoch ms, for `expiresAt` (default Date.now). */
  readonly clock?: (() => number) | undefined;
  /** Told about best-effort clean-ups that failed (the TTL removes those items later). */
  readonly logger?:
    | { warn(message: string, fields: Readonly<Record<string, unknown>>): void }
    | undefined;
}

export type { DynamoDbUsage } from './dynamodb-table.js';

export class DynamoDbStateStore implements StateStore {
  readonly #io: StateTable;
  readonly #table: string;
  readonly #ttlSeconds: number;
  readonly #chunkBytes: number;
  readonly #clock: () => number;
  readonly #logger: DynamoDbStateStoreOptions['logger'];

  constructor(options: DynamoDbStateStoreOptions) {
    const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    const ttlSeconds = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
    if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1 || chunkBytes > MAX_CHUNK_BYTES) {
      throw new RangeError(`chunkBytes must be an integer from 1 to ${MAX_CHUNK_BYTES}`);
    }
    if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1) {
      throw new RangeError('ttlSeconds must be a positive integer');
    }
    if (options.tableName === '') throw new RangeError('tableName is required');
    this.#io = new StateTable(options.client, options.tableName);
    this.#table = options.tableName;
    this.#ttlSeconds = ttlSeconds;
    this.#chunkBytes = chunkBytes;
    this.#clock = options.clock ?? Date.now;
    this.#logger = options.logger;
  }

  /** Counters since the store was made; read them before and after a check for its cost. */
  usage(): Readonly<DynamoDbUsage> {
    return { ...this.#io.usage };
  }

  async load(cluster: string, signal?: AbortSignal): Promise<StoredState> {
    const pk = partitionKey(cluster);
    for (let attempt = 1; ; attempt++) {
      const head = await this.#io.head(pk, signal);
      const stored = await this.#fromHead(cluster, head, attempt, signal);
      if (stored !== 'again') return stored;
    }
  }

  /**
   * `load`, except that a state it cannot read is kept aside and replaced by an empty one: the
   * head and the chunks of its generation are copied, as they are, to `corrupt#<time>#head` and
   * `corrupt#<time>#<chunk key>` in the same partition (expiring after `ttlSeconds` like every
   * item), and the empty state comes with the stored version, so that the check's conditional save
   * moves it on (and an overlapping run that reset too loses that race). Nothing is deleted here:
   * the next save overwrites the head and deletes the old generation's chunks as usual.
   */
  async loadOrReset(cluster: string, signal?: AbortSignal): Promise<StoredState> {
    const pk = partitionKey(cluster);
    for (let attempt = 1; ; attempt++) {
      const head = await this.#io.head(pk, signal);
      let stored: StoredState | 'again';
      try {
        stored = await this.#fromHead(cluster, head, attempt, signal);
      } catch (error) {
        if (!(error instanceof StateCorruptError) || head === undefined) throw error;
        return this.#keepAside(cluster, head, error, signal);
      }
      if (stored !== 'again') return stored;
    }
  }

  /** The state a head names; 'again' when its chunks went missing (a save committed meanwhile). */
  async #fromHead(
    cluster: string,
    head: Item | undefined,
    attempt: number,
    signal: AbortSignal | undefined,
  ): Promise<StoredState | 'again'> {
    if (head === undefined) return { version: 0, state: emptyClusterState() };
    const pk = partitionKey(cluster);
    const version = numberOf(head, 'version');
    // Expired but not yet removed by DynamoDB (TTL deletion lags): the cluster was not checked
    // for ttlSeconds, so its state is stale; keep counting versions from where it was.
    if (numberOf(head, STATE_TABLE_KEYS.ttlAttribute) <= this.#nowSeconds()) {
      return { version, state: emptyClusterState() };
    }
    const chunks = numberOf(head, 'chunks');
    const generation = stringOf(head, 'generation');
    let blob: Buffer;
    if (chunks === 0) {
      blob = Buffer.from(binaryOf(head, 'state'));
    } else {
      const pieces = await this.#queryChunks(pk, generation, signal);
      if (pieces.length !== chunks) {
        // A save that committed after our head read deletes this generation: read again.
        if (attempt < LOAD_ATTEMPTS) return 'again';
        throw this.#corrupt(
          cluster,
          `generation ${generation} has ${pieces.length} of its ${chunks} chunks`,
        );
      }
      blob = Buffer.concat(pieces);
    }
    return { version, state: await this.#decode(cluster, head, blob) };
  }

  /** Copies an unreadable head and its chunks aside; hands out an empty state to save over it. */
  async #keepAside(
    cluster: string,
    head: Item,
    error: StateCorruptError,
    signal: AbortSignal | undefined,
  ): Promise<StoredState> {
    const pk = partitionKey(cluster);
    const prefix = `corrupt#${new Date(this.#clock()).toISOString()}#`;
    const expiresAt = { N: String(this.#nowSeconds() + this.#ttlSeconds) };
    const generation = head.generation?.S;
    const chunks =
      generation === undefined ? [] : await this.#io.query(pk, `chunk#${generation}#`, signal);
    const copies = [head, ...chunks].map(
      (item): Item => ({
        ...item,
        sk: { S: `${prefix}${item === head ? 'head' : String(item.sk?.S)}` },
        expiresAt,
      }),
    );
    await this.#io.batchWrite(
      copies.map((item) => ({ PutRequest: { Item: item } })),
      signal,
    );
    // A head without a number for its version is saved over as version 0 (see `save`).
    const version = Number(head.version?.N);
    const copy = `table ${this.#table}, pk ${pk}, sk ${prefix}head${chunks.length > 0 ? ` and ${chunks.length} chunk items under ${prefix}chunk#` : ''}`;
    return {
      version: head.version?.N === undefined || !Number.isFinite(version) ? 0 : version,
      state: emptyClusterState(),
      reset: { reason: reasonOf(error), copy },
    };
  }

  async save(
    cluster: string,
    state: ClusterState,
    expectedVersion: number,
    signal?: AbortSignal,
  ): Promise<number> {
    signal?.throwIfAborted();
    const pk = partitionKey(cluster);
    const blob = await gzipAsync(Buffer.from(serializeClusterState(state), 'utf8'));
    const generation = randomBytes(6).toString('hex');
    const expiresAt = String(this.#nowSeconds() + this.#ttlSeconds);
    const pieces = blob.length <= this.#chunkBytes ? [] : split(blob, this.#chunkBytes);
    const chunkItems = pieces.map(
      (piece, index): Item => ({
        pk: { S: pk },
        sk: { S: chunkKey(generation, index) },
        data: { B: piece },
        expiresAt: { N: expiresAt },
      }),
    );
    if (chunkItems.length > 0) {
      await this.#io.batchWrite(
        chunkItems.map((item) => ({ PutRequest: { Item: item } })),
        signal,
      );
    }
    const version = expectedVersion + 1;
    const head: Item = {
      pk: { S: pk },
      sk: { S: 'head' },
      version: { N: String(version) },
      generation: { S: generation },
      chunks: { N: String(pieces.length) },
      bytes: { N: String(blob.length) },
      sha256: { S: createHash('sha256').update(blob).digest('hex') },
      updatedAt: { N: String(this.#clock()) },
      expiresAt: { N: expiresAt },
      ...(pieces.length === 0 ? { state: { B: blob } } : {}),
    };
    let previous: Item | undefined;
    try {
      const output = await this.#io.client.send(
        new PutItemCommand({
          TableName: this.#table,
          Item: head,
          // Version 0: nothing stored, or a head without a number for its version (kept aside by
          // loadOrReset); either way the first save to land wins.
          ConditionExpression:
            expectedVersion === 0
              ? 'attribute_not_exists(pk) OR NOT attribute_type(version, :number)'
              : 'version = :expected',
          ExpressionAttributeValues:
            expectedVersion === 0
              ? { ':number': { S: 'N' } }
              : { ':expected': { N: String(expectedVersion) } },
          ReturnValues: 'ALL_OLD',
          ReturnConsumedCapacity: 'TOTAL',
        }),
        { abortSignal: signal },
      );
      this.#io.count(output.ConsumedCapacity, 'write');
      this.#io.usage.bytesWritten += itemBytes(head);
      this.#io.usage.itemsWritten += 1;
      previous = output.Attributes;
    } catch (error) {
      this.#io.count(undefined, 'write');
      if (!isConditionalCheckFailed(error)) {
        // The head may have been written all the same (e.g. a timeout after DynamoDB applied
        // it): keep the chunks, the TTL removes them if they are garbage.
        throw error;
      }
      // The SDK retries a request whose answer was lost; if the first attempt had been applied,
      // the retry fails the condition although the head is ours. Look before deleting.
      // (The previous generation's chunks are then left to the TTL: that answer is lost.)
      let current: Item | undefined;
      try {
        current = await this.#io.head(pk, undefined);
      } catch {
        throw new StateConflictError(cluster, expectedVersion); // keep the chunks: cannot tell
      }
      if (current?.generation?.S === generation) return version;
      await this.#deleteBestEffort(pk, generation, chunkItems.length, 'lost a race');
      throw new StateConflictError(cluster, expectedVersion);
    }
    if (previous !== undefined) {
      const oldChunks = Number(previous.chunks?.N ?? 0);
      const oldGeneration = previous.generation?.S;
      if (oldGeneration !== undefined && oldChunks > 0 && oldGeneration !== generation) {
        await this.#deleteBestEffort(pk, oldGeneration, oldChunks, 'replaced');
      }
    }
    return version;
  }

  /** The chunks of one generation, in order; a gap ends them (the caller reports it as missing). */
  async #queryChunks(
    pk: string,
    generation: string,
    signal: AbortSignal | undefined,
  ): Promise<Buffer[]> {
    const prefix = `chunk#${generation}#`;
    let next = 0;
    const items = await this.#io.query(
      pk,
      prefix,
      signal,
      (item) => Number(stringOf(item, 'sk').slice(prefix.length)) === next++,
    );
    return items.map((item) => Buffer.from(binaryOf(item, 'data')));
  }

  async #decode(cluster: string, head: Item, blob: Buffer): Promise<ClusterState> {
    const sha256 = createHash('sha256').update(blob).digest('hex');
    if (blob.length !== numberOf(head, 'bytes') || sha256 !== stringOf(head, 'sha256')) {
      throw this.#corrupt(cluster, 'the stored blob does not match its checksum');
    }
    try {
      return parseClusterState((await gunzipAsync(blob)).toString('utf8'));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw this.#corrupt(cluster, reason);
    }
  }

  async #deleteBestEffort(
    pk: string,
    generation: string,
    chunks: number,
    why: string,
  ): Promise<void> {
    if (chunks === 0) return;
    const requests = Array.from(
      { length: chunks },
      (_, index): WriteRequest => ({
        DeleteRequest: { Key: { pk: { S: pk }, sk: { S: chunkKey(generation, index) } } },
      }),
    );
    try {
      await this.#io.batchWrite(requests, undefined);
    } catch (error) {
      this.#logger?.warn('could not delete state chunks; their TTL will', {
        table: this.#table,
        pk,
        generation,
        chunks,
        why,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  #corrupt(cluster: string, reason: string): StateCorruptError {
    return new StateCorruptError(
      `state of cluster ${cluster} in table ${this.#table} is unreadable: ${reason} — delete its items (pk ${partitionKey(cluster)}) to start afresh`,
    );
  }

  #nowSeconds(): number {
    return Math.floor(this.#clock() / 1000);
  }
}

/** A StateCorruptError's reason, without the advice to delete (the reset did what it says). */
function reasonOf(error: StateCorruptError): string {
  return error.message.replace(/ — delete its items .*$/, '');
}
