/**
 * Read access to the configured clusters, exactly what each cluster's auth mode needs: its secret,
 * or `eks:DescribeCluster` and (by default) an EKS access entry mapping the role to the Kubernetes
 * group that deploy/rbac.yaml binds; for an `eks` cluster with `roleArn` (another account),
 * `sts:AssumeRole` on that role alone (docs/DEPLOY.md, "Clusters in other accounts").
 */
import { Arn, ArnFormat, Aws, CfnCondition, Fn, Stack, Token, Validations } from 'aws-cdk-lib';
import { CfnAccessEntry } from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { ClusterAuth } from '../lambda/settings/index.js';
import { ConfigError, type DeployedCluster, KUBERNETES_GROUP } from '../lambda/settings/index.js';
import { accessEntryRegionProblem } from '../lambda/settings/parse.js';
import { idFor } from './construct-id.js';

/** The Kubernetes group the function's role is mapped to (bound by deploy/rbac.yaml). */
export { KUBERNETES_GROUP };

/**
 * Grants `role` read access to the cluster at `index` of the configuration (statement ids
 * `Cluster<index>…`); an access entry and its region condition are created in `scope`.
 */
export function grantClusterAccess(
  scope: Construct,
  role: iam.Role,
  cluster: DeployedCluster,
  index: number,
): void {
  const auth: ClusterAuth = cluster.auth;
  const sid = `Cluster${index}`;
  switch (auth.mode) {
    case 'kubeconfig':
    case 'token': {
      const secretId = auth.mode === 'kubeconfig' ? auth.secretId : auth.tokenSecretId;
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: `${sid}ReadSecret`,
          actions: ['secretsmanager:GetSecretValue'],
          resources: Token.isUnresolved(secretId)
            ? secretArnsAtDeploy(scope, secretId, sid)
            : secretArns(scope, secretId),
        }),
      );
      return;
    }
    case 'eks': {
      if (auth.roleArn !== undefined) {
        // Another account: the role there reads the cluster (eks:DescribeCluster and the access
        // entry are that account's); here only the right to assume it.
        role.addToPrincipalPolicy(
          new iam.PolicyStatement({
            sid: `${sid}AssumeRole`,
            actions: ['sts:AssumeRole'],
            resources: [auth.roleArn],
          }),
        );
        return;
      }
      const stack = Stack.of(scope);
      const clusterArn = stack.formatArn({
        service: 'eks',
        resource: 'cluster',
        resourceName: auth.clusterName,
        region: auth.region ?? stack.region,
      });
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: `${sid}DescribeEksCluster`,
          actions: ['eks:DescribeCluster'],
          resources: [clusterArn],
        }),
      );
      if (cluster.accessEntry) addAccessEntry(scope, role, cluster, auth, index);
      return;
    }
  }
}

/**
 * A fleet's read access (above `CLUSTERS_IN_ONE_STACK` clusters): the same permissions as
 * `grantClusterAccess`, but statements of up to `ARNS_PER_STATEMENT` EKS clusters
 * (`ClustersDescribeEks<n>`) and secrets named at synth (`ClustersReadSecrets<n>`) instead of one
 * per cluster, whose sids alone would fill IAM's 10,240 characters of a role's inline policies
 * near 150 clusters. Access
 * entries (and their region conditions) go where `scopeOf` puts the cluster.
 *
 * Secrets named under the stack's own prefix (`lease-watchdog/<stack name>/…`, by name or ARN:
 * fleetSecretsPrefix) are read by that prefix, one ARN for all of a region and account
 * (`…:secret:lease-watchdog/<stack name>/*`), instead of one each: 1,000 ARNs would take more
 * managed policies than a role holds (docs/FLEET.md). Another deployment's secrets (staging beside
 * prod, in the same account and region) are under another prefix, out of this grant.
 *
 * `eksByRegion` (a dispatcher's fleet): eks:DescribeCluster on every cluster of the account in
 * each region the clusters are in (`cluster/*`) instead of one ARN each: 1,000 ARNs would take 16
 * managed policies of IAM's 6,144 characters, and a role takes 10 by default. DescribeCluster
 * reads a cluster's endpoint and CA, not its Kubernetes API (the access entry governs that), and
 * discovered clusters are not known at synth anyway.
 */
