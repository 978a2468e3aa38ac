/** Finding clusters: where discovery looks, what it finds, and the one error it raises. */

/** One place discovery searches: a region of the function's account, or of a role's account. */
export interface SearchScope {
  readonly region: string;
  /** The role assumed to search another account (none: the function's own account). */
  readonly roleArn?: string | undefined;
}

/** An EKS cluster as discovery found it (eks:ListClusters, then eks:DescribeCluster), in its scope. */
export interface FoundEksCluster extends SearchScope {
  readonly clusterName: string;
  /** `CREATING`, `ACTIVE`, `UPDATING`, `DELETING`, `FAILED`, `PENDING`. */
  readonly status: string;
  readonly tags: Readonly<Record<string, string>>;
  /** Its ARN (names its account), when EKS said it. */
  readonly arn?: string | undefined;
  /**
   * When it was created (ISO 8601), and its `id` (EKS on Outposts only), when EKS said them: a
   * cluster deleted and created again under its name keeps its ARN, not these.
   */
  readonly createdAt?: string | undefined;
  readonly id?: string | undefined;
}

/**
 * Which cluster it is: its ARN (its region, account and name; as EKS would write it when EKS did
 * not say it), and what tells a cluster created again under that name from the one before: EKS's
 * id and creation time. Discovery records it; a check of a discovered cluster reads only that one.
 */
export function identityOf(
  cluster: Pick<FoundEksCluster, 'clusterName' | 'region' | 'arn' | 'id' | 'createdAt'>,
): string {
  const arn = cluster.arn ?? `arn:aws:eks:${cluster.region}:?:cluster/${cluster.clusterName}`;
  return [arn, cluster.id ?? '', cluster.createdAt ?? ''].join(' ');
}

/** Finds the EKS clusters of one scope. */
export interface ClusterFinder {
  /**
   * Every cluster of the scope, described. A cluster deleted between the list and its description
   * is left out (it is gone). Rejects with a ClusterSearchError when the scope cannot be searched
   * (its role cannot be assumed, access denied, throttled past the SDK's retries).
   */
  find(scope: SearchScope, signal?: AbortSignal): Promise<readonly FoundEksCluster[]>;
  /**
   * One cluster of the scope, described as `find` describes it: undefined when EKS says there is
   * no such cluster. Rejects with a ClusterSearchError when EKS cannot say.
   */
  describe(
    scope: SearchScope,
    clusterName: string,
    signal?: AbortSignal,
  ): Promise<FoundEksCluster | undefined>;
}

/** A scope discovery could not search: one line naming it, what failed and what to check. */
export class ClusterSearchError extends Error {
  override readonly name = 'ClusterSearchError';
}
