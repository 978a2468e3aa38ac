/**
 * Discovery's parts, built once per container when `discover` is set: the EKS finder (as the
 * function, or as each account's role), the store in the state table, the directory the checks
 * read (remembering each discovered cluster's settings for the notifiers), and the access grant.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EKSClient } from '@aws-sdk/client-eks';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { EksClusterAccess } from '../adapters/discovery/eks-access.js';
import { EksClusterFinder } from '../adapters/discovery/eks-discovery.js';
import { StoredClusterDirectory } from '../adapters/discovery/stored-directory.js';
import type { ClusterAwsCredentials } from '../adapters/kube/config/cluster-credentials.js';
import { DynamoDbDiscoveryStore } from '../adapters/state/dynamodb/dynamodb-discovery-store.js';
import { DynamoDbStateStore } from '../adapters/state/dynamodb/dynamodb-store.js';
import type { ClusterDirectory, Notifier, StructuredLogger } from '../ports/index.js';
import type { ClusterSettings, RuntimeConfig } from '../settings/index.js';
import type { DiscoveryReport } from '../use-cases/discovery.js';

/** The AWS clients discovery uses (the handler's AwsClients extend them). */
export interface DiscoveryClients {
  readonly dynamodb: DynamoDBClient;
  /**
   * An EKS client for a region (the function's own when undefined), signing with `credentials`
   * when given (a cluster's assumed role) instead of the function's own.
   */
  readonly eks: (region?: string, credentials?: AwsCredentialIdentityProvider) => EKSClient;
}

export interface DiscoveryParts {
  readonly directory: ClusterDirectory;
  /** A discovered cluster's settings, as last read by the directory (for the notifiers). */
  settingsOf(name: string): ClusterSettings | undefined;
  /** One discovery run (`{ "discover": true }`). */
  run(notifier: Notifier, signal?: AbortSignal): Promise<DiscoveryReport>;
  /**
   * Before a discovered cluster that cannot be read is paged: whether EKS says it is deleted
   * (announced once, then; use-cases/discovery.ts, deletedSinceDiscovery). Never rejects.
   */
  deleted(name: string, notifier: Notifier, signal?: AbortSignal): Promise<boolean>;
}

export function discoveryParts(
  config: RuntimeConfig,
  clients: DiscoveryClients,
  awsCredentials: ClusterAwsCredentials,
  { logger, clock }: { readonly logger: StructuredLogger; readonly clock: () => number },
): DiscoveryParts | undefined {
  if (config.settings.discover === undefined) return undefined;
  const table = { client: clients.dynamodb, tableName: config.stateTable, clock };
  const store = new DynamoDbDiscoveryStore(table);
  const stored = new StoredClusterDirectory(store, clock);
  const roleCredentials = (roleArn: string, region: string) =>
    awsCredentials.forCluster({ auth: { mode: 'eks', clusterName: '-', region, roleArn } });
  const eks = (region: string, roleArn?: string) =>
    roleArn === undefined
      ? clients.eks(region)
      : clients.eks(region, roleCredentials(roleArn, region));
  const finder = new EksClusterFinder(eks);
  const access = new EksClusterAccess((target) => eks(target.region, target.roleArn));
  const states = new DynamoDbStateStore({ ...table, logger });
  const deps = (notifier: Notifier) => ({
    settings: config.settings,
    finder,
    store,
    states,
    notifier,
    access,
    functionRoleArn: config.functionRoleArn,
    logger,
    clock,
  });
  // Loaded when first needed: it validates tags with the settings' schemas, which a check never
  // builds.
  const useCase = () => import('../use-cases/discovery.js');
  return {
    directory: stored,
    settingsOf: (name) => stored.settingsOf(name),
    run: async (notifier, signal) => {
      const { runDiscovery } = await useCase();
      const report = await runDiscovery(deps(notifier), signal).finally(() => stored.forget());
      logger.info('discovery ran', { ...report });
      return report;
    },
    deleted: async (name, notifier, signal) => {
      const { deletedSinceDiscovery } = await useCase();
      const deleted = await deletedSinceDiscovery(deps(notifier), name, signal);
      if (deleted) stored.forget();
      return deleted;
    },
  };
}
