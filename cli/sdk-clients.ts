/**
 * The default of `Io.aws`: the AWS SDK's clients, configured from the process environment. A
 * module of its own, imported only by the commands that reach AWS (`watch --sns-topic-arn`,
 * `silence --table`): the SDK takes longer to load than `check` takes to run.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import type { AwsClients } from './io.js';

export const SDK_CLIENTS: AwsClients = {
  sns: (region) => new SNSClient({ region }),
  dynamodb: (region) => new DynamoDBClient({ region }),
};
