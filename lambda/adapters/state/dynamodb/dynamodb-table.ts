/**
 * The state table's I/O for DynamoDbStateStore: the head read, paged Queries of a partition's
 * items by sort-key prefix, PutItem, and BatchWriteItem with retries of what DynamoDB left unprocessed —
 * each counted in one DynamoDbUsage (requests, capacity units, items and bytes written).
 */

import { setTimeout as sleep } from 'node:timers/promises';
import {
  BatchWriteItemCommand,
  type ConsumedCapacity,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  type PutItemCommandInput,
  type PutItemCommandOutput,
  QueryCommand,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { type Item, itemBytes, sortKeyOf } from './dynamodb-items.js';

const BATCH_WRITE_LIMIT = 25;
const BATCH_ATTEMPTS = 8;

/** A store of the state table: its client and name, and its clock. */
export interface TableOptions {
  /** Built by the composition root (region, credentials, endpoint); never by the store. */
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Epoch ms (default Date.now): what TTLs, and what has ended, are judged by. */
  readonly clock?: (() => number) | undefined;
}

export class StateTable {
  /** What the store has asked of DynamoDB so far (as DynamoDB reported it; for metrics, benchmarks). */
  readonly usage = {
    requests: 0,
    readCapacityUnits: 0,
    writeCapacityUnits: 0,
    /** Sum of the sizes of items put (DynamoDB's item size rules), bytes. */
    bytesWritten: 0,
    itemsWritten: 0,
    itemsDeleted: 0,
  };

  constructor(
    readonly client: DynamoDBClient,
    readonly name: string,
  ) {}

  /** One item (strongly consistent), or undefined. */
  async item(pk: string, sk: string, signal: AbortSignal | undefined): Promise<Item | undefined> {
    const output = await this.client.send(
      new GetItemCommand({
        TableName: this.name,
        Key: { pk: { S: pk }, sk: { S: sk } },
        ConsistentRead: true,
        ReturnConsumedCapacity: 'TOTAL',
      }),
      { abortSignal: signal },
    );
    this.#count(output.ConsumedCapacity, 'read');
    return output.Item;
  }

  /**
   * The partition's items whose sort key starts with `prefix` (every item when it is empty), in
   * sort-key order, as stored (Query pages through DynamoDB's 1 MB pages; strongly consistent).
   * `keep` may stop early by returning false. DynamoDB refuses an empty string as a key attribute
   * value, a `begins_with` operand included ("The AttributeValue for a key attribute cannot
   * contain an empty string value"): the whole partition is asked by its partition key alone.
   */
  async query(
    pk: string,
    prefix: string,
    signal: AbortSignal | undefined,
    keep: (item: Item) => boolean = () => true,
  ): Promise<Item[]> {
    const items: Item[] = [];
    let startKey: Item | undefined;
    do {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.name,
          KeyConditionExpression:
            prefix === '' ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': { S: pk },
            ...(prefix === '' ? {} : { ':prefix': { S: prefix } }),
          },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
          ReturnConsumedCapacity: 'TOTAL',
        }),
        { abortSignal: signal },
      );
      this.#count(output.ConsumedCapacity, 'read');
      for (const item of output.Items ?? []) {
        if (!keep(item)) return items;
        items.push(item);
      }
      startKey = output.LastEvaluatedKey;
    } while (startKey !== undefined);
    return items;
  }

  /** One PutItem of `input` (counted, a failed one too): what DynamoDB answered. */
  async put(
    input: Omit<PutItemCommandInput, 'TableName'> & { Item: Item },
    signal: AbortSignal | undefined,
  ): Promise<PutItemCommandOutput> {
    let output: PutItemCommandOutput | undefined;
    try {
      output = await this.client.send(
        new PutItemCommand({ ...input, TableName: this.name, ReturnConsumedCapacity: 'TOTAL' }),
        { abortSignal: signal },
      );
    } finally {
      this.#count(output?.ConsumedCapacity, 'write');
    }
    this.usage.bytesWritten += itemBytes(input.Item);
    this.usage.itemsWritten += 1;
    return output;
  }

  /** BatchWriteItem in groups of 25, retrying unprocessed items with back-off. */
  async batchWrite(requests: WriteRequest[], signal: AbortSignal | undefined): Promise<void> {
    for (let start = 0; start < requests.length; start += BATCH_WRITE_LIMIT) {
      let pending = requests.slice(start, start + BATCH_WRITE_LIMIT);
      for (let attempt = 1; pending.length > 0; attempt++) {
        if (attempt > BATCH_ATTEMPTS) {
          throw new Error(
            `DynamoDB left ${pending.length} writes to ${this.name} unprocessed after ${BATCH_ATTEMPTS} attempts`,
          );
        }
        if (attempt > 1) await sleep(Math.min(2000, 50 * 2 ** attempt), undefined, { signal });
        const output = await this.client.send(
          new BatchWriteItemCommand({
            RequestItems: { [this.name]: pending },
            ReturnConsumedCapacity: 'TOTAL',
          }),
          { abortSignal: signal },
        );
        this.#count(output.ConsumedCapacity, 'write');
        const unprocessed = output.UnprocessedItems?.[this.name] ?? [];
        const left = new Set(unprocessed.map(sortKeyOf));
        for (const request of pending.filter((r) => !left.has(sortKeyOf(r)))) {
          if (request.PutRequest?.Item !== undefined) {
            this.usage.itemsWritten += 1;
            this.usage.bytesWritten += itemBytes(request.PutRequest.Item);
          } else {
            this.usage.itemsDeleted += 1;
          }
        }
        pending = unprocessed;
      }
    }
  }

  /** Counts one request and the capacity DynamoDB says it consumed. */
  #count(
    capacity: ConsumedCapacity | readonly ConsumedCapacity[] | undefined,
    kind: 'read' | 'write',
  ): void {
    this.usage.requests += 1;
    const units = [capacity ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
    if (kind === 'read') this.usage.readCapacityUnits += units;
    else this.usage.writeCapacityUnits += units;
  }
}

export type DynamoDbUsage = StateTable['usage'];
