/**
 * The fleet's check ledger (the `CheckLedger` port) in the state table: one small item per
 * dispatched cluster in one partition, `fleet#checks` / `checked#<cluster>` (`checkedAt` or
 * `since`, epoch ms), and `fleet#checks` / `overdue` (the clusters the last NOTICE named). The
 * dispatcher reads the whole partition with one paged Query (~60 bytes a cluster: 1,000 clusters
 * are ~15 read units); each dispatched check writes its own item with one PutItem (1 write unit).
 * Items expire (the table's TTL, `expiresAt`) 30 days after their last write, so a cluster no
 * longer watched leaves nothing behind. The function's state-table actions suffice (GetItem,
 * Query, PutItem, BatchWriteItem: infra/state-table.ts).
 */
import type { DynamoDBClient, WriteRequest } from '@aws-sdk/client-dynamodb';
import type { CheckLedger, LedgerEntry, LedgerView } from '../../../ports/index.js';
import type { Item } from './dynamodb-items.js';
import { StateTable } from './dynamodb-table.js';

const PARTITION = 'fleet#checks';
const CHECKED = 'checked#';
const ANNOUNCED = 'overdue';
/** An item lives this long after its last write (seconds). */
const KEEP_SECONDS = 30 * 86_400;

export class DynamoDbCheckLedger implements CheckLedger {
  readonly #table: StateTable;

  constructor(client: DynamoDBClient, tableName: string) {
    this.#table = new StateTable(client, tableName);
  }

  async checked(cluster: string, at: number, signal?: AbortSignal): Promise<void> {
    await this.#table.put({ Item: entryItem(cluster, 'checkedAt', at) }, signal);
  }

  async read(signal?: AbortSignal): Promise<LedgerView> {
    const items = await this.#table.query(PARTITION, '', signal);
    const clusters = new Map<string, LedgerEntry>();
    let announced: string[] = [];
    for (const item of items) {
      const sk = item.sk?.S ?? '';
      if (sk === ANNOUNCED) announced = (item.clusters?.L ?? []).flatMap((v) => v.S ?? []);
      if (!sk.startsWith(CHECKED)) continue;
      const checkedAt = numberOf(item.checkedAt);
      const since = numberOf(item.since) ?? checkedAt;
      if (since !== null) clusters.set(sk.slice(CHECKED.length), { checkedAt, since });
    }
    return { clusters, announced };
  }

  async begin(clusters: readonly string[], at: number, signal?: AbortSignal): Promise<void> {
    const requests: WriteRequest[] = clusters.map((cluster) => ({
      PutRequest: { Item: entryItem(cluster, 'since', at) },
    }));
    await this.#table.batchWrite(requests, signal);
  }

  async announce(overdue: readonly string[], at: number, signal?: AbortSignal): Promise<void> {
    const item = {
      pk: { S: PARTITION },
      sk: { S: ANNOUNCED },
      clusters: { L: overdue.map((name) => ({ S: name })) },
      at: { N: String(at) },
      expiresAt: expiresAt(at),
    };
    await this.#table.put({ Item: item }, signal);
  }
}

function entryItem(cluster: string, field: 'checkedAt' | 'since', at: number): Item {
  return {
    pk: { S: PARTITION },
    sk: { S: `${CHECKED}${cluster}` },
    [field]: { N: String(at) },
    expiresAt: expiresAt(at),
  };
}

function expiresAt(at: number) {
  return { N: String(Math.ceil(at / 1000) + KEEP_SECONDS) };
}

function numberOf(value: Item[string] | undefined): number | null {
  const n = Number(value?.N);
  return value?.N === undefined || !Number.isFinite(n) ? null : n;
}
