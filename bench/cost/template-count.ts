/**
 * What the bills (bench/cost/bill.ts, bench/cost/fleet-bill.ts) count: the resources billed by the
 * month in a synthesized deployment, and the measured per-cluster variable cost in COST.md.
 */
import { App, NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildStack } from '../../infra/stack.js';
import { parseAppConfig } from '../../lambda/settings/index.js';

/** The billable resources of one synthesized deployment. */
export interface Counted {
  readonly alarms: number;
  readonly kmsKeys: number;
  readonly dashboards: number;
  readonly polledQueues: number;
  readonly topics: number;
}

export const eks = (i: number) => ({
  name: `cluster-${i + 1}`,
  auth: { mode: 'eks', clusterName: `cluster-${i + 1}`, region: 'us-east-1' },
});

/** Synthesizes the stack for a configuration (no bundling) and counts what is billed monthly. */
export function count(config: Record<string, unknown>): Counted {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = buildStack(
    app,
    parseAppConfig({ account: '123456789012', region: 'us-east-1', ...config }),
  );
  const stacks: Stack[] = [
    stack,
    ...stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack),
  ];
  const total = (type: string) =>
    stacks.reduce((n, s) => n + Object.keys(Template.fromStack(s).findResources(type)).length, 0);
  return {
    alarms: total('AWS::CloudWatch::Alarm'),
    kmsKeys: total('AWS::KMS::Key'),
    dashboards: total('AWS::CloudWatch::Dashboard'),
    polledQueues: total('AWS::Lambda::EventSourceMapping'),
    topics: total('AWS::SNS::Topic'),
  };
}

/** A line's 1,000-node cell of bench:cost's per-cluster table in COST.md, in dollars. */
export function perClusterAt1000(doc: string, label: string): number {
  const cells = (row: string) =>
    (doc.split('\n').find((l) => l.replaceAll('*', '').startsWith(`| ${row} |`)) ?? '')
      .split('|')
      .slice(2, -1)
      .map((c) => c.replaceAll('*', '').trim());
  const column = cells('per cluster-month').indexOf('1,000 nodes');
  const value = Number(cells(label)[column]?.replace('$', ''));
  if (!Number.isFinite(value) || column < 0)
    throw new Error(`COST.md has no 1,000-node "${label}": run npm run bench:cost`);
  return value;
}

/** The per-cluster variable cost at 1,000 nodes, from bench:cost's table in COST.md. */
export function variablePerCluster(doc: string): number {
  return perClusterAt1000(doc, 'variable total (the goal)');
}
