/**
 * A corrupt state is reset, kept aside, and announced once, instead of failing every invocation
 * forever: through the real handler with dynalite and the local SNS server, through the stores'
 * `loadOrReset` (chunked states, a head without a version, two runs resetting at once), and
 * through `lease-watchdog watch --state-file` (in process).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import type { Item } from '../lambda/adapters/state/dynamodb/dynamodb-items.js';
import { partitionKey } from '../lambda/adapters/state/dynamodb/dynamodb-items.js';
import { DynamoDbStateStore } from '../lambda/adapters/state/dynamodb/dynamodb-store.js';
import { FileStateStore } from '../lambda/adapters/state/file/file-store.js';
import { StateConflictError } from '../lambda/ports/index.js';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess as runCli } from '../testkit/cli-in-process.js';
import { type LocalDynamoDb, startLocalDynamoDb } from '../testkit/dynalite.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';
import { healthyClusterState } from '../testkit/state-fixtures.js';
import {
  attributesOf,
  type Harness,
  kindOf,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

const T0 = Date.UTC(2026, 10, 29, 17, 52, 14);

async function items(client: DynamoDBClient, table: string, cluster: string): Promise<Item[]> {
  const out = await client.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: partitionKey(cluster) } },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

async function head(client: DynamoDBClient, table: string, cluster: string): Promise<Item> {
  const out = await client.send(
    new GetItemCommand({
      TableName: table,
      Key: { pk: { S: partitionKey(cluster) }, sk: { S: 'head' } },
      ConsistentRead: true,
    }),
  );
  assert.ok(out.Item, 'a head item');
  return out.Item;
}

/** Overwrites the head's blob with bytes that do not match its checksum. */
async function corruptHead(client: DynamoDBClient, table: string, cluster: string): Promise<Item> {
  const item = { ...(await head(client, table, cluster)), state: { B: Buffer.from('garbage') } };
  await client.send(new PutItemCommand({ TableName: table, Item: item }));
  return item;
}

describe('lambda e2e: a corrupt state item', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 3 } } });
  });
  after(() => h.close());

  it('is reset and kept aside, one NOTICE, the node still down fires again', async () => {
    const target = h.target('prod');
    const victim = target.nodes[1] as string;
    await h.run();
    target.sim.stopKubelet(victim);
    for (let i = 0; i < 3; i++) await h.tick();
    assert.deepEqual(h.sns.messages.map(kindOf), ['FIRING'], summary(h.sns.messages));

    const planted = await corruptHead(h.dynamo.client, h.tableName, 'prod');
    const before = h.sns.messages.length;
    const report = await h.tick();
    assert.equal(report.clusters[0]?.lastStatus, 'checked', 'the invocation succeeds');

    const sent = h.sns.messages.slice(before);
    assert.deepEqual(sent.map(kindOf), ['NOTICE'], summary(sent));
    const [notice] = sent;
    assert.ok(notice);
    assert.equal(notice.subject, '[prod] NOTICE: state was unreadable and was reset');
    assert.equal(attributesOf(notice).severity, 'warning');
    assert.match(notice.message, /checksum/);
    assert.match(notice.message, /announced\s+again/);

    // The copy, as it was, under a key that says what it is and when.
    const copies = (await items(h.dynamo.client, h.tableName, 'prod')).filter((item) =>
      item.sk?.S?.startsWith('corrupt#'),
    );
    assert.deepEqual(
      copies.map((item) => item.sk?.S),
      [`corrupt#${new Date(h.clock.now()).toISOString()}#head`],
    );
    assert.equal(Buffer.from(copies[0]?.state?.B ?? []).toString(), 'garbage');
    assert.equal(copies[0]?.version?.N, planted.version?.N);
    assert.ok(notice.message.includes(String(copies[0]?.sk?.S)), 'the NOTICE says where');
    // Logged, structured.
    const logged = h.logger.entries.find((e) => e.message.startsWith('state was unreadable'));
    assert.equal(logged?.level, 'error');
    assert.equal(logged?.fields.cluster, 'prod');
    assert.match(String(logged?.fields.copy), /corrupt#/);
    // The version moved on from the corrupt head's: the claim, then the record of the NOTICE.
    assert.equal(
      Number((await head(h.dynamo.client, h.tableName, 'prod')).version?.N),
      Number(planted.version?.N) + 2,
    );

    // Nothing more about it; the node still down fires again once its silence is confirmed.
    for (let i = 0; i < 4; i++) await h.tick();
    assert.deepEqual(
      h.sns.messages.slice(before).map(kindOf),
      ['NOTICE', 'FIRING'],
      summary(h.sns.messages),
    );
    assert.ok(h.sns.messages.at(-1)?.message.includes(victim));
  });

  it('two invocations finding it at once: one NOTICE', async () => {
    const a = h.container();
    const b = h.container();
    await h.tick();
    await corruptHead(h.dynamo.client, h.tableName, 'prod');
    const before = h.sns.messages.length;
    h.clock.advance(60_000);
    await Promise.all([a.invoke(), b.invoke()]);
    for (let i = 0; i < 2; i++) {
      h.clock.advance(60_000);
      await Promise.all([a.invoke(), b.invoke()]);
    }
    const notices = h.sns.messages.slice(before).filter((m) => kindOf(m) === 'NOTICE');
    assert.equal(notices.length, 1, summary(h.sns.messages.slice(before)));
  });
});