export function grantFleetAccess(
  role: iam.Role,
  clusters: readonly DeployedCluster[],
  scopeOf: (name: string) => Construct,
  { eksByRegion = false }: { readonly eksByRegion?: boolean } = {},
): void {
  const scope = role.node.scope ?? role;
  const eksArns: string[] = [];
  const roleArns: string[] = [];
  const secretResources: string[] = [];
  clusters.forEach((cluster, index) => {
    const auth: ClusterAuth = cluster.auth;
    if (auth.mode === 'eks' && auth.roleArn !== undefined) {
      // Another account: only the right to assume its role (as in grantClusterAccess).
      roleArns.push(auth.roleArn);
      return;
    }
    if (auth.mode === 'eks') {
      const stack = Stack.of(scope);
      eksArns.push(
        stack.formatArn({
          service: 'eks',
          resource: 'cluster',
          resourceName: eksByRegion ? '*' : auth.clusterName,
          region: auth.region ?? stack.region,
        }),
      );
      if (cluster.accessEntry) addAccessEntry(scopeOf(cluster.name), role, cluster, auth, index);
      return;
    }
    const secretId = auth.mode === 'kubeconfig' ? auth.secretId : auth.tokenSecretId;
    if (Token.isUnresolved(secretId)) {
      grantClusterAccess(scope, role, cluster, index);
      return;
    }
    secretResources.push(...fleetSecretArns(scope, secretId, fleetSecretsPrefix(scope)));
  });
  addChunked(role, 'ClustersDescribeEks', 'eks:DescribeCluster', [...new Set(eksArns)]);
  if (eksByRegion) acknowledgeClustersOfRegions(role, clusters);
  addChunked(role, 'ClustersAssumeRole', 'sts:AssumeRole', [...new Set(roleArns)]);
  const secrets = [...new Set(secretResources)];
  const prefix = fleetSecretsPrefix(scope);
  refuseTooManySecrets(secrets, prefix);
  addChunked(role, 'ClustersReadSecrets', 'secretsmanager:GetSecretValue', secrets);
  acknowledgeSecretsPrefix(role, secrets, prefix);
}

/**
 * ARNs per statement: ~60 ARNs (~4 KB) fit IAM's 6,144 characters of a managed policy, into which
 * CDK moves whole statements once the role's inline policy is full (it cannot split one).
 */
const ARNS_PER_STATEMENT = 60;

/** Where every deployment's fleet secrets are named: each stack's own prefix is under it. */
export const FLEET_SECRETS_PREFIX = 'lease-watchdog/';

/**
 * The name prefix under which a fleet's secrets are read by one grant (grantFleetAccess):
 * `lease-watchdog/<stack name>/`, the deployment's own. Keep only its cluster credentials there.
 */
export function fleetSecretsPrefix(scope: Construct): string {
  return `${FLEET_SECRETS_PREFIX}${Stack.of(scope).stackName}/`;
}

/**
 * Secret ARNs named one by one in a fleet at most: 8 statements of `ARNS_PER_STATEMENT`, leaving
 * the role's other statements room in its inline policy and 10 managed policies.
 */
export const MOST_SECRETS_ONE_BY_ONE = 8 * ARNS_PER_STATEMENT;

/**
 * A fleet's grant for one secret: `secretArns`, or the prefix's wildcard in the secret's region
 * and account when its name is under the stack's `prefix` (another stack's: its own ARN).
 */
function fleetSecretArns(scope: Construct, secretId: string, prefix: string): string[] {
  const parsed = secretId.startsWith('arn:')
    ? Arn.split(secretId, ArnFormat.COLON_RESOURCE_NAME)
    : undefined;
  const name = parsed === undefined ? secretId : parsed.resourceName;
  if (!name?.startsWith(prefix)) return secretArns(scope, secretId);
  if (parsed === undefined) return [secretArnOf(scope, `${prefix}*`)];
  return [Arn.format({ ...parsed, resourceName: `${prefix}*` })];
}

function refuseTooManySecrets(secrets: readonly string[], prefix: string): void {
  const oneByOne = secrets.filter((arn) => !arn.includes(`:secret:${prefix}*`));
  if (oneByOne.length <= MOST_SECRETS_ONE_BY_ONE) return;
  throw new ConfigError(
    `clusters: ${oneByOne.length} secret ARNs of token/kubeconfig clusters would be granted one by one, and the function's role holds at most ${MOST_SECRETS_ONE_BY_ONE}: name the secrets ${prefix}<anything> (read by one grant, docs/FLEET.md)`,
  );
}

/** Tells cdk-nag why the role may read every secret under the stack's prefix. */
function acknowledgeSecretsPrefix(role: iam.Role, secrets: readonly string[], prefix: string) {
  const stack = Stack.of(role);
  for (const arn of secrets) {
    if (!arn.includes(`:secret:${prefix}*`)) continue;
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${shownToNag(stack, arn)}]`,
      reason: `A fleet's secrets: secretsmanager:GetSecretValue (read-only) on the secrets named ${prefix}…, this stack's own place for the watchdog's cluster credentials, instead of one ARN per cluster, which for a thousand clusters would take more managed policies than a role holds.`,
    });
  }
}

