/**
 * One contract, three stores: the same suite runs against the memory store, the file store and
 * the DynamoDB store (the real @aws-sdk/client-dynamodb against dynalite on 127.0.0.1, and again
 * against moto_server, which validates requests as DynamoDB does), followed by what is particular
 * to the file and DynamoDB stores.
 */

import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  type AttributeValue,
  DeleteItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { itemBytes, partitionKey } from '../lambda/adapters/state/dynamodb/dynamodb-items.js';
import {
  DynamoDbStateStore,
  type DynamoDbStateStoreOptions,
} from '../lambda/adapters/state/dynamodb/dynamodb-store.js';
import { FileStateStore } from '../lambda/adapters/state/file/file-store.js';
import { MemoryStateStore } from '../lambda/adapters/state/memory/memory-store.js';
import { EMPTY_ALERT_STATE } from '../lambda/core/alert-state.js';
import type { Observation } from '../lambda/core/model.js';
import {
  type ClusterState,
  StateConflictError,
  StateCorruptError,
  type StateStore,
} from '../lambda/ports/index.js';
import {
  type LocalDynamoDb,
  localClient,
  MOTO_SKIP,
  startLocalDynamoDb,
} from '../testkit/dynalite.js';
import {
  healthyClusterState,
  healthyObservations,
  nodeNames,
  sampleAlerts,
  sampleNotification,
} from '../testkit/state-fixtures.js';

/** DynamoDB's item size limit (400 KB, names and values together). */
const MAX_ITEM_BYTES = 400 * 1024;

const T0 = Date.UTC(2026, 10, 29, 17, 52, 14);

/** Two stores over the same storage: two runs of the watchdog (e.g. a retry overlapping a slow run). */
interface Stores {
  readonly store: StateStore;
  readonly peer: StateStore;
}

function richState(at: number): ClusterState {
  const observations = new Map<string, Observation>([
    [
      'ip-10-0-1-5.eu-west-1.compute.internal',
      { renewTime: '2026-11-29T17:52:14.065888Z', changedAt: at },
    ],
    ['never-renewed', { renewTime: null, changedAt: at - 40_000, estimated: true }],
    ['garbage-time', { renewTime: 'not a time', changedAt: at - 1 }],
    ['nøde-ünïcode-#1 with spaces', { renewTime: '2026-11-29T17:52:04.000001Z', changedAt: 0 }],
  ]);
  return {
    observations,
    alerts: sampleAlerts(at, ['ip-10-0-1-5.eu-west-1.compute.internal']),
    outbox: [
      sampleNotification('prod-eu', at - 60_000, ['ip-10-0-1-5.eu-west-1.compute.internal']),
      sampleNotification('prod-eu', at, ['never-renewed', 'garbage-time']),
    ],
    lock: { owner: 'run-1', until: at + 60_000 },
  };
}

/** Like deepEqual of the entries, without a diff of 100,000 entries when they differ. */
function sameEntries(a: ReadonlyMap<string, Observation>, b: ReadonlyMap<string, Observation>) {
  return JSON.stringify([...a]) === JSON.stringify([...b]);
}

function withObservation(
  state: ClusterState,
  name: string,
  observation: Observation,
): ClusterState {
  return { ...state, observations: new Map([...state.observations, [name, observation]]) };
}

