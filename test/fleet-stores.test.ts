/**
 * The fleet's two stores in the state table, the check ledger and the discovery store (its
 * conditional claim included), through
 * the real client against dynalite and against moto_server, which validates requests as DynamoDB
 * does (an empty string as a key value, a `begins_with` operand included, is refused there and
 * not by dynalite: the ledger's read once failed every dispatcher run on DynamoDB for it).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDbCheckLedger } from '../lambda/adapters/state/dynamodb/dynamodb-check-ledger.js';
import { DynamoDbDiscoveryStore } from '../lambda/adapters/state/dynamodb/dynamodb-discovery-store.js';
import type { DiscoveredRecord } from '../lambda/ports/index.js';
import { type LocalDynamoDb, MOTO_SKIP, startLocalDynamoDb } from '../testkit/dynalite.js';

const T = Date.UTC(2026, 11, 7, 12, 0);

function record(name: string, state: DiscoveredRecord['state']): DiscoveredRecord {
  return {
    name,
    state,
    settings: { name } as DiscoveredRecord['settings'],
    tagProblems: [],
    announcedTags: [],
  };
}

for (const kind of ['dynalite', 'moto'] as const) {
  describe(`the fleet's stores on ${kind}`, { skip: kind === 'moto' ? MOTO_SKIP : false }, () => {
    let db: LocalDynamoDb;
    let tables = 0;
    const table = async () => {
      const name = `fleet-${++tables}`;
      await db.createStateTable(name);
      return name;
    };
    before(async () => {
      db = await startLocalDynamoDb(kind);
    });
    after(() => db.stop());

    it('the check ledger: read empty, begin, checked, announce, read back', async () => {
      const ledger = new DynamoDbCheckLedger(db.client, await table());
      assert.deepEqual(await ledger.read(), { clusters: new Map(), announced: [] });

      // 30 clusters: more than one BatchWriteItem of 25.
      const names = Array.from({ length: 30 }, (_, i) => `cluster-${String(i).padStart(2, '0')}`);
      await ledger.begin(names, T);
      await ledger.checked('cluster-07', T + 60_000);
      await ledger.announce(['cluster-03', 'cluster-11'], T + 120_000);
      const view = await ledger.read();

      assert.equal(view.clusters.size, 30);
      assert.deepEqual(view.clusters.get('cluster-00'), { checkedAt: null, since: T });
      assert.deepEqual(view.clusters.get('cluster-07'), {
        checkedAt: T + 60_000,
        since: T + 60_000,
      });
      assert.deepEqual(view.announced, ['cluster-03', 'cluster-11']);
      await ledger.announce([], T + 180_000);
      assert.deepEqual((await ledger.read()).announced, []);
    });

    it('the discovery store: save, load all, load one', async () => {
      const store = new DynamoDbDiscoveryStore({
        client: db.client,
        tableName: await table(),
        clock: () => T,
      });
      assert.deepEqual(await store.load(), []);
      assert.equal(await store.loadOne('prod-eu'), undefined);

      const records = [record('prod-eu', 'watched'), record('gone-one', 'gone')];
      await store.save(records);

      const loaded = [...(await store.load())].sort((a, b) => a.name.localeCompare(b.name));
      assert.deepEqual(loaded, [records[1], records[0]]);
      assert.deepEqual(await store.loadOne('prod-eu'), records[0]);
    });

    it('the discovery store: a claim is won once, over the record as loaded or over none', async () => {
      const tableName = await table();
      const store = new DynamoDbDiscoveryStore({ client: db.client, tableName, clock: () => T });
      const watched = record('prod-eu', 'watched');
      const gone = { ...watched, state: 'gone' as const, announcing: T + 60_000 };

      assert.equal(await store.claim(watched, undefined), true, 'over none');
      assert.equal(await store.claim(watched, undefined), false, 'over none, once');
      const loaded = await store.loadOne('prod-eu');
      assert.equal(await store.claim(gone, loaded), true, 'over the record as loaded');
      assert.equal(await store.claim(gone, loaded), false, 'another run wrote in between');
      assert.deepEqual(await store.loadOne('prod-eu'), gone);
    });
  });
}
