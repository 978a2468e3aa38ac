/**
 * The module Lambda loads: settings parsed once at cold start (a bad one fails the init with
 * "X is required / X must be …"), AWS clients built once, and the handler `createHandler` builds.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EKSClient } from '@aws-sdk/client-eks';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { createHandler } from './create-handler.js';
import { loadRuntimeConfig } from './settings/index.js';

const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
const eksClients = new Map<string, EKSClient>();

export const handler = createHandler(loadRuntimeConfig(process.env), {
  clients: {
    sns: new SNSClient({ region }),
    dynamodb: new DynamoDBClient({ region }),
    secrets: new SecretsManagerClient({ region }),
    eks: (r = region) => {
      const client = eksClients.get(r) ?? new EKSClient({ region: r });
      eksClients.set(r, client);
      return client;
    },
    credentials: fromNodeProviderChain(),
    region,
    sqs: new SQSClient({ region }),
  },
});
