/**
 * Where each watched cluster lives, for what the notifications advise and where a FIRING's evidence
 * is read: its AWS region and account (awsPlaceOf), how an on-call engineer reaches it with kubectl
 * (kubeAccessOf), and the render context the notifiers ask for by cluster name.
 */

import type { AwsPlace, KubeAccess } from '../adapters/notify/render/advice.js';
import type { RenderContext } from '../adapters/notify/render/body.js';
import { accountOfArn } from '../core/aws-instance.js';
import type { ClusterSettings } from '../settings/index.js';

/** The function's own account, as the invocation's ARN names it (set at each invocation). */
export interface FunctionAccount {
  id?: string | undefined;
}

/** Per cluster name: where it lives, and what the renderers advise from. */
export interface ClusterPlaces {
  /** Where an `eks` cluster lives in AWS (undefined: another kind of cluster, or not configured). */
  awsPlace(name: string): AwsPlace | undefined;
  /** Its lease namespace, its kubectl access, its AWS place, its runbook. */
  renderContext(name: string): RenderContext;
}

export function clusterPlaces(
  clusters: readonly ClusterSettings[],
  functionRegion: string,
  functionAccount: FunctionAccount,
  /** A cluster not listed (a discovered one), by name. */
  more: (name: string) => ClusterSettings | undefined = () => undefined,
): ClusterPlaces {
  const listed = new Map(clusters.map((c) => [c.name, c]));
  const settingsOf = (name: string) => listed.get(name) ?? more(name);
  // An `eks` cluster is in the function's account (known once invoked), or in its role's account;
  // other clusters' account is unknown.
  const awsPlace = (name: string) => {
    const cluster = settingsOf(name);
    return cluster && awsPlaceOf(cluster, functionRegion, functionAccount.id);
  };
  const renderContext = (name: string) => {
    const cluster = settingsOf(name);
    return {
      namespace: cluster?.namespace,
      kube: cluster && kubeAccessOf(cluster, functionRegion),
      aws: awsPlace(name),
      runbookUrl: cluster?.runbookUrl,
    };
  };
  return { awsPlace, renderContext };
}

/**
 * Where an `eks` cluster lives in AWS: its region (its setting, else the function's) and account
 * (its `roleArn`'s account for a cluster in another account, else the function's own, `account`).
 * Other clusters: undefined (the email derives the region from the nodes' zones; the account is
 * unknown).
 */
export function awsPlaceOf(
  cluster: Pick<ClusterSettings, 'auth'>,
  functionRegion: string,
  account: string | undefined,
): AwsPlace | undefined {
  const { auth } = cluster;
  if (auth.mode !== 'eks') return undefined;
  const owner = auth.roleArn === undefined ? account : accountOfArn(auth.roleArn);
  return { region: auth.region ?? functionRegion, ...(owner ? { account: owner } : {}) };
}

/**
 * How an on-call engineer reaches a cluster with kubectl, for the commands the emails advise: the
 * EKS cluster (the email first says how to make its kubeconfig context), or the kubeconfig context
 * the settings name; nothing for a bearer token (the engineer's own context is not known).
 */
export function kubeAccessOf(
  cluster: Pick<ClusterSettings, 'auth'>,
  functionRegion: string,
): KubeAccess | undefined {
  const { auth } = cluster;
  if (auth.mode === 'eks') {
    return { eks: { clusterName: auth.clusterName, region: auth.region ?? functionRegion } };
  }
  if (auth.mode === 'kubeconfig' && auth.context !== undefined) return { context: auth.context };
  return undefined;
}
