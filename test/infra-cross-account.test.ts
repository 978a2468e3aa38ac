/**
 * `eks` clusters in other accounts (`auth.roleArn`) in the synthesized template: `sts:AssumeRole`
 * on exactly those roles, no access entry and no eks:DescribeCluster of this account for them,
 * the same-account cluster unchanged; and the settings' one-line refusals.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildStack } from '../infra/stack.js';
import { parseAppConfig } from '../lambda/settings/index.js';

const ROLE_A = 'arn:aws:iam::210987654321:role/lease-watchdog-reader';
const ROLE_B = 'arn:aws:iam::333344445555:role/platform/lease-watchdog-reader';
const base = {
  account: '123456789012',
  region: 'eu-west-1',
  emails: ['oncall@example.com'],
  clusters: [
    { name: 'local', auth: { mode: 'eks', clusterName: 'local-eks' } },
    { name: 'remote-a', auth: { mode: 'eks', clusterName: 'prod-a', roleArn: ROLE_A } },
    {
      name: 'remote-b',
      auth: { mode: 'eks', clusterName: 'prod-b', region: 'us-east-1', roleArn: ROLE_B },
    },
  ],
};

function synth(input: object) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = buildStack(app, parseAppConfig(input));
  return { app, template: Template.fromStack(stack) };
}

type Statement = { Sid?: string; Action: string | string[]; Resource: unknown };

function statements(template: Template): Statement[] {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
  );
}

const allowing = (template: Template, action: string) =>
  statements(template).filter((s) => ([] as string[]).concat(s.Action).includes(action));

describe('clusters[].auth.roleArn (eks in another account)', () => {
  let s: ReturnType<typeof synth>;
  before(() => {
    s = synth(base);
  });

  test('sts:AssumeRole on exactly the configured roles, one statement each', () => {
    assert.deepEqual(
      allowing(s.template, 'sts:AssumeRole').map((x) => [x.Sid, x.Resource]),
      [
        ['Cluster1AssumeRole', ROLE_A],
        ['Cluster2AssumeRole', ROLE_B],
      ],
    );
  });

  test('eks:DescribeCluster only on the same-account cluster (the role reads the others)', () => {
    const describe = allowing(s.template, 'eks:DescribeCluster');
    assert.deepEqual(
      describe.map((x) => x.Sid),
      ['Cluster0DescribeEksCluster'],
    );
    assert.match(JSON.stringify(describe[0]?.Resource), /cluster\/local-eks/);
  });

  test('the access entry exists for the same-account cluster only', () => {
    s.template.resourceCountIs('AWS::EKS::AccessEntry', 1);
    s.template.hasResourceProperties('AWS::EKS::AccessEntry', {
      ClusterName: 'local-eks',
      KubernetesGroups: ['lease-watchdog'],
    });
  });

  test('cdk-nag finds nothing', () => {
    const report = new AwsSolutionsChecks().validateScope(s.app);
    assert.deepEqual(
      report.violations.flatMap((v) =>
        v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`),
      ),
      [],
    );
  });

  test('without roleArn: no sts:AssumeRole at all', () => {
    const plain = synth({ ...base, clusters: [base.clusters[0]] });
    assert.deepEqual(allowing(plain.template, 'sts:AssumeRole'), []);
  });

  test('accessEntry: true with roleArn is refused in one line', () => {
    const clusters = [{ ...base.clusters[1], accessEntry: true }];
    assert.throws(
      () => parseAppConfig({ ...base, clusters }),
      (error: Error) =>
        error.name === 'ConfigError' &&
        error.message ===
          'clusters[0].accessEntry must be false with auth.roleArn: cluster remote-a is reached through a role of its own account, where you create the access entry (docs/DEPLOY.md, "Clusters in other accounts")',
    );
  });

  test('a roleArn that is not an IAM role ARN is refused in one line', () => {
    const clusters = [
      {
        name: 'remote',
        auth: { mode: 'eks', roleArn: 'arn:aws:iam::210987654321:user/lease-watchdog' },
      },
    ];
    assert.throws(
      () => parseAppConfig({ ...base, clusters }),
      (error: Error) =>
        error.name === 'ConfigError' &&
        !error.message.includes('\n') &&
        error.message.startsWith(
          'clusters[0].auth.roleArn must be an IAM role ARN like arn:aws:iam::210987654321:role/lease-watchdog-reader (got ',
        ),
    );
  });
});