describe('DynamoDbStateStore.loadOrReset', () => {
  let local: LocalDynamoDb;
  let tables = 0;
  before(async () => {
    local = await startLocalDynamoDb();
  });
  after(() => local.stop());

  async function store(chunkBytes?: number) {
    const tableName = `lease-watchdog-reset-${++tables}`;
    await local.createStateTable(tableName);
    const make = () =>
      new DynamoDbStateStore({ client: local.client, tableName, chunkBytes, clock: () => T0 });
    return { tableName, store: make(), peer: make() };
  }

  it('copies a state with a missing snapshot chunk aside, head and chunks, and saves over it', async () => {
    // `s` saved it; `p` is another container, which reads the table (not `s`'s memory).
    const { tableName, store: s, peer: p } = await store(2000);
    await s.save('prod', healthyClusterState(500, T0), 0);
    const stored = await items(local.client, tableName, 'prod');
    const chunks = stored.filter((item) => item.sk?.S?.startsWith('obs#'));
    assert.ok(chunks.length > 2);
    // Drop one chunk (BatchWriteItem: the table's own grants, no DeleteItem).
    const { BatchWriteItemCommand } = await import('@aws-sdk/client-dynamodb');
    await local.client.send(
      new BatchWriteItemCommand({
        RequestItems: {
          [tableName]: [{ DeleteRequest: { Key: { pk: chunks[1]!.pk!, sk: chunks[1]!.sk! } } }],
        },
      }),
    );
    await assert.rejects(p.load('prod'), { name: 'StateCorruptError' });

    const reset = await p.loadOrReset('prod');
    assert.equal(reset.version, 1);
    assert.equal(reset.state.observations.size, 0);
    assert.match(reset.reset?.reason ?? '', /observation snapshot \w+ has lost chunks/);
    assert.doesNotMatch(reset.reset?.reason ?? '', /delete its items/);
    const prefix = `corrupt#${new Date(T0).toISOString()}#`;
    const copies = (await items(local.client, tableName, 'prod')).filter((item) =>
      item.sk?.S?.startsWith(prefix),
    );
    assert.equal(copies.length, chunks.length, 'the head and the chunks left');
    assert.ok(reset.reset?.copy.includes(`${prefix}head`));

    assert.equal(await p.save('prod', healthyClusterState(3, T0), reset.version), 2);
    const loaded = await s.load('prod');
    assert.equal(loaded.state.observations.size, 3);
    assert.equal(loaded.reset, undefined);
    const left = await items(local.client, tableName, 'prod');
    assert.equal(left.filter((item) => item.sk?.S?.startsWith('obs#')).length, 0);
    assert.equal(left.filter((item) => item.sk?.S?.startsWith(prefix)).length, copies.length);
  });

  it('a head without a version: reset as version 0, and only one of two runs saves over it', async () => {
    const { tableName, store: s, peer } = await store();
    await local.client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { pk: { S: partitionKey('prod') }, sk: { S: 'head' }, version: { S: 'x' } },
      }),
    );
    const [one, two] = await Promise.all([s.loadOrReset('prod'), peer.loadOrReset('prod')]);
    assert.equal(one.version, 0);
    assert.ok(one.reset && two.reset);
    const saves = await Promise.allSettled([
      s.save('prod', healthyClusterState(2, T0), one.version),
      peer.save('prod', healthyClusterState(2, T0), two.version),
    ]);
    assert.deepEqual(saves.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const lost = saves.find((r) => r.status === 'rejected');
    assert.ok(lost?.status === 'rejected' && lost.reason instanceof StateConflictError);
    assert.equal((await s.load('prod')).version, 1);
  });

  it('a readable state is loaded as usual', async () => {
    const { store: s } = await store();
    await s.save('prod', healthyClusterState(4, T0), 0);
    const loaded = await s.loadOrReset('prod');
    assert.equal(loaded.version, 1);
    assert.equal(loaded.state.observations.size, 4);
    assert.equal(loaded.reset, undefined);
  });
});

