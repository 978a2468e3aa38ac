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
 * store remembers, per cluster, the observations of the version it last loaded or saved (the
 * caller's map itself, not a copy) and what the snapshot its head names holds (fingerprints,
 * snapshot-fingerprints.ts), so a warm container reads the head alone (observation-snapshot.ts;
 * docs/STATE.md).
 *
 * Its parts: state-head.ts (the head item, its condition, what a save replaces), state-blob.ts
 * (the blob: gzip, checksum, pieces), snapshot-items.ts (the observation snapshot's items),
 * save-items.ts (what a save writes before its head), head-reads.ts (what a load reads of what a
 * head names), observation-snapshot.ts (when a snapshot is written; what is remembered per
 * cluster), state-keep-aside.ts (loadOrReset's copy).
 */

import type { WriteRequest } from '@aws-sdk/client-dynamodb';
import type { Observations } from '../../../core/model.js';
import {
  type ClusterState,
  emptyClusterState,
  StateConflictError,
  StateCorruptError,
  type StateStore,
  type StoredState,
  type StructuredLogger,
} from '../../../ports/index.js';
import {
  type Item,
  isConditionalCheckFailed,
  numberOf,
  partitionKey,
  stringOf,
} from './dynamodb-items.js';
import { type DynamoDbUsage, StateTable, type TableOptions } from './dynamodb-table.js';
import { type HeadRead, headBlob, headSnapshot } from './head-reads.js';
import { INLINE_OBSERVATIONS, KnownHeads, SNAPSHOT_MAX_AGE_MS } from './observation-snapshot.js';
import { type SaveItems, type SaveLimits, saveItems } from './save-items.js';
import { unpackState } from './state-blob.js';
import { headCondition, headItem, replacedKeys } from './state-head.js';
import { keepAside } from './state-keep-aside.js';

const DEFAULT_CHUNK_BYTES = 350_000;
const DEFAULT_TTL_SECONDS = 30 * 24 * 3600;
const MAX_CHUNK_BYTES = 380_000;
const LOAD_ATTEMPTS = 3;

export interface DynamoDbStateStoreOptions extends TableOptions {
  /** Items expire this long after their last write (default 30 days). */
  readonly ttlSeconds?: number | undefined;
  /** Largest blob piece per item, in bytes (default 350,000; tests use small ones). */
  readonly chunkBytes?: number | undefined;
  /**
   * States with more observations than this keep them in a snapshot of their own, rewritten only
   * when it matters (default INLINE_OBSERVATIONS, 32; tests use 0).
   */
  readonly inlineObservations?: number | undefined;
  /** Told about best-effort clean-ups that failed (the TTL removes those items later). */
  readonly logger?: Pick<StructuredLogger, 'warn'> | undefined;
}

export class DynamoDbStateStore implements StateStore {
  readonly #io: StateTable;
  readonly #ttlSeconds: number;
  readonly #clock: () => number;
  readonly #logger: DynamoDbStateStoreOptions['logger'];
  /** Per cluster, what this process last loaded or saved (observation-snapshot.ts). */
  readonly #known = new KnownHeads();
  readonly #limits: SaveLimits;

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
    this.#ttlSeconds = ttlSeconds;
    this.#clock = options.clock ?? Date.now;
    this.#logger = options.logger;
    const inlineObservations = options.inlineObservations ?? INLINE_OBSERVATIONS;
    if (!(inlineObservations >= 0)) throw new RangeError('inlineObservations must be 0 or more');
    this.#limits = {
      chunkBytes,
      inlineObservations,
      // Well inside the TTL, so that a snapshot still named by a head never expires.
      snapshotMaxAgeMs: Math.min(SNAPSHOT_MAX_AGE_MS, (ttlSeconds * 1000) / 4),
    };
  }

  /** Counters since the store was made; read them before and after a check for its cost. */
  usage(): Readonly<DynamoDbUsage> {
    return { ...this.#io.usage };
  }

  async load(cluster: string, signal?: AbortSignal): Promise<StoredState> {
    const pk = partitionKey(cluster);
    for (let attempt = 1; ; attempt++) {
      const head = await this.#io.item(pk, 'head', signal);
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
      const head = await this.#io.item(pk, 'head', signal);
      let stored: StoredState | 'again';
      try {
        stored = await this.#fromHead(cluster, head, attempt, signal);
      } catch (error) {
        if (!(error instanceof StateCorruptError) || head === undefined) throw error;
        this.#known.delete(cluster);
        const at = { now: this.#clock(), expiresAt: this.#nowSeconds() + this.#ttlSeconds };
        return keepAside({ table: this.#io, pk, head, signal }, error, at);
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
    const version = numberOf(head, 'version');
    // Expired but not yet removed by DynamoDB (TTL deletion lags): the cluster was not checked
    // for ttlSeconds, so its state is stale; keep counting versions from where it was.
    if (numberOf(head, 'expiresAt') <= this.#nowSeconds()) {
      return { version, state: emptyClusterState() };
    }
    const read: HeadRead = {
      table: this.#io,
      pk: partitionKey(cluster),
      head,
      lastAttempt: attempt >= LOAD_ATTEMPTS,
      corrupt: (reason) => this.#corrupt(cluster, reason),
      signal,
    };
    const stored = await headBlob(read);
    if (stored === 'again') return 'again';
    const { blob, generation } = stored;
    const rest = await unpackState(
      blob,
      { bytes: numberOf(head, 'bytes'), sha256: stringOf(head, 'sha256'), what: 'blob' },
      read.corrupt,
    );
    // This process saved or loaded this very version: its observations (or a later look's that
    // saved nothing: keepUnsaved), exact, without a read.
    const same = known?.version === version && known.generation === generation;
    if (head.obsGeneration === undefined) {
      const observations = same ? known.observations : rest.observations;
      this.#known.remember(cluster, { version, generation, observations, exact: true });
      return { version, state: { ...rest, observations } };
    }
    if (same && known.snapshot?.generation === stringOf(head, 'obsGeneration')) {
      this.#known.remember(cluster, known);
      return { version, state: { ...rest, observations: known.observations } };
    }
    const snapshotRead = await headSnapshot(read);
    if (snapshotRead === 'again') return 'again';
    const { snapshot, observations } = snapshotRead;
    this.#known.remember(cluster, {
      version,
      generation,
      observations,
      // An older snapshot (written by an earlier version) is not what the last check saw.
      exact: snapshot.version === version,
      snapshot,
    });
    return { version, state: { ...rest, observations } };
  }

  /**
   * A look that saved nothing leaves what it saw over `version`: the next load of that version
   * hands it out (StateStore.keepUnsaved). Remembered as the observations of the previous check,
   * which they are: a save after it writes the snapshot as it would after that look's save.
   */
  keepUnsaved(cluster: string, version: number, observations: Observations): void {
    const known = this.#known.get(cluster);
    if (known === undefined || known.version !== version) return;
    // Kept as handed in (the look is over: nothing changes them), not copied.
    this.#known.remember(cluster, { ...known, observations });
  }

  /**
   * Writes the items of a new generation (and snapshot, when one is due), then commits them with
   * the head, conditionally on `expectedVersion`; then deletes what the new head replaced.
   */
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
    const save = { pk, expectedVersion, version, now, expiresAt };
    const next = await saveItems(state, this.#known.get(cluster), save, this.#limits);
    const { generation, snapshot } = next;
    if (next.items.length > 0) {
      await this.#io.batchWrite(
        next.items.map((item) => ({ PutRequest: { Item: item } })),
        signal,
      );
    }
    const head = headItem(save, next);
    // Remembered as saved: the map itself, which the caller no longer changes (StateStore).
    const saved = { version, generation, observations: state.observations, exact: true, snapshot };
    let previous: Item | undefined;
    try {
      const output = await this.#io.put(
        { Item: head, ...headCondition(expectedVersion), ReturnValues: 'ALL_OLD' },
        signal,
      );
      previous = output.Attributes;
    } catch (error) {
      // Whatever happened, what this process knew of the stored head may be out of date.
      this.#known.delete(cluster);
      await this.#ownHeadOrThrow(cluster, error, next, expectedVersion);
      this.#known.remember(cluster, saved);
      return version;
    }
    this.#known.remember(cluster, saved);
    if (previous !== undefined) {
      await this.#deleteBestEffort(pk, replacedKeys(previous, generation, snapshot), 'replaced');
    }
    return version;
  }

  /**
   * After a head write that failed: returns when the stored head is this save's all the same;
   * otherwise throws — StateConflictError when another run saved first (this save's items deleted).
   */
  async #ownHeadOrThrow(
    cluster: string,
    error: unknown,
    next: SaveItems,
    expectedVersion: number,
  ): Promise<void> {
    if (!isConditionalCheckFailed(error)) {
      // The head may have been written all the same (e.g. a timeout after DynamoDB applied
      // it): keep the chunks, the TTL removes them if they are garbage.
      throw error;
    }
    // The SDK retries a request whose answer was lost; if the first attempt had been applied,
    // the retry fails the condition although the head is ours. Look before deleting.
    // (The previous generation's chunks are then left to the TTL: that answer is lost.)
    const pk = partitionKey(cluster);
    let current: Item | undefined;
    try {
      current = await this.#io.item(pk, 'head', undefined);
    } catch {
      throw new StateConflictError(cluster, expectedVersion); // keep the chunks: cannot tell
    }
    if (current?.generation?.S === next.generation) return;
    const written = next.items.map((item) => stringOf(item, 'sk'));
    await this.#deleteBestEffort(pk, written, 'lost a race');
    throw new StateConflictError(cluster, expectedVersion);
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
        table: this.#io.name,
        pk,
        chunks: sortKeys.length,
        first: sortKeys[0],
        why,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  #corrupt(cluster: string, reason: string): StateCorruptError {
    return new StateCorruptError(
      `state of cluster ${cluster} in table ${this.#io.name} is unreadable: ${reason} — delete its items (pk ${partitionKey(cluster)}) to start afresh`,
    );
  }

  #nowSeconds(): number {
    return Math.floor(this.#clock() / 1000);
  }
}
