/**
 * A silence no check can honour, planted in the state table as anyone who may write the table can
 * (the stores refuse to write it): shared by the fault matrix's "A hostile silence" row and
 * test/silence-set-aside.test.ts.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { partitionKey } from '../lambda/adapters/state/dynamodb/dynamodb-items.js';
import { DynamoDbSilenceStore } from '../lambda/adapters/state/dynamodb/dynamodb-silence-store.js';
import type { Harness } from './watchdog-harness.js';

/**
 * Writes a well-formed silence of `node` whose end lies past what a Date can hold, as anyone who
 * may write the table can (the stores refuse to write it), and a good one of `good` for an hour.
 */
export async function plantHostileSilence(h: Harness, node: string, good: string): Promise<void> {
  const now = h.clock.now();
  const hostile = {
    id: 's-bad001',
    target: { nodes: [node] },
    comment: 'for ever',
    author: 'mallory@laptop',
    createdAt: now,
    endsAt: 9e15,
  };
  await h.dynamo.client.send(
    new PutItemCommand({
      TableName: h.tableName,
      Item: {
        pk: { S: partitionKey('prod') },
        sk: { S: `silence#${hostile.id}` },
        silence: { S: JSON.stringify(hostile) },
        endsAt: { N: String(hostile.endsAt) },
        expiresAt: { N: String(Math.ceil(hostile.endsAt / 1000)) },
      },
    }),
  );
  const store = new DynamoDbSilenceStore({
    client: h.dynamo.client,
    tableName: h.tableName,
    clock: h.clock.now,
  });
  await store.add('prod', {
    id: 's-600d01',
    target: { nodes: [good] },
    comment: 'kernel upgrade',
    author: 'ops@laptop',
    createdAt: now,
    endsAt: now + 3600_000,
  });
}
