/**
 * The guard against deploying placeholders, resting on the configuration alone. A configuration
 * still holding a name reserved for documentation (lambda/settings/placeholders.ts: the example's
 * oncall@example.com and k8s.edge-lab.example.com) synthesizes like any other, so `cdk synth`,
 * `cdk ls` and the tests keep showing the example; but its template carries a CloudFormation rule
 * that no stack operation passes. CloudFormation evaluates the `Rules` section before it creates
 * or updates any resource, and refuses the operation with the assertion's description as its
 * error: whatever deploys the template (`cdk deploy`, `cdk deploy --app cdk.out` after a synth, the
 * toolkit library, the console), with no look at which command runs the app.
 *
 * The assertion compares the stack's region (the pseudo parameter, resolved by CloudFormation at
 * deploy) with a name no region has, as the region rules AWS's own samples use do, rather than two
 * literals: the Rules pages document rules as checks of parameter values.
 */
import { Annotations, Aws, CfnRule, Fn } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { type DeploymentConfig, placeholderProblem } from '../lambda/settings/index.js';

/** What the rule compares the region with: no AWS region is named so. */
export const NO_REGION = 'not-deployable:placeholder-configuration';
/**
 * Adds the rule (and a synth-time warning saying so) when the configuration holds placeholders;
 * nothing otherwise.
 */
export function refuseDeployingPlaceholders(
  scope: Construct,
  config: Pick<DeploymentConfig, 'clusters' | 'emails' | 'alarmEmails'>,
): void {
  const problem = placeholderProblem(config);
  if (problem === undefined) return;
  new CfnRule(scope, 'PlaceholderConfiguration', {
    assertions: [
      {
        assert: Fn.conditionEquals(Aws.REGION, NO_REGION),
        // The one line CloudFormation refuses the deploy with.
        assertDescription: `lease-watchdog: not deployed: ${problem}`,
      },
    ],
  });
  Annotations.of(scope).addWarningV2(
    'lease-watchdog:placeholders',
    `lease-watchdog: synthesized, but CloudFormation will refuse to deploy it: ${problem}`,
  );
}
