/**
 * The three silence stores behave alike (add, list by end, expire, unknown and taken ids, the
 * audit period), run against the same cases: memory, the silences file, and DynamoDB through the
 * real client against dynalite (where the TTL attribute and the state items' independence are
 * checked too) and against moto_server, which validates requests as DynamoDB does.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDbSilenceStore } from '../lambda/adapters/state/dynamodb/dynamodb-silence-store.js';
import { DynamoDbStateStore } from '../lambda/adapters/state/dynamodb/dynamodb-store.js';
import { FileSilenceStore } from '../lambda/adapters/state/file/file-silence-store.js';
import { endedAt } from '../lambda/adapters/state/silence-document.js';
import { SILENCE_AUDIT_SECONDS, type Silence } from '../lambda/core/silences.js';
import { emptyClusterState, SilenceError, type SilenceStore } from '../lambda/ports/index.js';
import {
  type LocalDynamoDb,
  MOTO_INSTALLED,
  MOTO_SKIP,
  startLocalDynamoDb,
} from '../testkit/dynalite.js';

const T = Date.UTC(2026, 10, 30, 12, 0);
const HOUR = 3600_000;

function silence(id: string, endsAt: number): Silence {
  return {
    id,
    target: { nodes: ['ip-10-0-1-13.eu-west-1.compute.internal'] },
    comment: 'kernel upgrade',
    author: 'ops@laptop',
    createdAt: T,
    endsAt,
  };
}

let local: LocalDynamoDb;
let moto: LocalDynamoDb | undefined;
let dir: string;
let tables = 0;
describe('silence stores', () => {
  before(async () => {
    local = await startLocalDynamoDb('dynalite');
    if (MOTO_INSTALLED) moto = await startLocalDynamoDb('moto');
    dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-silence-stores-'));
  });
  after(async () => {
    await local.stop();
    await moto?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const dynamoDbStore = async (db: LocalDynamoDb, clock: () => number) => {
    const tableName = `silences-${++tables}`;
    await db.createStateTable(tableName);
    return new DynamoDbSilenceStore({ client: db.client, tableName, clock });
  };

  const kinds: [string, (clock: () => number) => Promise<SilenceStore>][] = [
    ['file', async (clock) => new FileSilenceStore(join(dir, `state-${++tables}.json`), clock)],
    ['dynamodb (dynalite)', (clock) => dynamoDbStore(local, clock)],
    ['dynamodb (moto)', (clock) => dynamoDbStore(moto as LocalDynamoDb, clock)],
  ];

  for (const [kind, make] of kinds) {
    const skip = kind === 'dynamodb (moto)' ? MOTO_SKIP : false;
    describe(`${kind} silence store`, { skip }, () => {
      it('adds, lists by end, expires; refuses a taken id, an unknown id, an ended silence', async () => {
        let now = T;
        const store = await make(() => now);
        await store.add('prod', silence('s-bbbbbb', T + 2 * HOUR));
        await store.add('prod', silence('s-aaaaaa', T + HOUR));
        await store.add('staging', silence('s-cccccc', T + HOUR));
        assert.deepEqual(
          (await store.list('prod')).map((s) => s.id),
          ['s-aaaaaa', 's-bbbbbb'],
        );
        await assert.rejects(
          store.add('prod', silence('s-aaaaaa', T + HOUR)),
          (e: Error) => e instanceof SilenceError && /silence id s-aaaaaa is taken/.test(e.message),
        );
        const ended = await store.update('prod', 's-bbbbbb', endedAt(T + 60_000, 'oncall@host'));
        assert.equal(ended.endsAt, T + 60_000);
        assert.equal(ended.expiredBy, 'oncall@host');
        assert.deepEqual(
          (await store.list('prod')).map((s) => [s.id, s.endsAt]),
          [
            ['s-bbbbbb', T + 60_000],
            ['s-aaaaaa', T + HOUR],
          ],
        );
        await assert.rejects(
          store.update('prod', 's-bbbbbb', endedAt(T + 120_000, 'x')),
          /silence s-bbbbbb has already ended/,
        );
        await assert.rejects(
          store.update('prod', 's-dddddd', endedAt(T, 'x')),
          /no silence s-dddddd for cluster prod/,
        );
        // The audit period: kept for 7 days after its end, then gone.
        now = T + 60_000 + SILENCE_AUDIT_SECONDS * 1000;
        assert.deepEqual(
          (await store.list('prod')).map((s) => s.id),
          ['s-aaaaaa'],
        );
        assert.deepEqual(
          (await store.list('staging')).map((s) => s.id),
          ['s-cccccc'],
          'other clusters are apart',
        );
      });

      it('refuses to write a silence it would not honour, with one line, and keeps nothing of it', async () => {
        const store = await make(() => T);
        const cases: [Silence, RegExp][] = [
          [silence('s-a00001', 9e15), /silence s-a00001 ends .*past .* a month/],
          [silence('s-a00002', T + 40 * 24 * HOUR), /silence s-a00002 ends .* a month/],
          [{ ...silence('s-a00003', T + HOUR), createdAt: T + 24 * HOUR }, /created .*clock/],
          [{ ...silence('s-a00004', T + HOUR), comment: 'x\u200by' }, /printable text/],
          [{ ...silence('s-a00005', T + HOUR), author: 'a'.repeat(300) }, /author/],
        ];
        for (const [bad, pattern] of cases) {
          await assert.rejects(
            store.add('prod', bad),
            (e: Error) =>
              e instanceof SilenceError && pattern.test(e.message) && !e.message.includes('\n'),
            bad.id,
          );
        }
        assert.deepEqual(await store.list('prod'), []);
      });
    });
  }

  describe('dynamodb silence items', () => {
    it('carry the TTL of their end plus the audit period, and leave the state items alone', async () => {
      const tableName = 'silences-ttl';
      await local.createStateTable(tableName);
      const state = new DynamoDbStateStore({ client: local.client, tableName, clock: () => T });
      const version = await state.save('prod', emptyClusterState(), 0);
      const store = new DynamoDbSilenceStore({ client: local.client, tableName, clock: () => T });
      await store.add('prod', silence('s-eeeeee', T + HOUR));
      const { Item } = await local.client.send(
        new GetItemCommand({
          TableName: tableName,
          Key: { pk: { S: 'cluster#prod' }, sk: { S: 'silence#s-eeeeee' } },
        }),
      );
      assert.equal(Item?.expiresAt?.N, String((T + HOUR) / 1000 + SILENCE_AUDIT_SECONDS));
      assert.equal((await state.load('prod')).version, version, 'the state is where it was');
      assert.equal(await state.save('prod', emptyClusterState(), version), version + 1);
    });
  });
});
