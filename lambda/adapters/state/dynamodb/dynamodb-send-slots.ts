/**
 * The deployment's share of a paging tool's rate limit (the `SendSlots` port) in the state table:
 * one counter item per key and window, `rate#slots` / `<key>#<window>`, taken with one conditional
 * UpdateItem (`ADD taken :one` while `taken < :limit`), so that every container and every
 * cluster's lane draw from one count. Items expire (the table's TTL, `expiresAt`) an hour after
 * their window.
 */
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { SendSlots } from '../../../ports/index.js';

const PARTITION = 'rate#slots';
const KEEP_SECONDS = 3_600;

export class DynamoDbSendSlots implements SendSlots {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly clock: () => number,
  ) {}

  async take(window: string, limit: number, signal: AbortSignal): Promise<boolean> {
    const command = new UpdateItemCommand({
      TableName: this.tableName,
      Key: { pk: { S: PARTITION }, sk: { S: window } },
      UpdateExpression: 'ADD taken :one SET expiresAt = :expires',
      ConditionExpression: 'attribute_not_exists(taken) OR taken < :limit',
      ExpressionAttributeValues: {
        ':one': { N: '1' },
        ':limit': { N: String(limit) },
        ':expires': { N: String(Math.ceil(this.clock() / 1000) + KEEP_SECONDS) },
      },
    });
    try {
      await this.client.send(command, { abortSignal: signal });
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
