/**
 * The DynamoDB capacity units a client's requests consumed, as DynamoDB (dynalite) reports them
 * (`ReturnConsumedCapacity`): reads (GetItem, Query) and writes (everything else) apart. Used by
 * the state-writes test and bench/cost/measure.ts.
 */
import type { ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';

export function countUnits(client: DynamoDBClient): { read: number; write: number } {
  const units = { read: 0, write: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const reported = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const all = (
        Array.isArray(reported) ? reported : reported ? [reported] : []
      ) as ConsumedCapacity[];
      const sum = all.reduce((total, c) => total + (c.CapacityUnits ?? 0), 0);
      if (context.commandName === 'GetItemCommand' || context.commandName === 'QueryCommand') {
        units.read += sum;
      } else {
        units.write += sum;
      }
      return result;
    },
    { step: 'initialize', name: 'countCapacityUnits' },
  );
  return units;
}
