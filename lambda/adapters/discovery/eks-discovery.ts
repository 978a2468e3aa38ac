/**
 * Finds EKS clusters with `@aws-sdk/client-eks`: eks:ListClusters, paged with `nextToken` (at most
 * 100 names a page: "This value can be between 1 and 100", ListClusters API reference), then
 * eks:DescribeCluster of each (its status and tags), in the function's account or, with a role,
 * in that role's account (STS AssumeRole, as `clusters[].auth.roleArn` is assumed). Throttling and
 * 5xx are retried by the SDK client's own retry (bounded by its `maxAttempts`); past that the
 * scope fails as a whole, so that a cluster is never taken for deleted because a page was refused.
 * A cluster deleted between the list and its description (ResourceNotFoundException) is gone.
 */
import { DescribeClusterCommand, type EKSClient, paginateListClusters } from '@aws-sdk/client-eks';
import {
  type ClusterFinder,
  ClusterSearchError,
  type FoundEksCluster,
  type SearchScope,
} from '../../ports/index.js';
import { describeAwsError, errorName } from '../kube/config/auth-error.js';

/** The most clusters one scope may hold for discovery (ListClusters pages of 100). */
export const MAX_CLUSTERS_PER_SCOPE = 2_000;
/** DescribeCluster calls in flight at once, per scope. */
const DESCRIBE_CONCURRENCY = 8;

export class EksClusterFinder implements ClusterFinder {
  readonly #clients = new Map<string, EKSClient>();

  /** `eks`: an EKS client for a region, signing as `roleArn` when given (the caller assumes it). */
  constructor(private readonly eks: (region: string, roleArn?: string) => EKSClient) {}

  async find(scope: SearchScope, signal?: AbortSignal): Promise<readonly FoundEksCluster[]> {
    const names = await this.#names(scope, signal);
    const found: FoundEksCluster[] = [];
    for (let i = 0; i < names.length; i += DESCRIBE_CONCURRENCY) {
      const batch = names.slice(i, i + DESCRIBE_CONCURRENCY);
      const described = await Promise.all(batch.map((n) => this.describe(scope, n, signal)));
      for (const cluster of described) if (cluster !== undefined) found.push(cluster);
    }
    return found;
  }

  async #names(scope: SearchScope, signal?: AbortSignal): Promise<string[]> {
    const names: string[] = [];
    const client = this.#client(scope);
    try {
      for await (const page of paginateListClusters(
        { client, pageSize: 100, ...(signal ? { abortSignal: signal } : {}) },
        {},
      )) {
        names.push(...(page.clusters ?? []));
        if (names.length > MAX_CLUSTERS_PER_SCOPE) {
          throw new ClusterSearchError(
            `${where(scope)} holds more than ${MAX_CLUSTERS_PER_SCOPE} EKS clusters; narrow discover.regions or discover.accounts`,
          );
        }
      }
    } catch (error) {
      if (error instanceof ClusterSearchError) throw error;
      throw searchError('eks:ListClusters', scope, error);
    }
    return names;
  }

  async describe(
    scope: SearchScope,
    name: string,
    signal?: AbortSignal,
  ): Promise<FoundEksCluster | undefined> {
    try {
      const { cluster } = await this.#client(scope).send(
        new DescribeClusterCommand({ name }),
        signal ? { abortSignal: signal } : {},
      );
      return {
        clusterName: name,
        region: scope.region,
        ...(scope.roleArn === undefined ? {} : { roleArn: scope.roleArn }),
        status: cluster?.status ?? 'UNKNOWN',
        tags: { ...(cluster?.tags ?? {}) },
        ...(cluster?.arn === undefined ? {} : { arn: cluster.arn }),
        ...(cluster?.createdAt === undefined ? {} : { createdAt: cluster.createdAt.toISOString() }),
        ...(cluster?.id === undefined ? {} : { id: cluster.id }),
      };
    } catch (error) {
      // Deleted since it was listed: gone, not a failure.
      if (errorName(error) === 'ResourceNotFoundException') return undefined;
      throw searchError(`eks:DescribeCluster on '${name}'`, scope, error);
    }
  }

  #client(scope: SearchScope): EKSClient {
    const key = `${scope.roleArn ?? ''}|${scope.region}`;
    let client = this.#clients.get(key);
    if (!client) {
      client = this.eks(scope.region, scope.roleArn);
      this.#clients.set(key, client);
    }
    return client;
  }
}

/** `eu-west-1 of the function's account`, `eu-west-1 through arn:aws:iam::…:role/…`. */
function where(scope: SearchScope): string {
  return scope.roleArn === undefined
    ? `${scope.region} of the function's account`
    : `${scope.region} through role '${scope.roleArn}'`;
}

function searchError(call: string, scope: SearchScope, error: unknown): ClusterSearchError {
  const name = errorName(error);
  const fix =
    name === 'AccessDeniedException' || name === 'AccessDenied'
      ? `: ${scope.roleArn === undefined ? "the function's role" : 'that role'} needs eks:ListClusters and eks:DescribeCluster (and its trust policy must let the function assume it)`
      : '; discovery tries again at its next run';
  return new ClusterSearchError(
    `${call} in ${where(scope)} failed (${describeAwsError(error)})${fix}`,
    { cause: error },
  );
}