/** The contract every StateStore keeps. */
function stateStoreContract(
  name: string,
  makeStores: () => Promise<Stores>,
  options: {
    readonly largeRoundTrip: boolean;
    /**
     * The DynamoDB store: another process loads the observations of the last snapshot, which a
     * save of leases that all moved does not rewrite (docs/STATE.md); the saving process, exact.
     */
    readonly snapshots?: boolean;
  },
): void {
  describe(`StateStore contract: ${name}`, () => {
    it('loads version 0 and an empty state for a cluster never saved', async () => {
      const { store } = await makeStores();

      const loaded = await store.load('prod-eu');

      assert.equal(loaded.version, 0);
      assert.equal(loaded.state.observations.size, 0);
      assert.deepEqual(loaded.state.alerts, EMPTY_ALERT_STATE);
      assert.deepEqual(loaded.state.outbox, []);
    });

    it('round-trips observations exactly, and alerts and outbox as JSON', async () => {
      const { store, peer } = await makeStores();
      const state = richState(T0);

      const version = await store.save('prod-eu', state, 0);
      const loaded = await peer.load('prod-eu');

      assert.equal(version, 1);
      assert.equal(loaded.version, 1);
      assert.ok(loaded.state.observations instanceof Map);
      assert.deepEqual([...loaded.state.observations], [...state.observations]);
      assert.deepEqual(loaded.state.alerts, state.alerts);
      assert.deepEqual(loaded.state.outbox, state.outbox);
      assert.deepEqual(loaded.state.lock, state.lock);
    });

    it('keeps what it stored from callers that change their outbox afterwards', async () => {
      // Observations are shared, read-only both ways (StateStore): not copied, not changed.
      const { store } = await makeStores();
      const state = richState(T0);
      const outbox = [...state.outbox];
      await store.save('prod-eu', { ...state, outbox }, 0);

      outbox.pop();
      const first = await store.load('prod-eu');
      (first.state.outbox as unknown[]).length = 0;
      const second = await store.load('prod-eu');

      assert.deepEqual([...second.state.observations], [...state.observations]);
      assert.equal(second.state.outbox.length, 2);
    });

    it('increments the version on every save', async () => {
      const { store } = await makeStores();
      const versions: number[] = [];

      for (let expected = 0; expected < 4; expected++) {
        const state = withObservation(richState(T0), 'counter', {
          renewTime: null,
          changedAt: expected,
        });
        versions.push(await store.save('prod-eu', state, expected));
      }
      const loaded = await store.load('prod-eu');

      assert.deepEqual(versions, [1, 2, 3, 4]);
      assert.equal(loaded.version, 4);
      assert.deepEqual(loaded.state.observations.get('counter'), { renewTime: null, changedAt: 3 });
    });

    for (const [label, stale] of [
      ['an older version', 1],
      ['0 when a state exists', 0],
      ['a version from the future', 7],
    ] as const) {
      it(`rejects a save expecting ${label} with StateConflictError and changes nothing`, async () => {
        const { store, peer } = await makeStores();
        await store.save('prod-eu', richState(T0), 0);
        await store.save('prod-eu', richState(T0 + 10_000), 1);
        const before = await store.load('prod-eu');

        const error = await peer.save('prod-eu', healthyClusterState(3, T0 + 20_000), stale).then(
          () => undefined,
          (e: unknown) => e,
        );
        const after = await store.load('prod-eu');

        assert.ok(error instanceof StateConflictError, `expected StateConflictError, got ${error}`);
        assert.equal(error.cluster, 'prod-eu');
        assert.equal(error.expectedVersion, stale);
        assert.equal(after.version, 2);
        assert.deepEqual([...after.state.observations], [...before.state.observations]);
        assert.deepEqual(after.state.outbox, before.state.outbox);
      });
    }

    it('lets exactly one of two concurrent saves from the same version win', async () => {
      const { store, peer } = await makeStores();
      await store.save('prod-eu', richState(T0), 0);
      const mine = withObservation(richState(T0), 'who', { renewTime: 'mine', changedAt: 1 });
      const theirs = withObservation(richState(T0), 'who', { renewTime: 'theirs', changedAt: 2 });

      const results = await Promise.allSettled([
        store.save('prod-eu', mine, 1),
        peer.save('prod-eu', theirs, 1),
      ]);
      const loaded = await store.load('prod-eu');

      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      assert.equal(won.length, 1);
      assert.equal(lost.length, 1);
      assert.ok(lost[0]?.reason instanceof StateConflictError);
      assert.equal(won[0]?.value, 2);
      assert.equal(loaded.version, 2);
      const winner = results[0]?.status === 'fulfilled' ? 'mine' : 'theirs';
      assert.equal(loaded.state.observations.get('who')?.renewTime, winner);
    });

    it('keeps clusters independent', async () => {
      const { store } = await makeStores();
      const odd = 'prod/eu#1 (blue)';

      await store.save('prod-eu', richState(T0), 0);
      await store.save('prod-eu', richState(T0), 1);
      const untouched = await store.load(odd);
      await store.save(odd, healthyClusterState(2, T0), 0);
      const prod = await store.load('prod-eu');
      const other = await store.load(odd);

      assert.equal(untouched.version, 0);
      assert.equal(prod.version, 2);
      assert.equal(other.version, 1);
      assert.equal(prod.state.observations.size, 4);
      assert.equal(other.state.observations.size, 2);
      assert.deepEqual(other.state.outbox, []);
    });

    it('keeps the outbox across saves until the caller removes what was published', async () => {
      const { store, peer } = await makeStores();
      const claimed = richState(T0);
      await store.save('prod-eu', claimed, 0);

      // Another run finds the outbox, publishes the oldest, and saves the rest.
      const found = await peer.load('prod-eu');
      const published = { ...found.state, outbox: found.state.outbox.slice(1) };
      await peer.save('prod-eu', published, found.version);
      const loaded = await store.load('prod-eu');

      assert.equal(found.state.outbox.length, 2);
      assert.deepEqual(loaded.state.outbox, claimed.outbox.slice(1));
    });

    if (options.largeRoundTrip) {
      it('round-trips 100,000 observations, then a second check of them', async () => {
        const { store, peer } = await makeStores();
        const first = healthyClusterState(100_000, T0);
        const second = healthyClusterState(100_000, T0 + 10_000);

        await store.save('huge', first, 0);
        const loadedFirst = await peer.load('huge');
        await peer.save('huge', second, loadedFirst.version);
        const loadedSecond = await store.load('huge');
        const loadedByWriter = await peer.load('huge');

        assert.equal(loadedFirst.state.observations.size, 100_000);
        assert.ok(sameEntries(loadedFirst.state.observations, first.observations));
        assert.equal(loadedSecond.version, 2);
        assert.ok(
          sameEntries(
            loadedSecond.state.observations,
            options.snapshots ? first.observations : second.observations,
          ),
        );
        assert.ok(sameEntries(loadedByWriter.state.observations, second.observations));
      });
    }
  });
}

