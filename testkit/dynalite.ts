/**
 * A local DynamoDB-compatible server (dynalite, in-process, in memory) on 127.0.0.1 and a random
 * port, with the state table created through the real client, as the stack defines it. Never AWS.
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { STATE_TABLE_KEYS } from '../lambda/adapters/state/dynamodb/dynamodb-store.js';
import { listenOnLoopback } from './ports.js';

interface DynaliteOptions {
  readonly createTableMs?: number;
  readonly deleteTableMs?: number;
  readonly updateTableMs?: number;
  readonly maxItemSizeKb?: number;
}

// dynalite is CommonJS without type declarations: load it through require, typed here.
const dynalite = createRequire(import.meta.url)('dynalite') as (options: DynaliteOptions) => Server;

export interface LocalDynamoDb {
  readonly endpoint: string;
  /** A real client pointed at the local server (fake static credentials, us-east-1). */
  readonly client: DynamoDBClient;
  /** Creates a state table (pk S / sk S, on demand) and waits until it is ACTIVE. */
  createStateTable(tableName: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startLocalDynamoDb(): Promise<LocalDynamoDb> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const endpoint = await listenOnLoopback(server);
  const client = localClient(endpoint);
  return {
    endpoint,
    client,
    async createStateTable(tableName) {
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [
            { AttributeName: STATE_TABLE_KEYS.partitionKey, AttributeType: 'S' },
            { AttributeName: STATE_TABLE_KEYS.sortKey, AttributeType: 'S' },
          ],
          KeySchema: [
            { AttributeName: STATE_TABLE_KEYS.partitionKey, KeyType: 'HASH' },
            { AttributeName: STATE_TABLE_KEYS.sortKey, KeyType: 'RANGE' },
          ],
        }),
      );
      // dynalite has no UpdateTimeToLive: the TTL attribute is written, but never acted on here.
      for (let attempt = 0; attempt < 100; attempt++) {
        const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
        if (Table?.TableStatus === 'ACTIVE') return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`table ${tableName} did not become ACTIVE`);
    },
    async stop() {
      client.destroy();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

/** A real client for the local server; no retries unless asked, so tests see every failure. */
export function localClient(endpoint: string, maxAttempts = 1): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts,
  });
}
