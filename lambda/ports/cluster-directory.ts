/**
 * The clusters watched beyond the deployment file's list: the ones discovery found, as of its
 * last run. Listed clusters win over discovered ones of the same name (the caller drops those).
 */
import type { ClusterSettings } from '../settings/index.js';

export interface ClusterDirectory {
  /** The discovered clusters, each with its settings validated as a listed one's would be. */
  discovered(): Promise<readonly ClusterSettings[]>;
}
