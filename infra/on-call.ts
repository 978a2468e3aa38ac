/**
 * The paging receivers' keys (lambda/adapters/on-call/receivers.ts): `secretsmanager:GetSecretValue`
 * on exactly the secret that holds each key of each receiver switched on, nothing without it. The keys themselves never reach the
 * template: the function reads them at run time (lambda/adapters/on-call/secret-key.ts).
 */
import { Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { RECEIVERS } from '../lambda/adapters/on-call/receivers.js';
import type { DeploymentConfig } from '../lambda/settings/index.js';
import { secretArns, secretArnsAtDeploy } from './cluster-access.js';

/** Allows the function to read each key secret of the receivers switched on (`Read<label><key>`). */
export function grantOnCallSecrets(
  scope: Construct,
  fn: lambda.Function,
  config: DeploymentConfig,
): void {
  for (const row of RECEIVERS) {
    const settings = row.settingsOf(config);
    if (settings === undefined) continue;
    for (const [what, secret] of Object.entries(row.secrets(settings))) {
      grantSecret(scope, fn, secret, row.label, what);
    }
  }
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
