/**
 * The default of `Io.aws` (an AwsClients, io.ts): the AWS SDK's clients, configured from the
 * process environment. A module of its own, imported only by the commands that reach AWS
 * (`watch --sns-topic-arn`, `silence --table`): the SDK takes longer to load than `check` takes
 * to run.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';

export const SDK_CLIENTS = {
  sns: (region: string | undefined) => new SNSClient({ region }),
  dynamodb: (region: string | undefined) => new DynamoDBClient({ region }),
};
