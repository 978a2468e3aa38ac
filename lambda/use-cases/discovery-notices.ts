/**
 * What discovery's NOTICEs say: which cluster, where, what changed; and, for a cluster that
 * appeared, how the watchdog gets in: the access entry it made itself (`discover.grantAccess`),
 * or the one command line that makes it, and the RBAC its Kubernetes group needs.
 */
import type { ClusterAccess, DiscoveredRecord, StructuredLogger } from '../ports/index.js';
import { KUBERNETES_GROUP, type WatchdogSettings } from '../settings/index.js';

/** What granting access, or advising it, needs. */
export interface AccessDeps {
  readonly settings: WatchdogSettings;
  /** Lets the function into each cluster that appears (`discover.grantAccess`); none: advice. */
  readonly access?: ClusterAccess | undefined;
  /** The function's role, the principal of the access entry in its own account. */
  readonly functionRoleArn?: string | undefined;
  readonly logger: StructuredLogger;
}

/** Where a discovered cluster is, for people: `'prod' in eu-west-1 (through role …)`. */
function where(record: DiscoveredRecord): string {
  const { auth } = record.settings;
  if (auth.mode !== 'eks') return `'${record.name}'`;
  const through = auth.roleArn === undefined ? '' : ` through role ${auth.roleArn}`;
  return `EKS cluster '${auth.clusterName}' in ${auth.region ?? '?'}${through}`;
}

export function changeMessage(
  record: DiscoveredRecord,
  change: 'appeared' | 'deleted' | 'dropped',
): string {
  switch (change) {
    case 'appeared':
      return `${where(record)} is ACTIVE and matches discover: watched as '${record.name}'`;
    case 'deleted':
      return `${where(record)} is deleted (or being deleted): no longer watched, nothing pages for it`;
    case 'dropped':
      return `${where(record)} no longer matches discover (its tags, or it failed): no longer watched`;
  }
}

/** What a discovered cluster's tags set: `namespace kube-node-lease, exclude-selector none, …`. */
export function taggedSettings({ settings }: DiscoveredRecord): string {
  const { namespace, excludeSelector = 'none', runbookUrl = 'none' } = settings;
  return `namespace ${namespace}, exclude-selector ${excludeSelector}, runbook-url ${runbookUrl}`;
}

/** A watched cluster's tags changed what is watched since it was last said: what, or undefined. */
export function settingsChange(record: DiscoveredRecord): string | undefined {
  const now = taggedSettings(record);
  const said = record.announcedSettings;
  if (record.state !== 'watched' || record.announcedState !== 'watched') return undefined;
  if (said === undefined || said === now) return undefined;
  return `the tags of ${where(record)} changed what is watched: ${now} (was ${said})`;
}

/**
 * Two clusters (or more) discovery would watch under one name: which (their ARNs, the watched one
 * first), and the tag that gives the other a name of its own (`<name>-<its region>`, or
 * `-<its account>` when the region is the same).
 */
export function sameNameMessage(record: DiscoveredRecord): { message: string; advice: string } {
  const [watched = '', ...others] = record.sameName ?? [];
  const other = others[0] ?? '';
  const part = (arn: string, i: number) => arn.split(':')[i] ?? '';
  const suffix = part(other, 3) === part(watched, 3) ? part(other, 4) : part(other, 3);
  return {
    message:
      `EKS clusters ${[watched, ...others].join(' and ')} share the name '${record.name}': ` +
      `only ${watched} is watched`,
    advice:
      `give the other a name of its own with the tag lease-watchdog/name, in its account: ` +
      `aws eks tag-resource --region ${part(other, 3)} --resource-arn ${other} ` +
      `--tags lease-watchdog/name=${record.name}-${suffix}`,
  };
}

/** What binds the access entry's group to the reads the watchdog needs, in the cluster. */
const RBAC = `kubectl apply -f deploy/rbac.yaml (in that cluster: group ${KUBERNETES_GROUP})`;

/**
 * For a cluster that appeared: when the function let itself in (`grantAccess`), the RBAC to apply
 * unless the cluster has it; else the command to run (with why the grant failed, when it was tried).
 */
export async function accessAdvice(
  deps: AccessDeps,
  record: DiscoveredRecord,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const { auth } = record.settings;
  if (auth.mode !== 'eks') return undefined;
  // Who reads the cluster: the role its account is reached through, else the function's role.
  const principal = auth.roleArn || deps.functionRoleArn || '<FunctionRoleArn>';
  // The one line that lets it read the cluster (run in the cluster's account): its access entry in
  // the Kubernetes group deploy/rbac.yaml binds (Leases, Nodes, node Events; no Secrets).
  const at = `--cluster-name ${auth.clusterName} --region ${auth.region ?? '<region>'} --principal-arn ${principal}`;
  const command = `aws eks create-access-entry ${at} --kubernetes-groups ${KUBERNETES_GROUP} && ${RBAC}`;
  if (deps.access === undefined || !deps.settings.discover?.grantAccess) {
    return `unless the watchdog already has access: ${command}`;
  }
  try {
    await deps.access.grant(
      { clusterName: auth.clusterName, region: auth.region ?? '', roleArn: auth.roleArn },
      principal,
      signal,
    );
    deps.logger.info('discovery granted the watchdog access', { cluster: record.name });
    return `the watchdog made its access entry; unless the cluster has deploy/rbac.yaml: ${RBAC}`;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return `the watchdog could not grant itself access (${why}); run: ${command}`;
  }
}
