/**
 * Where the function finds its clusters. The Lambda environment holds 4 KB in all, ~29 `eks`
 * clusters or two `token` clusters with `caData`: too small for a fleet. So the stack writes the
 * clusters into a JSON file inside the function's own code (`CLUSTER_FILE`, next to the handler)
 * and keeps only the small global settings in `LEASE_WATCHDOG_SETTINGS`.
 *
 * Why the code and not each schedule's input: a file in the code holds any number of clusters
 * (a code package holds 250 MB; a schedule's input 8 KB), is read once per cold start, lets any
 * invocation find a cluster by its name alone (a re-check that names only the cluster, `aws
 * lambda invoke --payload '{"cluster":"x"}'`), and changes with the code in the same
 * `cdk deploy` (its content is part of the asset's hash). The function validates it with the
 * same schemas as the deployment file; secrets stay in Secrets Manager (only their ids are here).
 */
import { isDeployTimeValue } from './fields.js';

/** The file, next to the handler (`/var/task` in Lambda), that lists the clusters. */
export const CLUSTER_FILE = 'lease-watchdog-clusters.json';

/** The watchdog settings as the function receives them. */
export interface FunctionSettings {
  /**
   * `LEASE_WATCHDOG_SETTINGS`: every setting but the clusters, except a cluster that holds a
   * value known at deploy time only (a CDK token: `secret.secretArn`, a parameter), which
   * CloudFormation resolves in the environment but nothing resolves in a file.
   */
  readonly environment: string;
  /** The text of `CLUSTER_FILE`: `{"clusters": [...]}`, every other cluster with all its fields. */
  readonly clusterFile: string;
}

/** Splits validated watchdog settings into the environment's part and the cluster file's. */
export function functionSettingsOf(settings: {
  readonly clusters: readonly object[];
}): FunctionSettings {
  const { clusters, ...global } = settings;
  const atDeploy = clusters.filter((cluster) => holdsDeployTimeValue(cluster));
  const inFile = clusters.filter((cluster) => !holdsDeployTimeValue(cluster));
  return {
    environment: JSON.stringify(atDeploy.length === 0 ? global : { ...global, clusters: atDeploy }),
    clusterFile: JSON.stringify({ clusters: inFile }),
  };
}

function holdsDeployTimeValue(value: unknown): boolean {
  if (typeof value === 'string') return isDeployTimeValue(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(holdsDeployTimeValue);
}
