/**
 * Discovery's part of the stack (`discover`): its own schedule (`{"discover": true}` every
 * `discover.everyMinutes`), and exactly what it calls: eks:ListClusters (no resource-level
 * permission: `*`) and eks:DescribeCluster on the clusters of the searched regions of this
 * account, sts:AssumeRole on each `discover.accounts` role alone, and, with `grantAccess`,
 * eks:CreateAccessEntry on the clusters that carry the filter's tags, for its own role in the
 * Kubernetes group deploy/rbac.yaml binds, and no access policy (Service Authorization
 * Reference, Amazon EKS: https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonelastickubernetesservice.html).
 */
import { Duration, Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  type DeploymentConfig,
  type DiscoverSettings,
  KUBERNETES_GROUP,
  RUNTIME_ENV,
} from '../lambda/settings/index.js';
import { InvokeFunction } from './schedules.js';

export interface DiscoveryResources {
  readonly schedule: scheduler.Schedule;
}

/** Creates `DiscoverySchedule` and grants discovery's calls, when `discover` is set. */
export function createDiscovery(
  scope: Construct,
  fn: lambda.Function,
  role: iam.Role,
  config: Pick<DeploymentConfig, 'discover'>,
  schedules: { readonly schedulerRole: iam.Role; readonly deadLetterQueue: sqs.Queue },
): DiscoveryResources | undefined {
  const { discover } = config;
  if (discover === undefined) return undefined;
  fn.addEnvironment(RUNTIME_ENV.functionRoleArn, role.roleArn);
  const stack = Stack.of(scope);
  const clusters = discover.regions.map((region) =>
    stack.formatArn({ service: 'eks', resource: 'cluster', resourceName: '*', region }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'DiscoverListEksClusters',
      actions: ['eks:ListClusters'],
      resources: ['*'],
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'DiscoverDescribeEksClusters',
      actions: ['eks:DescribeCluster'],
      resources: clusters,
    }),
  );
  const roles = (discover.accounts ?? []).map((account) => account.roleArn);
  if (roles.length > 0) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'DiscoverAssumeAccountRoles',
        actions: ['sts:AssumeRole'],
        resources: roles,
      }),
    );
  }
  if (discover.grantAccess) grantSelfAccess(role, clusters, discover);
  acknowledgeWildcards(role, discover, stack);
  const schedule = new scheduler.Schedule(scope, 'DiscoverySchedule', {
    description: 'lease-watchdog: discover the EKS clusters to watch',
    schedule: scheduler.ScheduleExpression.rate(Duration.minutes(discover.everyMinutes)),
    target: new InvokeFunction(fn, {
      role: schedules.schedulerRole,
      input: scheduler.ScheduleTargetInput.fromObject({ discover: true }),
      deadLetterQueue: schedules.deadLetterQueue,
      maxEventAge: Duration.minutes(2),
      retryAttempts: 2,
    }),
  });
  return { schedule };
}

/**
 * `grantAccess`: the function may create its own access entry (eks:principalArn), STANDARD, in the
 * Kubernetes group deploy/rbac.yaml binds and no other (eks:kubernetesGroups, present), under no
 * username of its choosing (eks:username absent), on the clusters that carry every tag of the
 * filter (aws:ResourceTag on the `cluster` resource). No access policy is associated: none is
 * narrower than AmazonEKSAdminViewPolicy and enough, and that one reads Secrets
 * (lambda/settings/access-policy.ts). Condition keys per action and resource type: the Service
 * Authorization Reference's "Actions, resources, and condition keys for Amazon Elastic Kubernetes
 * Service" (docs/DEPLOY.md links it).
 */
function grantSelfAccess(role: iam.Role, clusters: string[], discover: DiscoverSettings): void {
  const tags = Object.entries(discover.tags ?? {}).map(([k, v]) => [`aws:ResourceTag/${k}`, v]);
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'DiscoverCreateOwnAccessEntry',
      actions: ['eks:CreateAccessEntry'],
      resources: clusters,
      conditions: {
        ArnEquals: { 'eks:principalArn': role.roleArn },
        StringEquals: { 'eks:accessEntryType': 'STANDARD', ...Object.fromEntries(tags) },
        'ForAllValues:StringEquals': { 'eks:kubernetesGroups': [KUBERNETES_GROUP] },
        Null: { 'eks:kubernetesGroups': 'false', 'eks:username': 'true' },
      },
    }),
  );
}

/** Tells cdk-nag why discovery names every cluster of a region: which exist is what it finds out. */
function acknowledgeWildcards(role: iam.Role, discover: DiscoverSettings, stack: Stack): void {
  const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
  // A stack with its region set knows its partition (`aws`): cdk-nag names the literal then.
  const partition = Token.isUnresolved(stack.partition) ? '<AWS::Partition>' : stack.partition;
  for (const region of discover.regions) {
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:${partition}:eks:${region}:${account}:cluster/*]`,
      reason:
        "Discovery: the clusters of a searched region are not known at deploy, finding them is its job; eks:DescribeCluster is read-only, and with grantAccess eks:CreateAccessEntry needs the filter's tags on the cluster, the function's own role as principal and the read-only Kubernetes group of deploy/rbac.yaml.",
    });
  }
}
