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
 * same schemas as the deployment file, unless the file vouches for them (`vouchesFor`); secrets
 * stay in Secrets Manager (only their ids are here).
 */
import { createHash } from 'node:crypto';
import { isDeployTimeValue } from './field-checks.js';

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
  /**
   * The text of `CLUSTER_FILE`: `{"clusters": [...], "validatedSha256": "…"}`, every other
   * cluster with all its fields, and the digest that vouches for the two (`vouchesFor`).
   */
  readonly clusterFile: string;
}

/**
 * Splits validated watchdog settings (parse.ts's output, every default filled in) into the
 * environment's part and the cluster file's, and vouches in the file for the two together.
 */
export function functionSettingsOf(settings: {
  readonly clusters: readonly object[];
}): FunctionSettings {
  const { clusters, ...global } = settings;
  const atDeploy = clusters.filter((cluster) => holdsDeployTimeValue(cluster));
  const inFile = clusters.filter((cluster) => !holdsDeployTimeValue(cluster));
  const environment = JSON.stringify(
    atDeploy.length === 0 ? global : { ...global, clusters: atDeploy },
  );
  return {
    environment,
    clusterFile: JSON.stringify({
      clusters: inFile,
      validatedSha256: settingsDigest(environment, inFile),
    }),
  };
}

/**
 * True when the cluster file's `validatedSha256` is the digest of `environment` (the text of
 * LEASE_WATCHDOG_SETTINGS) and the file's clusters: the two are exactly what `cdk synth`
 * validated and wrote, so the cold start need not validate them again. An environment changed
 * by hand, or a cluster value CloudFormation resolved into it, no longer matches. Not a
 * signature: whoever can change the function can change both; it only spares the work.
 */
export function vouchesFor(
  file: { readonly clusters: readonly unknown[]; readonly validatedSha256?: unknown },
  environment: string,
): boolean {
  return file.validatedSha256 === settingsDigest(environment, file.clusters);
}

function settingsDigest(environment: string, clusters: readonly unknown[]): string {
  return createHash('sha256')
    .update(environment)
    .update('\n')
    .update(JSON.stringify(clusters))
    .digest('hex');
}

function holdsDeployTimeValue(value: unknown): boolean {
  if (typeof value === 'string') return isDeployTimeValue(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(holdsDeployTimeValue);
}
