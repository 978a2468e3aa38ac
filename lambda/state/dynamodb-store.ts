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
 *
 * The observations of a state with more than INLINE_OBSERVATIONS leases are not in that blob: they
 * are a snapshot of their own (`sk = obs#<generation>#<00000>`, named by the head's `obs*`
 * attributes), rewritten only when a cold start could otherwise miss what will page (a lease that
 * stopped changing) and every SNAPSHOT_MAX_AGE_MS; every other save writes the head alone. The
 * store remembers, per cluster, the observations of the version it last loaded or saved, so a warm
 * container reads the head alone (observation-snapshot.ts; docs/STATE.md).
 */

import { createHash, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { type DynamoDBClient, PutItemCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import type { Observations } from '../core/model.js';
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
  snapshotKey,
  split,
  stringOf,
} from './dynamodb-items.js';
import { type DynamoDbUsage, StateTable } from './dynamodb-table.js';
import {
  INLINE_OBSERVATIONS,
  type Known,
  SNAPSHOT_MAX_AGE_MS,
  type Snapshot,
  snapshotNeeded,
} from './observation-snapshot.js';
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
/** Observations remembered across clusters (and both copies of one), at most: a few hundred MB. */
const MAX_REMEMBERED_OBSERVATIONS = 400_000;

export interface DynamoDbStateStoreOptions {
  /** Built by the composition root (region, credentials, endpoint); never by the store. */
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Items expire this long after their last write (default 30 days). */
  readonly ttlSeconds?: number | undefined;
  /** Largest blob piece per item, in bytes (default 350,000; tests use small ones). */
  readonly chunkBytes?: number | undefined;
  /**
   * States with more observations than this keep them in a snapshot of their own, rewritten only
   * when it matters (default INLINE_OBSERVATIONS, 32; tests use 0).
   */
  readonly inlineObservations?: number | undefined;
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
  /** Per cluster, what this process last loaded or saved (observation-snapshot.ts). */
  readonly #known = new Map<string, Known>();
  readonly #snapshotMaxAgeMs: number;
  readonly #inlineObservations: number;

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
    // Well inside the TTL, so that a snapshot still named by a head never expires.
    this.#inlineObservations = options.inlineObservations ?? INLINE_OBSERVATIONS;
    if (!(this.#inlineObservations >= 0))
      throw new RangeError('inlineObservations must be 0 or more');
    this.#snapshotMaxAgeMs = Math.min(SNAPSHOT_MAX_AGE_MS, (ttlSeconds * 1000) / 4);
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
    const known = this.#known.get(cluster);
    this.#known.delete(cluster);
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
    const rest = await this.#decode(cluster, head, blob);
    if (head.obsGeneration === undefined) {
      this.#remember(cluster, {
        version,
        generation,
        observations: new Map(rest.observations),
        handle: rest.observations,
        exact: true,
      });
      return { version, state: rest };
    }
    const snapshot = await this.#snapshotOf(cluster, head, known, signal);
    if (snapshot === 'again') {
      if (attempt < LOAD_ATTEMPTS) return 'again';
      throw this.#corrupt(
        cluster,
        `observation snapshot ${stringOf(head, 'obsGeneration')} has lost chunks`,
      );
    }
    // This process saved or loaded this very version: its observations, exact, without a read.
    const same = known?.version === version && known.generation === generation;
    const observations = same ? known.observations : snapshot.observations;
    // A copy for the caller: what is remembered stays as it was stored.
    const handle = new Map(observations);
    this.#remember(cluster, {
      version,
      generation,
      observations,
      handle,
      // An older snapshot (written by an earlier version) is not what the last check saw.
      exact: same ? known.exact : snapshot.version === version,
      snapshot,
    });
    return { version, state: { ...rest, observations: handle } };
  }

  /** The snapshot a head names: remembered, or read (its chunks verified); 'again' when gone. */
  async #snapshotOf(
    cluster: string,
    head: Item,
    known: Known | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Snapshot | 'again'> {
    const generation = stringOf(head, 'obsGeneration');
    if (known?.snapshot?.generation === generation) return known.snapshot;
    const ref = {
      generation,
      chunks: numberOf(head, 'obsChunks'),
      bytes: numberOf(head, 'obsBytes'),
      sha256: stringOf(head, 'obsSha256'),
      version: numberOf(head, 'obsVersion'),
      savedAt: numberOf(head, 'obsSavedAt'),
    };
    const prefix = `obs#${generation}#`;
    let next = 0;
    const items = await this.#io.query(
      partitionKey(cluster),
      prefix,
      signal,
      (item) => Number(stringOf(item, 'sk').slice(prefix.length)) === next++,
    );
    if (items.length !== ref.chunks) return 'again';
    const blob = Buffer.concat(items.map((item) => Buffer.from(binaryOf(item, 'data'))));
    const state = await this.#verified(
      cluster,
      blob,
      ref.bytes,
      ref.sha256,
      'observation snapshot',
    );
    return { ...ref, observations: state.observations };
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
    const snapshot = head.obsGeneration?.S;
    const chunks = [
      ...(generation === undefined ? [] : await this.#io.query(pk, `chunk#${generation}#`, signal)),
      ...(snapshot === undefined ? [] : await this.#io.query(pk, `obs#${snapshot}#`, signal)),
    ];
    this.#known.delete(cluster);
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
    const copy = `table ${this.#table}, pk ${pk}, sk ${prefix}head${chunks.length > 0 ? ` and ${chunks.length} chunk items under ${prefix}${snapshot === undefined ? 'chunk#' : ''}` : ''}`;
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
    const now = this.#clock();
    const expiresAt = String(this.#nowSeconds() + this.#ttlSeconds);
    const version = expectedVersion + 1;
    const known = this.#known.get(cluster);
    // Observations of more than a few leases go to a snapshot of their own, rewritten only when
    // it matters (observation-snapshot.ts); otherwise the head's blob is the whole state.
    const separate = state.observations.size > this.#inlineObservations;
    // Remembered as saved, whatever the caller does with its map afterwards.
    const observations = new Map(state.observations);
    let snapshot: Snapshot | undefined;
    let snapshotItems: Item[] = [];
    if (separate) {
      if (
        known?.snapshot !== undefined &&
        !snapshotNeeded(known, expectedVersion, state.observations, now, this.#snapshotMaxAgeMs)
      ) {
        snapshot = known.snapshot;
      } else {
        const written = await this.#newSnapshot(pk, observations, version, now, expiresAt);
        snapshot = written.snapshot;
        snapshotItems = written.items;
      }
    }
    const document = separate ? { ...state, observations: new Map() } : state;
    const blob = await gzipAsync(Buffer.from(serializeClusterState(document), 'utf8'));
    const generation = randomBytes(6).toString('hex');
    const pieces = blob.length <= this.#chunkBytes ? [] : split(blob, this.#chunkBytes);
    const chunkItems = pieces.map(
      (piece, index): Item => ({
        pk: { S: pk },
        sk: { S: chunkKey(generation, index) },
        data: { B: piece },
        expiresAt: { N: expiresAt },
      }),
    );
    const written = [...chunkItems, ...snapshotItems];
    if (written.length > 0) {
      await this.#io.batchWrite(
        written.map((item) => ({ PutRequest: { Item: item } })),
        signal,
      );
    }
    const head: Item = {
      pk: { S: pk },
      sk: { S: 'head' },
      version: { N: String(version) },
      generation: { S: generation },
      chunks: { N: String(pieces.length) },
      bytes: { N: String(blob.length) },
      sha256: { S: createHash('sha256').update(blob).digest('hex') },
      updatedAt: { N: String(now) },
      expiresAt: { N: expiresAt },
      ...(pieces.length === 0 ? { state: { B: blob } } : {}),
      ...(snapshot === undefined
        ? {}
        : {
            obsGeneration: { S: snapshot.generation },
            obsChunks: { N: String(snapshot.chunks) },
            obsBytes: { N: String(snapshot.bytes) },
            obsSha256: { S: snapshot.sha256 },
            obsVersion: { N: String(snapshot.version) },
            obsSavedAt: { N: String(snapshot.savedAt) },
          }),
    };
    const remember = (): void =>
      this.#remember(cluster, {
        version,
        generation,
        observations,
        handle: state.observations,
        exact: true,
        snapshot,
      });
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
      // Whatever happened, what this process knew of the stored head may be out of date.
      this.#known.delete(cluster);
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
      if (current?.generation?.S === generation) {
        remember();
        return version;
      }
      await this.#deleteBestEffort(pk, written.map(keyOf), 'lost a race');
      throw new StateConflictError(cluster, expectedVersion);
    }
    remember();
    if (previous !== undefined) {
      const stale: string[] = [];
      const oldChunks = Number(previous.chunks?.N ?? 0);
      const oldGeneration = previous.generation?.S;
      if (oldGeneration !== undefined && oldChunks > 0 && oldGeneration !== generation) {
        stale.push(...keys(oldChunks, (index) => chunkKey(oldGeneration, index)));
      }
      const oldSnapshot = previous.obsGeneration?.S;
      if (oldSnapshot !== undefined && oldSnapshot !== snapshot?.generation) {
        const count = Number(previous.obsChunks?.N ?? 0);
        stale.push(...keys(count, (index) => snapshotKey(oldSnapshot, index)));
      }
      await this.#deleteBestEffort(pk, stale, 'replaced');
    }
    return version;
  }

  /** The items of a new observation snapshot, written by the save of `version`. */
  async #newSnapshot(
    pk: string,
    observations: Observations,
    version: number,
    savedAt: number,
    expiresAt: string,
  ): Promise<{ snapshot: Snapshot; items: Item[] }> {
    const text = serializeClusterState({ ...emptyClusterState(), observations });
    const blob = await gzipAsync(Buffer.from(text, 'utf8'));
    const generation = randomBytes(6).toString('hex');
    const pieces = split(blob, this.#chunkBytes);
    const items = pieces.map(
      (piece, index): Item => ({
        pk: { S: pk },
        sk: { S: snapshotKey(generation, index) },
        data: { B: piece },
        expiresAt: { N: expiresAt },
      }),
    );
    const snapshot: Snapshot = {
      generation,
      chunks: pieces.length,
      bytes: blob.length,
      sha256: createHash('sha256').update(blob).digest('hex'),
      version,
      savedAt,
      observations,
    };
    return { snapshot, items };
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
    return this.#verified(cluster, blob, numberOf(head, 'bytes'), stringOf(head, 'sha256'), 'blob');
  }

  async #verified(
    cluster: string,
    blob: Buffer,
    bytes: number,
    expectedSha256: string,
    what: string,
  ): Promise<ClusterState> {
    const sha256 = createHash('sha256').update(blob).digest('hex');
    if (blob.length !== bytes || sha256 !== expectedSha256) {
      throw this.#corrupt(cluster, `the stored ${what} does not match its checksum`);
    }
    try {
      return parseClusterState((await gunzipAsync(blob)).toString('utf8'));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw this.#corrupt(cluster, reason);
    }
  }

  async #deleteBestEffort(pk: string, sortKeys: readonly string[], why: string): Promise<void> {
    if (sortKeys.length === 0) return;
    const requests = sortKeys.map(
      (sk): WriteRequest => ({ DeleteRequest: { Key: { pk: { S: pk }, sk: { S: sk } } } }),
    );
    try {
      await this.#io.batchWrite(requests, undefined);
    } catch (error) {
      this.#logger?.warn('could not delete state chunks; their TTL will', {
        table: this.#table,
        pk,
        chunks: sortKeys.length,
        first: sortKeys[0],
        why,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** Remembers a cluster's head, forgetting other clusters' first when too much is remembered. */
  #remember(cluster: string, known: Known): void {
    this.#known.delete(cluster);
    this.#known.set(cluster, known);
    let total = 0;
    for (const entry of this.#known.values()) total += remembered(entry);
    for (const [name, entry] of this.#known) {
      if (total <= MAX_REMEMBERED_OBSERVATIONS || name === cluster) break;
      this.#known.delete(name);
      total -= remembered(entry);
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

function remembered(known: Known): number {
  const snapshot = known.snapshot?.observations;
  return (
    known.observations.size +
    (snapshot !== undefined && snapshot !== known.observations ? snapshot.size : 0)
  );
}

function keyOf(item: Item): string {
  return stringOf(item, 'sk');
}

function keys(count: number, key: (index: number) => string): string[] {
  return Number.isSafeInteger(count) && count > 0
    ? Array.from({ length: count }, (_, i) => key(i))
    : [];
}

/** A StateCorruptError's reason, without the advice to delete (the reset did what it says). */
function reasonOf(error: StateCorruptError): string {
  return error.message.replace(/ — delete its items .*$/, '');
}
