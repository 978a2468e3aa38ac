/**
 * Measures what one check costs the DynamoDB state store at 5,000 and 100,000 nodes, through the
 * real client against dynalite (which reports ConsumedCapacity by DynamoDB's rules: writes 1 unit
 * per started KB of each item — a delete by the size of the deleted item, an overwrite by the
 * larger of old and new —, strongly consistent reads 1 unit per started 4 KB).
 *
 *   node_modules/.bin/node --import tsx bench/state-cost.ts
 *
 * Not a test (not *.test.ts): the numbers go into docs/STATE.md.
 */

import { performance } from 'node:perf_hooks';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { DynamoDbStateStore } from '../lambda/adapters/state/dynamodb/dynamodb-store.js';
import type { DynamoDbUsage } from '../lambda/adapters/state/dynamodb/dynamodb-table.js';
import { serializeClusterState } from '../lambda/adapters/state/state-document.js';
import type { ClusterState } from '../lambda/ports/index.js';
import { localClient, startLocalDynamoDb } from '../testkit/dynalite.js';
import {
  healthyObservations,
  nodeNames,
  sampleAlerts,
  sampleNotification,
} from '../testkit/state-fixtures.js';

const T0 = Date.UTC(2026, 10, 29, 17, 52, 14);
const CHECKS_PER_MONTH = 30 * 24 * 60; // the default 1-minute schedule

function delta(after: DynamoDbUsage, before: DynamoDbUsage): DynamoDbUsage {
  const out = { ...after };
  for (const key of Object.keys(out) as (keyof DynamoDbUsage)[]) out[key] -= before[key];
  return out;
}

const local = await startLocalDynamoDb();
await local.createStateTable('cost');
// The SDK's usual retries: the server closes idle connections while the script compresses.
const client = localClient(local.endpoint, 3);
const store = new DynamoDbStateStore({ client, tableName: 'cost' });

const rows: string[] = [];
for (const nodes of [5_000, 100_000]) {
  for (const scenario of ['healthy', 'storm'] as const) {
    const cluster = `${scenario}-${nodes}`;
    const names = nodeNames(nodes);
    const stateAt = (at: number, seed: number): ClusterState => ({
      observations: healthyObservations(names, at, seed),
      alerts: scenario === 'storm' ? sampleAlerts(at, names) : sampleAlerts(at, []),
      outbox: scenario === 'storm' ? [sampleNotification(cluster, at, names)] : [],
    });
    // Check 1 creates the state (and the observation snapshot); check 2 is the steady state that
    // every later check of the same container repeats (docs/STATE.md).
    const beforeFirst = store.usage();
    await store.save(cluster, stateAt(T0, 2), 0);
    const first = delta(store.usage(), beforeFirst);
    const next = stateAt(T0 + 10_000, 3);
    const json = serializeClusterState(next);
    const started = performance.now();
    const gzipped = gzipSync(json);
    const gzipMs = performance.now() - started;
    const brotli = brotliCompressSync(json, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 9,
        [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
      },
    });

    const beforeLoad = store.usage();
    const loaded = await store.load(cluster);
    const afterLoad = store.usage();
    await store.save(cluster, next, loaded.version);
    const afterSave = store.usage();
    const load = delta(afterLoad, beforeLoad);
    const save = delta(afterSave, afterLoad);
    const month = (units: number): string => `${((units * CHECKS_PER_MONTH) / 1e6).toFixed(2)} M`;
    rows.push(
      [
        `${nodes.toLocaleString('en')} ${scenario}`,
        `${(json.length / 1024).toFixed(0)} KiB`,
        `${(gzipped.length / 1024).toFixed(0)} KiB (${gzipMs.toFixed(0)} ms)`,
        `${(brotli.length / 1024).toFixed(0)} KiB`,
        `${save.itemsWritten} put + ${save.itemsDeleted} deleted`,
        `${(save.bytesWritten / 1024).toFixed(0)} KiB`,
        `${first.writeCapacityUnits} WCU`,
        `${save.writeCapacityUnits} WCU`,
        `${load.readCapacityUnits} RCU`,
        `${load.requests} + ${save.requests}`,
        `${month(save.writeCapacityUnits)} WRU / ${month(load.readCapacityUnits)} RRU`,
      ].join(' | '),
    );
  }
}
client.destroy();
await local.stop();

console.log(
  '| nodes | state JSON | gzip (time) | brotli q9 | items per steady save | bytes put | write units, first save | write units per steady check | read units per steady check (strong) | requests load + save | per month at 1 check/min |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const row of rows) console.log(`| ${row} |`);
