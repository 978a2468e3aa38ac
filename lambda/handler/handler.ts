/**
 * The module Lambda loads: settings (the environment, and the cluster file next to this module)
 * parsed once at cold start (a bad one fails the init with "X is required / X must be …"), AWS
 * clients built once, and the handler `createHandler` builds.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EKSClient } from '@aws-sdk/client-eks';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { CLUSTER_FILE, loadRuntimeConfig } from '../settings/index.js';
import { createHandler } from './create-handler.js';

const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
const eksClients = new Map<string, EKSClient>();

/** The clusters, in a file the stack writes next to this module in the function's code. */
const clusterFile = fileURLToPath(new URL(CLUSTER_FILE, import.meta.url));

export const handler = createHandler(
  loadRuntimeConfig(process.env, {
    path: clusterFile,
    read: () => readFileSync(clusterFile, 'utf8'),
  }),
  {
    clients: {
      sns: new SNSClient({ region }),
      dynamodb: new DynamoDBClient({ region }),
      secrets: new SecretsManagerClient({ region }),
      eks: (r = region, credentials) => {
        // With a cluster's assumed role: a client of its own (the caller keeps it).
        if (credentials) return new EKSClient({ region: r, credentials });
        const client = eksClients.get(r) ?? new EKSClient({ region: r });
        eksClients.set(r, client);
        return client;
      },
      credentials: fromNodeProviderChain(),
      region,
      eventBridge: (r) => new EventBridgeClient({ region: r }),
      sqs: new SQSClient({ region }),
    },
  },
);
