/** Letting the watchdog into a discovered cluster: an EKS access entry for its principal. */

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
