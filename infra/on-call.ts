/**
 * The paging tools' keys (`pagerDuty`, `opsgenie`): `secretsmanager:GetSecretValue` on exactly
 * the secret that holds each tool's key, nothing without it. The keys themselves never reach the
 * template: the function reads them at run time (lambda/adapters/on-call/secret-key.ts).
 */
import { Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { DeploymentConfig } from '../lambda/settings/index.js';
import { secretArns, secretArnsAtDeploy } from './cluster-access.js';

/** Allows the function to read the PagerDuty routing-key and the Opsgenie API-key secrets. */
export function grantOnCallSecrets(
  scope: Construct,
  fn: lambda.Function,
  config: Pick<DeploymentConfig, 'pagerDuty' | 'opsgenie'>,
): void {
  grantSecret(scope, fn, config.pagerDuty?.routingKeySecret, 'PagerDuty', 'RoutingKey');
  grantSecret(scope, fn, config.opsgenie?.apiKeySecret, 'Opsgenie', 'ApiKey');
}

/** `Read<tool><what>`: GetSecretValue on `secretId` (a name or an ARN); nothing when absent. */
function grantSecret(
  scope: Construct,
  fn: lambda.Function,
  secretId: string | undefined,
  tool: string,
  what: string,
): void {
  if (secretId === undefined) return;
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      sid: `Read${tool}${what}`,
      actions: ['secretsmanager:GetSecretValue'],
      resources: Token.isUnresolved(secretId)
        ? secretArnsAtDeploy(scope, secretId, tool)
        : secretArns(scope, secretId),
    }),
  );
}
