/** Places the function in the configured VPC: imported by attributes, so synth stays offline. */
import { Fn, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { DeploymentConfig } from '../lambda/settings/index.js';

export type VpcPlacementProps = Pick<lambda.FunctionProps, 'vpc' | 'vpcSubnets' | 'securityGroups'>;

/**
 * The function's VPC properties (undefined without `vpc`), importing the VPC, subnets and security
 * groups into the given scope, and giving the role what Lambda needs to manage its ENIs there.
 */
export function placeInVpc(
  scope: Construct,
  config: Pick<DeploymentConfig, 'vpc'>,
  role: iam.Role,
): VpcPlacementProps | undefined {
  const placement = importPlacement(scope, config);
  if (placement === undefined) return undefined;
  role.addManagedPolicy(
    iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaVPCAccessExecutionRole'),
  );
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
    reason:
      'Lambda needs to create, describe and delete its ENIs in the configured subnets; AWS maintains this policy for exactly that, and ec2:Describe* cannot be scoped to a resource.',
  });
  return placement;
}

function importPlacement(
  scope: Construct,
  config: Pick<DeploymentConfig, 'vpc'>,
): VpcPlacementProps | undefined {
  if (config.vpc === undefined) return undefined;
  const { vpcId, subnetIds, securityGroupIds } = config.vpc;
  // Attributes, not lookups: synth stays offline.
  const vpc = ec2.Vpc.fromVpcAttributes(scope, 'Vpc', { vpcId, availabilityZones: Fn.getAzs() });
  const subnets = subnetIds.map((subnetId, i) =>
    ec2.Subnet.fromSubnetId(scope, `Subnet${i}`, subnetId),
  );
  const placement: VpcPlacementProps = { vpc, vpcSubnets: { subnets } };
  if (securityGroupIds !== undefined) {
    return {
      ...placement,
      securityGroups: securityGroupIds.map((sgId, i) =>
        ec2.SecurityGroup.fromSecurityGroupId(scope, `SecurityGroup${i}`, sgId, {
          mutable: false,
        }),
      ),
    };
  }
  return placement;
}
