/**
 * Where each cluster's own resources live (its schedule, its dead-man's switch, its EKS access
 * entry): a fleet does not fit one CloudFormation stack (500 resources; three per `eks` cluster).
 *
 * Up to `CLUSTERS_IN_ONE_STACK` clusters they are in the construct's own scope, with the logical
 * ids they always had: a deployment of that size updates in place. Above it, each cluster's
 * resources go into one of `CLUSTER_STACKS` nested stacks (`Clusters<k>`), chosen by a hash of
 * its name: adding or removing a cluster never moves another one (a move would replace its
 * schedule and alarm, and fail on its access entry, which EKS allows once per cluster and role).
 * The function, its role, the topic and the deployment-wide alarms stay in the parent stack.
 */
import { createHash } from 'node:crypto';
import { NestedStack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ConfigError } from '../lambda/settings/index.js';

/** Up to this many clusters, no nested stack: ~3 resources each plus ~30 of the deployment's. */
export const CLUSTERS_IN_ONE_STACK = 100;
/** How many nested stacks the clusters are spread over above `CLUSTERS_IN_ONE_STACK`. */
export const CLUSTER_STACKS = 16;
/**
 * At most this many clusters in one nested stack: 3 resources each (450) stays under
 * CloudFormation's 500 resources, and one output each (its alarm's ARN, which the parent's
 * dashboard shows) under its 200 outputs. 16 stacks fill up near ~1,600 clusters.
 */
export const MAX_CLUSTERS_PER_STACK = 150;

/** The nested stack (0 to CLUSTER_STACKS - 1) of a cluster: the same for the same name, always. */
export function clusterStackOf(name: string): number {
  return createHash('sha256').update(name).digest().readUInt32BE(0) % CLUSTER_STACKS;
}

export interface ClusterScopes {
  /** Whether the clusters are spread over nested stacks. */
  readonly nested: boolean;
  /** The scope of a cluster's own resources. */
  scopeOf(name: string): Construct;
}

/** Decides the layout for these clusters; creates the nested stacks that hold any. */
export function clusterScopes(
  scope: Construct,
  clusters: readonly { readonly name: string }[],
): ClusterScopes {
  if (clusters.length <= CLUSTERS_IN_ONE_STACK) return { nested: false, scopeOf: () => scope };
  const counts = new Map<number, number>();
  for (const { name } of clusters) {
    const k = clusterStackOf(name);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  for (const [k, count] of counts) {
    if (count > MAX_CLUSTERS_PER_STACK) {
      throw new ConfigError(
        `${count} clusters fall into nested stack Clusters${k}, more than the ${MAX_CLUSTERS_PER_STACK} one stack holds; split the clusters across deployments (stackName)`,
      );
    }
  }
  const stacks = new Map<number, NestedStack>();
  const stackOf = (k: number): NestedStack => {
    const existing = stacks.get(k);
    if (existing) return existing;
    const created = new NestedStack(scope, `Clusters${k}`, {
      description: `lease-watchdog: the schedules, dead-man's switches and access entries of clusters ${k} of ${CLUSTER_STACKS}`,
    });
    stacks.set(k, created);
    return created;
  };
  return { nested: true, scopeOf: (name) => stackOf(clusterStackOf(name)) };
}
