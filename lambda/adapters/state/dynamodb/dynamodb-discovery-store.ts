/**
 * The clusters discovery found, kept in the state table beside the clusters' state: one small item
 * per cluster in one partition (`pk = discovery`, `sk = cluster#<name>`), the record as JSON in
 * `record`. Read with one Query of the partition (paged past 1 MB), or one GetItem for one
 * cluster; written with BatchWriteItem,
 * only the records that changed (the grants the state store already has). A cluster no longer
 * watched (deleted, dropped) keeps its item for 30 days (the table's TTL attribute `expiresAt`),
 * so that it is announced once, not at every run.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DiscoveredRecord, DiscoveryStore } from '../../../ports/index.js';
import { type Item, stringOf } from './dynamodb-items.js';
import { StateTable } from './dynamodb-table.js';

const PARTITION = 'discovery';
const PREFIX = 'cluster#';
/** How long a cluster no longer watched is remembered (it is not announced again meanwhile). */
export const FORGET_AFTER_SECONDS = 30 * 86_400;

export interface DynamoDbDiscoveryStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Epoch ms, for the TTL of records no longer watched. */
  readonly clock: () => number;
}

export class DynamoDbDiscoveryStore implements DiscoveryStore {
  readonly #table: StateTable;
  readonly #clock: () => number;

  constructor(options: DynamoDbDiscoveryStoreOptions) {
    this.#table = new StateTable(options.client, options.tableName);
    this.#clock = options.clock;
  }

  async load(signal?: AbortSignal): Promise<readonly DiscoveredRecord[]> {
    const items = await this.#table.query(PARTITION, PREFIX, signal);
    return items.map((item) => JSON.parse(stringOf(item, 'record')) as DiscoveredRecord);
  }

  async loadOne(name: string, signal?: AbortSignal): Promise<DiscoveredRecord | undefined> {
    const item = await this.#table.item(PARTITION, `${PREFIX}${name}`, signal);
    return item === undefined
      ? undefined
      : (JSON.parse(stringOf(item, 'record')) as DiscoveredRecord);
  }

  async save(records: readonly DiscoveredRecord[], signal?: AbortSignal): Promise<void> {
    const expiresAt = String(Math.ceil(this.#clock() / 1000) + FORGET_AFTER_SECONDS);
    const items = records.map(
      (record): Item => ({
        pk: { S: PARTITION },
        sk: { S: `${PREFIX}${record.name}` },
        record: { S: JSON.stringify(record) },
        ...(record.state === 'watched' ? {} : { expiresAt: { N: expiresAt } }),
      }),
    );
    await this.#table.batchWrite(
      items.map((Item) => ({ PutRequest: { Item } })),
      signal,
    );
  }
}