describe('FileStateStore.loadOrReset', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-reset-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('one cluster unreadable: a copy of the file, that cluster empty, the others kept', async () => {
    const path = join(dir, 'one.json');
    const s = new FileStateStore(path, { clock: () => T0 });
    await s.save('good', healthyClusterState(2, T0), 0);
    const file = JSON.parse(await readFile(path, 'utf8'));
    file.clusters.bad = { version: 4, state: { format: 1, observations: { names: [1] } } };
    const content = JSON.stringify(file);
    await writeFile(path, content);

    const reset = await s.loadOrReset('bad');
    assert.equal(reset.version, 4);
    assert.equal(reset.reset?.copy, `${path}.corrupt-20261129T175214.000Z`);
    assert.equal(await readFile(reset.reset?.copy ?? '', 'utf8'), content);
    assert.equal(await s.save('bad', healthyClusterState(1, T0), reset.version), 5);
    assert.equal((await s.load('good')).state.observations.size, 2);
  });

  it('a permission problem is not corruption: it still throws', async () => {
    const path = join(dir, 'a-directory.json');
    await import('node:fs/promises').then((fs) => fs.mkdir(path));
    await assert.rejects(new FileStateStore(path).loadOrReset('prod'), {
      message: /cannot be read/,
    });
  });
});

describe('lease-watchdog watch --state-file: a corrupt file', () => {
  let sim: SimFixture;
  let dir: string;
  let kubeconfig: string;
  before(async () => {
    const cluster = new SimCluster({ seed: 3 });
    cluster.addNodes(2, { zones: ['eu-west-1a'] });
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-cli-reset' });
    ({ dir, kubeconfig } = sim);
  });
  after(() => sim.close());

  it('is renamed aside, the run goes on with one NOTICE, the next run says nothing of it', async () => {
    const stateFile = join(dir, 'state.json');
    await writeFile(stateFile, '{"format": 1, "clusters": {');
    const watch = ['watch', '--kubeconfig', kubeconfig, '--interval', '0.2', '--checks', '1'];

    const first = await runCli([...watch, '--state-file', stateFile]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(
      first.stdout.match(/NOTICE: state was unreadable and was reset/g)?.length,
      1,
      first.stdout,
    );
    const kept = (await readdir(dir)).filter((name) => name.startsWith('state.json.corrupt-'));
    assert.equal(kept.length, 1);
    assert.equal(
      await readFile(join(dir, kept[0] as string), 'utf8'),
      '{"format": 1, "clusters": {',
    );
    assert.ok(first.stdout.includes(kept[0] as string), 'the NOTICE says where the copy is');
    JSON.parse(await readFile(stateFile, 'utf8'));

    const second = await runCli([...watch, '--state-file', stateFile]);
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stdout, /NOTICE/);
  });

  it('a state that parses but holds malformed alerts: reset, kept aside, one NOTICE', async () => {
    const stateFile = join(dir, 'alerts.json');
    const watch = ['watch', '--kubeconfig', kubeconfig, '--interval', '0.2', '--checks', '1'];
    const made = await runCli([...watch, '--state-file', stateFile]);
    assert.equal(made.code, 0, made.stderr);
    const file = JSON.parse(await readFile(stateFile, 'utf8'));
    const [entry] = Object.values(file.clusters) as { state: { alerts: object } }[];
    assert.ok(entry);
    // No incidents at all, and a read failure that was never one (no times, no message).
    entry.state.alerts = { ...entry.state.alerts, incidents: null, watchdog: { failure: 'tls' } };
    await writeFile(stateFile, JSON.stringify(file));

    const first = await runCli([...watch, '--state-file', stateFile]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(
      first.stdout.match(/NOTICE: state was unreadable and was reset/g)?.length,
      1,
      first.stdout,
    );
    assert.match(first.stdout, /alerts\.incidents/);
    const kept = (await readdir(dir)).filter((name) => name.startsWith('alerts.json.corrupt-'));
    assert.equal(kept.length, 1);
    const second = await runCli([...watch, '--state-file', stateFile]);
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stdout, /NOTICE|WATCHDOG/);
  });
});
