/**
 * Silences kept in the state table, beside the cluster's state: one item per silence in the
 * cluster's partition (`pk = cluster#<name>`, `sk = silence#<id>`), the silence as JSON in
 * `silence`, and the table's TTL attribute `expiresAt` set to its end plus the audit period, so
 * DynamoDB drops it a week after it ended. The check's state items (`head`, `chunk#…`) are never
 * touched: the CLI does not race the check's conditional writes.
 *
 * The check reads them with one Query of the `silence#` prefix (the function may already Query
 * the table: no new grant); the CLI adds with a conditional PutItem and ends one by GetItem and a
 * PutItem conditional on what it read. An item the check cannot honour (silence-document.ts) is
 * moved, as it is, to `corrupt#<time>#silence#<id>` by one BatchWriteItem (a put and a delete:
 * the grant the state's keep-aside already uses), expiring after the audit period.
 */
import { keptSilences, SILENCE_AUDIT_SECONDS, type Silence } from '../../../core/silences.js';
import { SilenceError, type SilenceStore, type SilencesRead } from '../../../ports/index.js';
import {
  byEnd,
  idTaken,
  listedBriefly,
  type ReadSilence,
  readSilence,
  unknownSilence,
  writable,
} from '../silence-document.js';
import { type Item, isConditionalCheckFailed, partitionKey } from './dynamodb-items.js';
import { StateTable, type TableOptions } from './dynamodb-table.js';

const PREFIX = 'silence#';

export class DynamoDbSilenceStore implements SilenceStore {
  readonly #table: StateTable;
  readonly #clock: () => number;

  constructor(options: TableOptions) {
    this.#table = new StateTable(options.client, options.tableName);
    this.#clock = options.clock ?? Date.now;
  }

  async list(cluster: string, signal?: AbortSignal): Promise<readonly Silence[]> {
    return (await this.#read(cluster, signal)).silences;
  }

  async listOrSetAside(cluster: string, signal?: AbortSignal): Promise<SilencesRead> {
    const { silences, bad, now } = await this.#read(cluster, signal);
    if (bad.length === 0) return { silences };
    const pk = partitionKey(cluster);
    const prefix = `corrupt#${new Date(now).toISOString()}#`;
    const expiresAt = { N: String(Math.ceil(now / 1000) + SILENCE_AUDIT_SECONDS) };
    await this.#table.batchWrite(
      bad.flatMap(({ item }) => [
        { PutRequest: { Item: { ...item, sk: { S: `${prefix}${item.sk?.S}` }, expiresAt } } },
        { DeleteRequest: { Key: { pk: { S: pk }, sk: { S: String(item.sk?.S) } } } },
      ]),
      signal,
    );
    return {
      silences,
      setAside: {
        reason: listedBriefly(bad.map((b) => b.problem)),
        copy: `table ${this.#table.name}, pk ${pk}, sk ${listedBriefly(
          bad.map(({ item }) => `${prefix}${item.sk?.S}`),
        )}`,
      },
    };
  }

  /** The silences it may honour, and the items it may not, on the store's clock. */
  async #read(cluster: string, signal: AbortSignal | undefined) {
    const items = await this.#table.query(partitionKey(cluster), PREFIX, signal);
    const now = this.#clock();
    const good: Silence[] = [];
    const bad: { item: Item; problem: string }[] = [];
    for (const item of items) {
      const read = silenceOf(item, now);
      if (read.silence) good.push(read.silence);
      else bad.push({ item, problem: read.problem });
    }
    // The TTL deletes within days, not at once: what it has not deleted yet is dropped here.
    return { silences: keptSilences(good, now).sort(byEnd), bad, now };
  }

  async add(cluster: string, silence: Silence, signal?: AbortSignal): Promise<void> {
    writable(silence, this.#clock());
    try {
      await this.#put(cluster, silence, undefined, signal);
    } catch (error) {
      if (isConditionalCheckFailed(error)) throw idTaken(silence.id);
      throw error;
    }
  }

  async update(
    cluster: string,
    id: string,
    change: (silence: Silence) => Silence,
    signal?: AbortSignal,
  ): Promise<Silence> {
    const item = await this.#table.item(partitionKey(cluster), `${PREFIX}${id}`, signal);
    const stored = item === undefined ? undefined : silenceOf(item, this.#clock()).silence;
    if (stored === undefined || keptSilences([stored], this.#clock()).length === 0) {
      throw unknownSilence(cluster, id);
    }
    const next = writable(change(stored), this.#clock());
    try {
      await this.#put(cluster, next, item?.silence, signal);
    } catch (error) {
      // Someone changed it between the read and the write: the caller may simply try again.
      if (isConditionalCheckFailed(error)) {
        throw new SilenceError(`silence ${id} changed while it was being changed: try again`);
      }
      throw error;
    }
    return next;
  }

  /** Puts `silence`: a new one (`read` undefined), or over the `silence` attribute read. */
  async #put(
    cluster: string,
    silence: Silence,
    read: Item[string] | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const expiresAt = Math.ceil(silence.endsAt / 1000) + SILENCE_AUDIT_SECONDS;
    await this.#table.put(
      {
        Item: {
          pk: { S: partitionKey(cluster) },
          sk: { S: `${PREFIX}${silence.id}` },
          silence: { S: JSON.stringify(silence) },
          endsAt: { N: String(silence.endsAt) },
          expiresAt: { N: String(expiresAt) },
        },
        ...(read === undefined
          ? { ConditionExpression: 'attribute_not_exists(sk)' }
          : {
              ConditionExpression: '#silence = :read',
              ExpressionAttributeNames: { '#silence': 'silence' },
              ExpressionAttributeValues: { ':read': read },
            }),
      },
      signal,
    );
  }
}

/** The silence an item holds, read at `now`, or why it holds none it may honour. */
function silenceOf(item: Item, now: number): ReadSilence {
  const where = `item ${JSON.stringify(String(item.sk?.S).slice(0, 80))}`;
  let value: unknown;
  try {
    value = JSON.parse(item.silence?.S ?? '');
  } catch {
    value = undefined;
  }
  return readSilence(value, now, where);
}
