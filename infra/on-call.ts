/**
 * The paging tools' keys (`pagerDuty`): `secretsmanager:GetSecretValue` on exactly the secret that
 * holds the routing key, nothing without it. The key itself never reaches the template: the
 * function reads it at run time (lambda/adapters/on-call/secret-key.ts).
 */
import { Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { DeploymentConfig } from '../lambda/settings/index.js';
import { secretArns, secretArnsAtDeploy } from './cluster-access.js';

/** Allows the function to read the PagerDuty routing-key secret. */
export function grantOnCallSecrets(
  scope: Construct,
  fn: lambda.Function,
  config: Pick<DeploymentConfig, 'pagerDuty'>,
): void {
  const secretId = config.pagerDuty?.routingKeySecret;
  if (secretId === undefined) return;
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      sid: 'ReadPagerDutyRoutingKey',
      actions: ['secretsmanager:GetSecretValue'],
      resources: Token.isUnresolved(secretId)
        ? secretArnsAtDeploy(scope, secretId, 'PagerDuty')
        : secretArns(scope, secretId),
    }),
  );
}