/** Tells cdk-nag why the role may describe every EKS cluster of its regions (grantFleetAccess). */
function acknowledgeClustersOfRegions(role: iam.Role, clusters: readonly DeployedCluster[]): void {
  const stack = Stack.of(role);
  const shown = (value: string, pseudo: string) => (Token.isUnresolved(value) ? pseudo : value);
  const account = shown(stack.account, '<AWS::AccountId>');
  const partition = shown(stack.partition, '<AWS::Partition>');
  const regions = new Set(
    clusters.flatMap((c) =>
      c.auth.mode === 'eks' && c.auth.roleArn === undefined ? [c.auth.region ?? stack.region] : [],
    ),
  );
  for (const region of regions) {
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:${partition}:eks:${shown(region, '<AWS::Region>')}:${account}:cluster/*]`,
      reason:
        "A dispatcher's fleet: eks:DescribeCluster (read-only: a cluster's endpoint and CA) on the account's clusters of the region, instead of one ARN per cluster, which for a thousand clusters would take more managed policies than a role holds; reading a cluster's Kubernetes API still takes its access entry.",
    });
  }
}

/**
 * An ARN as cdk-nag names it in a finding: its tokens resolved, a `Ref` shown as `<Name>`
 * (`arn:<AWS::Partition>:…`).
 */
function shownToNag(stack: Stack, arn: string): string {
  const resolved: unknown = stack.resolve(arn);
  const parts = (resolved as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join']?.[1] ?? [resolved];
  return parts
    .map((part) => (typeof part === 'string' ? part : `<${(part as { Ref: string }).Ref}>`))
    .join('');
}

function addChunked(role: iam.Role, sid: string, action: string, arns: readonly string[]): void {
  for (let start = 0; start < arns.length; start += ARNS_PER_STATEMENT) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: `${sid}${start / ARNS_PER_STATEMENT}`,
        actions: [action],
        resources: arns.slice(start, start + ARNS_PER_STATEMENT),
      }),
    );
  }
}

function addAccessEntry(
  scope: Construct,
  role: iam.Role,
  cluster: DeployedCluster,
  auth: ClusterAuth & { mode: 'eks' },
  index: number,
): void {
  const stack = Stack.of(scope);
  const stackRegion = Token.isUnresolved(stack.region) ? undefined : stack.region;
  const regionKnown = auth.region !== undefined && !Token.isUnresolved(auth.region);
  const problem = regionKnown ? accessEntryRegionProblem(cluster, index, stackRegion) : undefined;
  if (problem !== undefined) throw new ConfigError(problem);
  const entry = new CfnAccessEntry(scope, `AccessEntry-${idFor(cluster.name)}`, {
    clusterName: auth.clusterName,
    principalArn: role.roleArn,
    kubernetesGroups: [KUBERNETES_GROUP],
    type: 'STANDARD',
  });
  if (auth.region !== undefined && (stackRegion === undefined || !regionKnown)) {
    // An environment-agnostic stack (or a region given as a token) is known at deploy time only:
    // create the entry only in the cluster's region.
    entry.cfnOptions.condition = new CfnCondition(scope, `InClusterRegion-${idFor(cluster.name)}`, {
      expression: Fn.conditionEquals(stack.region, auth.region),
    });
  }
}

/**
 * The secret's ARNs for IAM. A name matches `<name>-??????` (Secrets Manager appends six random
 * characters); an ARN may be complete or partial, so both it and `<arn>-??????` are listed.
 */
export function secretArns(scope: Construct, secretId: string): string[] {
  if (secretId.startsWith('arn:')) {
    const parsed = Arn.split(secretId, ArnFormat.COLON_RESOURCE_NAME);
    if (parsed.service === 'secretsmanager') return [secretId, `${secretId}-??????`];
  }
  return [namedSecretArn(scope, secretId)];
}

function namedSecretArn(scope: Construct, name: string): string {
  return secretArnOf(scope, `${name}-??????`);
}

/** The ARN (or ARN pattern) of the secret `resourceName` in the stack's region and account. */
function secretArnOf(scope: Construct, resourceName: string): string {
  return Stack.of(scope).formatArn({
    service: 'secretsmanager',
    resource: 'secret',
    resourceName,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

/**
 * `secretArns` of a token (`secret.secretArn`, `secret.secretName`, a parameter), decided by
 * CloudFormation: an ARN when the value starts with `arn:` (condition `<sid>SecretIdIsArn`).
 */
export function secretArnsAtDeploy(scope: Construct, secretId: string, sid: string): string[] {
  const isArn = new CfnCondition(scope, `${sid}SecretIdIsArn`, {
    expression: Fn.conditionEquals(Fn.select(0, Fn.split(':', secretId)), 'arn'),
  });
  return [
    Token.asString(Fn.conditionIf(isArn.logicalId, secretId, namedSecretArn(scope, secretId))),
    Token.asString(Fn.conditionIf(isArn.logicalId, `${secretId}-??????`, Aws.NO_VALUE)),
  ];
}
