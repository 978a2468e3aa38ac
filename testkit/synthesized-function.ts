/**
 * The watchdog function of a deployment as `cdk synth` stages it: the stack built from `config`
 * in an app writing to `outdir`, and of its function the asset directory (the bundle and what
 * lies beside it), the environment and the memory. What the bundle's test and `npm run
 * bench:function` run, in a process of their own, as Lambda would.
 */
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildStack } from '../infra/stack.js';
import type { AppDeploymentConfig } from '../lambda/settings/index.js';

export interface SynthesizedFunction {
  /** The staged asset's directory. */
  readonly asset: string;
  /** Its handler bundle (`index.mjs`). */
  readonly bundle: string;
  /** The function's environment as the template sets it (a resource's is a CloudFormation reference). */
  readonly variables: Record<string, unknown>;
  readonly memoryMb: number;
  /** The stack's template (its alarms, queues, …). */
  readonly template: Template;
}

export function synthesizeFunction(
  outdir: string,
  config: AppDeploymentConfig,
): SynthesizedFunction {
  const app = new App({ outdir });
  const template = Template.fromStack(buildStack(app, config));
  const assembly = app.synth();
  const [fn] = Object.values(template.findResources('AWS::Lambda::Function'));
  const s3Key = fn?.Properties.Code.S3Key as string;
  const asset = join(assembly.directory, `asset.${s3Key.replace(/\.zip$/, '')}`);
  return {
    asset,
    bundle: join(asset, 'index.mjs'),
    variables: fn?.Properties.Environment.Variables as Record<string, unknown>,
    memoryMb: fn?.Properties.MemorySize as number,
    template,
  };
}