// --- memory ---------------------------------------------------------------------------------

stateStoreContract(
  'memory',
  async () => {
    const store = new MemoryStateStore();
    return { store, peer: store };
  },
  { largeRoundTrip: true },
);

// --- file -----------------------------------------------------------------------------------

const directories: string[] = [];
async function freshDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'lease-watchdog-state-'));
  directories.push(directory);
  return directory;
}
describe('state stores', () => {
  after(async () => {
    await Promise.all(directories.map((d) => rm(d, { recursive: true, force: true })));
  });

  stateStoreContract(
    'file',
    async () => {
      const path = join(await freshDirectory(), 'nested', 'state.json');
      return { store: new FileStateStore(path), peer: new FileStateStore(path) };
    },
    { largeRoundTrip: true },
  );

  describe('FileStateStore', () => {
    it('reports a corrupt file in one line that says what to do', async () => {
      const path = join(await freshDirectory(), 'state.json');
      await writeFile(path, '{"format": 1, "clusters": {');
      const store = new FileStateStore(path);

      const error = await store.load('prod-eu').then(
        () => undefined,
        (e: unknown) => e,
      );
      const saveError = await store.save('prod-eu', richState(T0), 0).then(
        () => undefined,
        (e: unknown) => e,
      );

      assert.ok(error instanceof StateCorruptError);
      assert.match(
        error.message,
        /^state file \S+state\.json is not valid JSON: .+ — delete it or point --state-file elsewhere$/,
      );
      assert.doesNotMatch(error.message, /\n/);
      assert.ok(saveError instanceof StateCorruptError, 'a save must not overwrite a corrupt file');
      assert.equal(await readFile(path, 'utf8'), '{"format": 1, "clusters": {');
    });

    it('reports valid JSON that is not a state file', async () => {
      const path = join(await freshDirectory(), 'state.json');
      await writeFile(path, '[1, 2, 3]');

      await assert.rejects(new FileStateStore(path).load('prod-eu'), {
        name: 'StateCorruptError',
        message:
          /is not a lease-watchdog state file: .* — delete it or point --state-file elsewhere$/,
      });
    });

    it('reports an unreadable state for one cluster', async () => {
      const path = join(await freshDirectory(), 'state.json');
      const content = {
        format: 1,
        clusters: { 'prod-eu': { version: 3, state: { format: 1, observations: { names: [1] } } } },
      };
      await writeFile(path, JSON.stringify(content));

      await assert.rejects(new FileStateStore(path).load('prod-eu'), {
        name: 'StateCorruptError',
        message:
          /unreadable state for cluster prod-eu: .* — delete it or point --state-file elsewhere$/,
      });
    });

    it('writes atomically and leaves no temporary files behind, also after a conflict', async () => {
      const directory = await freshDirectory();
      const path = join(directory, 'state.json');
      const store = new FileStateStore(path);

      await Promise.allSettled([
        store.save('a', richState(T0), 0),
        store.save('a', richState(T0), 0),
        store.save('b', healthyClusterState(1000, T0), 0),
      ]);
      await store.save('a', richState(T0), 1);
      await assert.rejects(store.save('a', richState(T0), 1), StateConflictError);
      const entries = await readdir(directory);
      const content = JSON.parse(await readFile(path, 'utf8')) as {
        clusters: Record<string, { version: number }>;
      };

      assert.deepEqual(entries, ['state.json']);
      assert.equal(content.clusters.a?.version, 2);
      assert.equal(content.clusters.b?.version, 1);
    });
  });

  // --- DynamoDB (the real client; dynalite, and moto, which validates as DynamoDB does) ------

  for (const kind of ['dynalite', 'moto'] as const) {
    describe(`on ${kind}`, { skip: kind === 'moto' ? MOTO_SKIP : false }, () => {
      let local: LocalDynamoDb;
      let tables = 0;
      before(async () => {
        local = await startLocalDynamoDb(kind);
      });
      after(async () => {
        await local.stop();
      });

      async function dynamoStores(
        options: Partial<DynamoDbStateStoreOptions> = {},
      ): Promise<{ store: DynamoDbStateStore; peer: DynamoDbStateStore; tableName: string }> {
        tables += 1;
        const tableName = `lease-watchdog-state-${tables}`;
        await local.createStateTable(tableName);
        const make = (): DynamoDbStateStore =>
          new DynamoDbStateStore({ client: local.client, tableName, ...options });
        return { store: make(), peer: make(), tableName };
      }

      stateStoreContract(
        'DynamoDB (small chunks, observations in snapshots)',
        () => dynamoStores({ chunkBytes: 300, inlineObservations: 0 }),
        { largeRoundTrip: false },
      );
      stateStoreContract('DynamoDB', () => dynamoStores(), {
        largeRoundTrip: true,
        snapshots: true,
      });

      type Item = Record<string, AttributeValue>;

      /** Deletes the chunk `lost`, and rewrites `victim` with one byte of its data flipped. */
      async function loseAndFlip(tableName: string, lost: Item, victim: Item): Promise<void> {
        await local.client.send(
          new DeleteItemCommand({ TableName: tableName, Key: { pk: lost.pk!, sk: lost.sk! } }),
        );
        const flipped = Buffer.from(victim.data?.B ?? []);
        flipped[10] = (flipped[10] ?? 0) ^ 0xff;
        await local.client.send(
          new PutItemCommand({ TableName: tableName, Item: { ...victim, data: { B: flipped } } }),
        );
      }

      async function partitionItems(tableName: string, cluster: string): Promise<Item[]> {
        const items: Item[] = [];
        let startKey: Item | undefined;
        do {
          const page = await local.client.send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'pk = :pk',
              ExpressionAttributeValues: { ':pk': { S: partitionKey(cluster) } },
              ConsistentRead: true,
              ExclusiveStartKey: startKey,
            }),
          );
          items.push(...(page.Items ?? []));
          startKey = page.LastEvaluatedKey;
        } while (startKey !== undefined);
        return items;
      }

      function chunksOf(items: readonly Item[]): Item[] {
        return items.filter((item) => item.sk?.S?.startsWith('chunk#'));
      }

      function snapshotChunksOf(items: readonly Item[]): Item[] {
        return items.filter((item) => item.sk?.S?.startsWith('obs#'));
      }

      function headOf(items: readonly Item[]): Item {
        const head = items.find((item) => item.sk?.S === 'head');
        assert.ok(head, 'no head item');
        return head;
      }

      describe('DynamoDbStateStore', () => {
        it('shards 100,000 observations into items under 400 KB and pages through them on load', async () => {
          const { store, peer, tableName } = await dynamoStores();
          await store.save('huge', healthyClusterState(100_000, T0), 0);

          const items = await partitionItems(tableName, 'huge');
          const before = peer.usage();
          await peer.load('huge');
          const reads = peer.usage().requests - before.requests;

          const head = headOf(items);
          const chunks = snapshotChunksOf(items);
          const blobBytes = chunks.reduce((sum, item) => sum + (item.data?.B?.length ?? 0), 0);
          assert.equal(Number(head.obsChunks?.N), chunks.length);
          assert.ok(chunks.length >= 3, `expected several chunks, got ${chunks.length}`);
          assert.ok(blobBytes > 1024 * 1024, 'enough data to need more than one 1 MB Query page');
          assert.ok(reads >= 3, `one GetItem and at least two Query pages, got ${reads} requests`);
          // The rest of the state (alerts, outbox) stays in the head: one item written per check.
          assert.equal(head.chunks?.N, '0');
          assert.ok(itemBytes(head) <= 1024, `head of ${itemBytes(head)} bytes`);
          for (const item of items) {
            const rawBytes = Object.entries(item).reduce(
              (sum, [name, value]) =>
                sum + name.length + (value.B?.length ?? value.S?.length ?? value.N?.length ?? 0),
              0,
            );
            assert.ok(
              itemBytes(item) < MAX_ITEM_BYTES,
              `${item.sk?.S} is ${itemBytes(item)} bytes`,
            );
            assert.ok(rawBytes < 380_000, `${item.sk?.S} is ${rawBytes} bytes`);
          }
        });

        it('keeps a small state in the head item alone', async () => {
          const { store, tableName } = await dynamoStores();

          await store.save('small', richState(T0), 0);
          const items = await partitionItems(tableName, 'small');

          assert.equal(items.length, 1);
          assert.equal(headOf(items).chunks?.N, '0');
          assert.ok((headOf(items).state?.B?.length ?? 0) > 0);
        });

        it("deletes the previous generation's chunks after a save, also when going back to one item", async () => {
          const { store, tableName } = await dynamoStores({
            chunkBytes: 2000,
            inlineObservations: Number.POSITIVE_INFINITY,
          });
          await store.save('prod-eu', healthyClusterState(500, T0), 0);
          const first = await partitionItems(tableName, 'prod-eu');

          await store.save('prod-eu', healthyClusterState(500, T0 + 10_000), 1);
          const second = await partitionItems(tableName, 'prod-eu');
          await store.save('prod-eu', richState(T0 + 20_000), 2);
          const third = await partitionItems(tableName, 'prod-eu');

          const generation = (items: Item[]): string | undefined => headOf(items).generation?.S;
          assert.ok(chunksOf(first).length >= 2);
          assert.notEqual(generation(first), generation(second));
          assert.equal(chunksOf(second).length, Number(headOf(second).chunks?.N));
          for (const chunk of chunksOf(second)) {
            assert.ok(chunk.sk?.S?.startsWith(`chunk#${generation(second)}#`), chunk.sk?.S);
          }
          assert.deepEqual(chunksOf(third), []);
        });

        it('keeps the observations in a snapshot that a warm store rewrites only when a lease stops changing', async () => {
          const { store, peer, tableName } = await dynamoStores({ chunkBytes: 2000 });
          const names = nodeNames(500);
          const check = (at: number, seed: number) => ({
            observations: healthyObservations(names, at, seed),
            alerts: sampleAlerts(at, []),
            outbox: [],
          });
          await store.save('prod-eu', check(T0, 2), 0);
          const first = await partitionItems(tableName, 'prod-eu');
          const snapshot = headOf(first).obsGeneration?.S;

          // Every lease moved: the head alone, one write unit.
          let loaded = await store.load('prod-eu');
          const before = store.usage();
          await store.save('prod-eu', check(T0 + 60_000, 3), loaded.version);
          const units = store.usage().writeCapacityUnits - before.writeCapacityUnits;
          const second = await partitionItems(tableName, 'prod-eu');

          // One lease did not move since the previous check: it may be going silent, so it is written.
          loaded = await store.load('prod-eu');
          const moved = check(T0 + 120_000, 4).observations;
          const silent = names[7] as string;
          moved.set(silent, loaded.state.observations.get(silent) as Observation);
          await store.save(
            'prod-eu',
            { ...check(T0 + 120_000, 4), observations: moved },
            loaded.version,
          );
          const third = await partitionItems(tableName, 'prod-eu');
          const cold = await peer.load('prod-eu');

          assert.ok(snapshot);
          assert.ok(snapshotChunksOf(first).length >= 2);
          assert.equal(units, 1);
          assert.equal(headOf(second).obsGeneration?.S, snapshot);
          assert.deepEqual(snapshotChunksOf(second), snapshotChunksOf(first));
          const rewritten = headOf(third).obsGeneration?.S;
          assert.notEqual(rewritten, snapshot);
          assert.equal(snapshotChunksOf(third).length, Number(headOf(third).obsChunks?.N));
          for (const chunk of snapshotChunksOf(third)) {
            assert.ok(chunk.sk?.S?.startsWith(`obs#${rewritten}#`), chunk.sk?.S);
          }
          assert.deepEqual(cold.state.observations.get(silent), moved.get(silent));
          assert.ok(sameEntries(cold.state.observations, moved));
        });

        it('reports a missing or corrupted snapshot chunk as StateCorruptError', async () => {
          const { store, peer, tableName } = await dynamoStores({ chunkBytes: 2000 });
          await store.save('gap', healthyClusterState(500, T0), 0);
          await store.save('bits', healthyClusterState(500, T0), 0);
          const gap = snapshotChunksOf(await partitionItems(tableName, 'gap'));
          const victim = snapshotChunksOf(await partitionItems(tableName, 'bits'))[1];
          assert.ok(victim?.data?.B);

          await loseAndFlip(tableName, gap[1]!, victim);

          await assert.rejects(peer.load('gap'), {
            name: 'StateCorruptError',
            message:
              /state of cluster gap in table \S+ is unreadable: observation snapshot \w+ has lost chunks/,
          });
          await assert.rejects(peer.load('bits'), {
            name: 'StateCorruptError',
            message: /observation snapshot does not match its checksum/,
          });
        });

        it('puts the TTL attribute on every item, ttlSeconds after the write', async () => {
          const at = T0 + 123_456;
          const { store, tableName } = await dynamoStores({
            chunkBytes: 2000,
            ttlSeconds: 3600,
            clock: () => at,
          });

          await store.save('prod-eu', healthyClusterState(500, T0), 0);
          const items = await partitionItems(tableName, 'prod-eu');

          assert.ok(items.length > 2);
          for (const item of items) {
            assert.equal(item.expiresAt?.N, String(Math.floor(at / 1000) + 3600), item.sk?.S);
          }
        });

        it('leaves no chunks behind when it loses a race', async () => {
          const { store, peer, tableName } = await dynamoStores({ chunkBytes: 2000 });
          await store.save('prod-eu', healthyClusterState(500, T0), 0);
          const before = await partitionItems(tableName, 'prod-eu');

          const results = await Promise.allSettled([
            store.save('prod-eu', healthyClusterState(500, T0 + 10_000), 1),
            peer.save('prod-eu', healthyClusterState(500, T0 + 10_001), 1),
          ]);
          await assert.rejects(
            peer.save('prod-eu', healthyClusterState(500, T0 + 20_000), 0),
            StateConflictError,
          );
          const items = await partitionItems(tableName, 'prod-eu');

          assert.equal(results.filter((r) => r.status === 'rejected').length, 1);
          const head = headOf(items);
          assert.notEqual(head.generation?.S, headOf(before).generation?.S);
          assert.equal(chunksOf(items).length, Number(head.chunks?.N));
          for (const chunk of chunksOf(items)) {
            assert.ok(chunk.sk?.S?.startsWith(`chunk#${head.generation?.S}#`), chunk.sk?.S);
          }
        });

        it('does not take a retried head write that had succeeded for a conflict', async () => {
          const { tableName } = await dynamoStores();
          // A client whose first PutItem answer is "lost": the request is sent again, as the SDK's
          // retry does after a timeout, and only the second answer is seen.
          const client = localClient(local.endpoint);
          client.middlewareStack.add(
            (next, context) => async (args) => {
              if (context.commandName !== 'PutItemCommand') return next(args);
              await next(args);
              return next(args);
            },
            { step: 'finalizeRequest', name: 'loseFirstAnswer' },
          );
          const store = new DynamoDbStateStore({ client, tableName, chunkBytes: 2000 });
          const state = healthyClusterState(500, T0);

          const version = await store.save('prod-eu', state, 0);
          const loaded = await store.load('prod-eu');
          client.destroy();

          assert.equal(version, 1);
          assert.equal(loaded.version, 1);
          assert.deepEqual([...loaded.state.observations], [...state.observations]);
        });

        it('reads an expired state (not yet removed by DynamoDB) as empty, and keeps counting versions', async () => {
          let now = T0;
          const { store } = await dynamoStores({ ttlSeconds: 60, clock: () => now });
          await store.save('prod-eu', richState(T0), 0);

          now = T0 + 61_000;
          const loaded = await store.load('prod-eu');
          const version = await store.save('prod-eu', healthyClusterState(2, now), loaded.version);

          assert.equal(loaded.version, 1);
          assert.equal(loaded.state.observations.size, 0);
          assert.deepEqual(loaded.state.outbox, []);
          assert.equal(version, 2);
        });

        it('reports missing chunks and a corrupted blob as StateCorruptError', async () => {
          const { store, tableName } = await dynamoStores({
            chunkBytes: 2000,
            inlineObservations: Number.POSITIVE_INFINITY,
          });
          await store.save('gap', healthyClusterState(500, T0), 0);
          await store.save('bits', healthyClusterState(500, T0), 0);
          const gap = chunksOf(await partitionItems(tableName, 'gap'));
          const bits = chunksOf(await partitionItems(tableName, 'bits'));
          const victim = bits[1];
          assert.ok(victim?.data?.B);

          await loseAndFlip(tableName, gap[1]!, victim);

          await assert.rejects(store.load('gap'), {
            name: 'StateCorruptError',
            message:
              /state of cluster gap in table \S+ is unreadable: generation \w+ has 1 of its \d+ chunks/,
          });
          await assert.rejects(store.load('bits'), {
            name: 'StateCorruptError',
            message: /checksum/,
          });
        });

        it('rejects options that would break the item limit', () => {
          assert.throws(
            () =>
              new DynamoDbStateStore({ client: local.client, tableName: 't', chunkBytes: 400_000 }),
            RangeError,
          );
          assert.throws(
            () => new DynamoDbStateStore({ client: local.client, tableName: 't', ttlSeconds: 0 }),
            RangeError,
          );
        });
      });
    });
  }
});
