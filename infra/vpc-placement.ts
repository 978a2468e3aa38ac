/**
 * Places the function in a VPC: the construct takes the VPC, subnets and security groups as CDK
 * objects; the deployment file's ids are imported by attributes (`importVpcPlacement`), so synth
 * stays offline.
 */
import { Fn, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { DeploymentConfig } from '../lambda/settings/index.js';

export type VpcPlacementProps = Pick<lambda.FunctionProps, 'vpc' | 'vpcSubnets' | 'securityGroups'>;

/** Where the function runs: a VPC, and optionally which of its subnets and security groups. */
export interface VpcPlacement {
  readonly vpc: ec2.IVpc;
  /** Default: Lambda's choice, the VPC's private subnets. */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** Default: a new security group in the VPC, all egress, no ingress. */
  readonly securityGroups?: readonly ec2.ISecurityGroup[];
}

/**
 * The function's VPC properties (undefined without a placement), giving the role what Lambda
 * needs to manage its ENIs there.
 */
export function placeInVpc(
  placement: VpcPlacement | undefined,
  role: iam.Role,
): VpcPlacementProps | undefined {
  if (placement === undefined) return undefined;
  role.addManagedPolicy(
    iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaVPCAccessExecutionRole'),
  );
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
    reason:
      'Lambda needs to create, describe and delete its ENIs in the configured subnets; AWS maintains this policy for exactly that, and ec2:Describe* cannot be scoped to a resource.',
  });
  const { vpc, vpcSubnets, securityGroups } = placement;
  return {
    vpc,
    ...(vpcSubnets === undefined ? {} : { vpcSubnets }),
    ...(securityGroups === undefined ? {} : { securityGroups: [...securityGroups] }),
  };
}

/**
 * The deployment file's `vpc` as CDK objects imported into `scope` (ids `Vpc`, `Subnet<i>`,
 * `SecurityGroup<i>`); undefined without one.
 */
export function importVpcPlacement(
  scope: Construct,
  config: Pick<DeploymentConfig, 'vpc'>,
): VpcPlacement | undefined {
  if (config.vpc === undefined) return undefined;
  const { vpcId, subnetIds, securityGroupIds } = config.vpc;
  // Attributes, not lookups: synth stays offline.
  const vpc = ec2.Vpc.fromVpcAttributes(scope, 'Vpc', { vpcId, availabilityZones: Fn.getAzs() });
  const subnets = subnetIds.map((subnetId, i) =>
    ec2.Subnet.fromSubnetId(scope, `Subnet${i}`, subnetId),
  );
  const placement: VpcPlacement = { vpc, vpcSubnets: { subnets } };
  if (securityGroupIds === undefined) return placement;
  return {
    ...placement,
    securityGroups: securityGroupIds.map((sgId, i) =>
      ec2.SecurityGroup.fromSecurityGroupId(scope, `SecurityGroup${i}`, sgId, { mutable: false }),
    ),
  };
}
