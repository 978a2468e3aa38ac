/** Letting the watchdog into a discovered cluster: an EKS access entry for its principal. */

/**
 * The EKS access policy the watchdog's access entry gets: the only one that lists Nodes
 * (cluster-scoped) and Leases (coordination.k8s.io): `*` resources, get/list/watch, Secrets
 * included (EKS user guide, "Review access policy permissions",
 * https://docs.aws.amazon.com/eks/latest/userguide/access-policy-permissions.html).
 * AmazonEKSViewPolicy names fixed API groups, without coordination.k8s.io, and no Nodes.
 */
export const ACCESS_POLICY = 'AmazonEKSAdminViewPolicy';

/** The cluster, where it is and how it is reached. */
export interface AccessTarget {
  readonly clusterName: string;
  readonly region: string;
  /** The role the cluster's account is reached through (none: the function's own account). */
  readonly roleArn?: string | undefined;
}

export interface ClusterAccess {
  /**
   * Creates the access entry of `principalArn` on the cluster (kept when it exists) and associates
   * the read-only access policy with it, cluster-wide. Rejects with one line on failure.
   */
  grant(target: AccessTarget, principalArn: string, signal?: AbortSignal): Promise<void>;
}
