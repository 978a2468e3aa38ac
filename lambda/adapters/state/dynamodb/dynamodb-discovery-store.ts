/**
 * The clusters discovery found, kept in the state table beside the clusters' state: one small item
 * per cluster in one partition (`pk = discovery`, `sk = cluster#<name>`), the record as JSON in
 * `record`. Read with one Query of the partition (paged past 1 MB), or one GetItem for one
 * cluster; written with BatchWriteItem,
 * only the records that changed (the grants the state store already has), or, to claim a
 * deletion's announcement, with one PutItem on the condition that the item is still as loaded
 * (`record = :over`, or `attribute_not_exists(sk)`). A cluster no longer
 * watched (deleted, dropped) keeps its item for 30 days (the table's TTL attribute `expiresAt`),
 * so that it is announced once, not at every run.
 */
import type { DiscoveredRecord, DiscoveryStore } from '../../../ports/index.js';
import { type Item, isConditionalCheckFailed, stringOf } from './dynamodb-items.js';
import { StateTable, type TableOptions } from './dynamodb-table.js';

const PARTITION = 'discovery';
const PREFIX = 'cluster#';
/** How long a cluster no longer watched is remembered (it is not announced again meanwhile). */
export const FORGET_AFTER_SECONDS = 30 * 86_400;

export class DynamoDbDiscoveryStore implements DiscoveryStore {
  readonly #table: StateTable;
  readonly #clock: () => number;

  constructor(options: TableOptions & { readonly clock: () => number }) {
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
    await this.#table.batchWrite(
      records.map((record) => ({ PutRequest: { Item: this.#item(record) } })),
      signal,
    );
  }

  async claim(
    record: DiscoveredRecord,
    over: DiscoveredRecord | undefined,
    signal?: AbortSignal,
  ): Promise<boolean> {
    try {
      await this.#table.put(
        {
          Item: this.#item(record),
          // A loaded record gives back the very text stored (JSON.parse keeps the keys' order).
          ...(over === undefined
            ? { ConditionExpression: 'attribute_not_exists(sk)' }
            : {
                ConditionExpression: '#record = :over',
                ExpressionAttributeNames: { '#record': 'record' },
                ExpressionAttributeValues: { ':over': { S: JSON.stringify(over) } },
              }),
        },
        signal,
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  #item(record: DiscoveredRecord): Item {
    const expiresAt = String(Math.ceil(this.#clock() / 1000) + FORGET_AFTER_SECONDS);
    return {
      pk: { S: PARTITION },
      sk: { S: `${PREFIX}${record.name}` },
      record: { S: JSON.stringify(record) },
      ...(record.state === 'watched' ? {} : { expiresAt: { N: expiresAt } }),
    };
  }
}
