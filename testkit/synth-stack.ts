/**
 * The stack as `cdk synth` builds it from a deployment file (bundling skipped), for the infra tests
 * of one optional setting: the setting's fields over one EKS cluster and one address.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { buildStack } from '../infra/stack.js';
import { parseAppConfig } from '../lambda/settings/index.js';

export const ONE_CLUSTER = {
  account: '123456789012',
  region: 'eu-west-1',
  clusters: [{ name: 'prod-eu', auth: { mode: 'eks', clusterName: 'prod-eu-eks' } }],
  emails: ['oncall@example.com'],
};

/** The stack of `ONE_CLUSTER` with `input`'s fields over it, its template, and its logical ids. */
export function synthStack(input: object) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = buildStack(app, parseAppConfig({ ...ONE_CLUSTER, ...input }));
  const template = Template.fromStack(stack);
  const id = (construct: IConstruct): string =>
    stack.resolve(((construct.node.defaultChild ?? construct) as CfnElement).logicalId) as string;
  return { app, stack, template, id };
}

export interface TemplateJson {
  readonly Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
  readonly Outputs?: Record<string, unknown>;
  readonly Parameters?: Record<string, unknown>;
}

/**
 * The stack of a whole deployment file (bundling skipped), synthesized once: its own template and
 * those of its nested stacks (a fleet's), as CloudFormation receives them.
 */
export function synthDeployment(input: object) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = buildStack(app, parseAppConfig(input));
  const assembly = app.synth();
  const parent = assembly.getStackByName(stack.stackName).template as TemplateJson;
  const nested = readdirSync(assembly.directory)
    .filter((file) => file.endsWith('.nested.template.json'))
    .map(
      (file) => JSON.parse(readFileSync(join(assembly.directory, file), 'utf8')) as TemplateJson,
    );
  return { app, stack, parent, nested };
}
