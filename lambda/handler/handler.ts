/**
 * The module Lambda loads: settings (the environment, and the cluster file next to this module)
 * read once at cold start (a bad one fails the init with "X is required / X must be …"), AWS
 * clients built once, and the handler `createHandler` builds.
 *
 * Settings the cluster file vouches for (exactly what `cdk synth` validated and wrote) are taken
 * as they are; any others are validated with the deployment file's schemas, whose module is
 * imported only then: building those schemas was a fifth of the cold start's CPU
 * (docs/BENCHMARKS.md, cold start). Imports from the settings go to their modules, not to
 * settings/index.ts, which would load the schemas too.
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
import { CLUSTER_FILE } from '../settings/cluster-file.js';
import { synthesizedRuntimeConfig } from '../settings/runtime-environment.js';
import { createHandler } from './create-handler.js';

const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
const eksClients = new Map<string, EKSClient>();

/** The clusters, in a file the stack writes next to this module in the function's code. */
const clusterFile = fileURLToPath(new URL(CLUSTER_FILE, import.meta.url));

const clusterSource = { path: clusterFile, read: () => readFileSync(clusterFile, 'utf8') };

export const handler = createHandler(
  synthesizedRuntimeConfig(process.env, clusterSource) ??
    (await import('../settings/runtime-config.js')).loadRuntimeConfig(process.env, clusterSource),
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
