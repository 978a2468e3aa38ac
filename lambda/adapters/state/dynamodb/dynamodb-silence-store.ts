/**
 * Silences kept in the state table, beside the cluster's state: one item per silence in the
 * cluster's partition (`pk = cluster#<name>`, `sk = silence#<id>`), the silence as JSON in
 * `silence`, and the table's TTL attribute `expiresAt` set to its end plus the audit period, so
 * DynamoDB drops it a week after it ended. The check's state items (`head`, `chunk#…`) are never
 * touched: the CLI does not race the check's conditional writes.
 *
 * The check reads them with one Query of the `silence#` prefix (the function may already Query
 * the table: no new grant); the CLI adds with a conditional PutItem and ends one by GetItem and a
 * PutItem conditional on what it read.
 */
import { type DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  endSilence,
  keptSilences,
  SILENCE_AUDIT_SECONDS,
  type Silence,
} from '../../../core/silences.js';
import { SilenceError, type SilenceStore } from '../../../ports/index.js';
import {
  alreadyEnded,
  byEnd,
  fromSilenceDocument,
  idTaken,
  toSilenceDocument,
  unknownSilence,
} from '../silence-document.js';
import { type Item, isConditionalCheckFailed, partitionKey } from './dynamodb-items.js';
import { StateTable } from './dynamodb-table.js';

const PREFIX = 'silence#';

export interface DynamoDbSilenceStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Epoch ms: what "ended more than the audit period ago" is judged by (default Date.now). */
  readonly clock?: (() => number) | undefined;
}

export class DynamoDbSilenceStore implements SilenceStore {
  readonly #table: StateTable;
  readonly #clock: () => number;

  constructor(private readonly options: DynamoDbSilenceStoreOptions) {
    this.#table = new StateTable(options.client, options.tableName);
    this.#clock = options.clock ?? Date.now;
  }

  async list(cluster: string, signal?: AbortSignal): Promise<readonly Silence[]> {
    const items = await this.#table.query(partitionKey(cluster), PREFIX, signal);
    const silences = items.map(silenceOf).filter((s): s is Silence => s !== undefined);
    // The TTL deletes within days, not at once: what it has not deleted yet is dropped here.
    return keptSilences(silences, this.#clock()).sort(byEnd);
  }

  async add(cluster: string, silence: Silence, signal?: AbortSignal): Promise<void> {
    try {
      await this.#put(cluster, silence, 'attribute_not_exists(sk)', undefined, signal);
    } catch (error) {
      if (isConditionalCheckFailed(error)) throw idTaken(silence.id);
      throw error;
    }
  }

  async expire(
    cluster: string,
    id: string,
    at: number,
    by: string,
    signal?: AbortSignal,
  ): Promise<Silence> {
    const output = await this.options.client.send(
      new GetItemCommand({
        TableName: this.options.tableName,
        Key: { pk: { S: partitionKey(cluster) }, sk: { S: `${PREFIX}${id}` } },
        ConsistentRead: true,
      }),
      { abortSignal: signal },
    );
    const stored = output.Item === undefined ? undefined : silenceOf(output.Item);
    if (stored === undefined || keptSilences([stored], this.#clock()).length === 0) {
      throw unknownSilence(cluster, id);
    }
    const ended = endSilence(stored, at, by);
    if (ended === undefined) throw alreadyEnded(stored);
    try {
      await this.#put(cluster, ended, '#silence = :read', output.Item?.silence, signal);
    } catch (error) {
      // Someone changed it between the read and the write: the caller may simply try again.
      if (isConditionalCheckFailed(error)) {
        throw new SilenceError(`silence ${id} changed while it was being ended: try again`);
      }
      throw error;
    }
    return ended;
  }

  async #put(
    cluster: string,
    silence: Silence,
    condition: string,
    read: Item[string] | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const expiresAt = Math.ceil(silence.endsAt / 1000) + SILENCE_AUDIT_SECONDS;
    await this.options.client.send(
      new PutItemCommand({
        TableName: this.options.tableName,
        Item: {
          pk: { S: partitionKey(cluster) },
          sk: { S: `${PREFIX}${silence.id}` },
          silence: { S: JSON.stringify(toSilenceDocument(silence)) },
          endsAt: { N: String(silence.endsAt) },
          expiresAt: { N: String(expiresAt) },
        },
        ConditionExpression: condition,
        ...(read === undefined
          ? {}
          : {
              ExpressionAttributeNames: { '#silence': 'silence' },
              ExpressionAttributeValues: { ':read': read },
            }),
      }),
      { abortSignal: signal },
    );
  }
}

function silenceOf(item: Item): Silence | undefined {
  const text = item.silence?.S;
  if (text === undefined) return undefined;
  try {
    return fromSilenceDocument(JSON.parse(text));
  } catch {
    return undefined;
  }
}
