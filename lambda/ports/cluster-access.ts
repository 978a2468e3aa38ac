/** Letting the watchdog into a discovered cluster: an EKS access entry for its principal. */
import type { FoundEksCluster } from './cluster-finder.js';

/** The cluster, where it is and how it is reached (its scope's region and role). */
export type AccessTarget = Pick<FoundEksCluster, 'clusterName' | 'region' | 'roleArn'>;

export interface ClusterAccess {
  /**
   * Creates the access entry of `principalArn` on the cluster (kept when it exists) and associates
   * the read-only access policy with it, cluster-wide. Rejects with one line on failure.
   */
  grant(target: AccessTarget, principalArn: string, signal?: AbortSignal): Promise<void>;
}
