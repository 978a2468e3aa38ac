/**
 * `discover` in the synthesized template: discovery's own schedule (`{"discover": true}` every
 * `everyMinutes`), least privilege for what it calls (eks:ListClusters, eks:DescribeCluster on the
 * searched regions' clusters, sts:AssumeRole on exactly the accounts' roles), FUNCTION_ROLE_ARN,
 * and with `grantAccess` only eks:CreateAccessEntry on clusters carrying the filter's tags, in
 * the Kubernetes group deploy/rbac.yaml binds, no access policy; none of it without `discover`.
 * A deployment of discovery alone (no listed cluster) synthesizes, cdk-nag's AwsSolutions checks
 * (run by the synth) included.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Match } from 'aws-cdk-lib/assertions';
import { synthStack } from '../testkit/synth-stack.js';

const ROLE = 'arn:aws:iam::210987654321:role/lease-watchdog-discovery';
const discover = {
  regions: ['eu-west-1', 'us-east-1'],
  accounts: [{ roleArn: ROLE }],
  tags: { 'lease-watchdog': 'on' },
};

type Statement = {
  Sid?: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
};

function statements(template: ReturnType<typeof synthStack>['template']): Statement[] {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
  );
}

/** A resolved value with `Fn::Join`s of the partition flattened: `arn:aws:eks:…`. */
function flat(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(flat);
  if (value !== null && typeof value === 'object') {
    const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    if (join) {
      return join[1].map((part) => (typeof part === 'string' ? part : 'aws')).join(join[0]);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, flat(v)]));
  }
  return value;
}

const sids = (template: ReturnType<typeof synthStack>['template']) =>
  statements(template)
    .map((s) => s.Sid ?? '')
    .filter((sid) => sid.startsWith('Discover'));

describe('discover in the stack', () => {
  let s: ReturnType<typeof synthStack>;
  // Discovery alone, no listed cluster; synth runs cdk-nag's AwsSolutions and fails on a finding.
  before(() => {
    s = synthStack({ clusters: [], discover: { ...discover, grantAccess: true } });
  });

  test('its own schedule: {"discover": true} every 5 minutes, through the schedules\' role and queue', () => {
    s.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      Target: Match.objectLike({
        Input: JSON.stringify({ discover: true }),
        RetryPolicy: { MaximumEventAgeInSeconds: 120, MaximumRetryAttempts: 2 },
      }),
    });
    // Beside it, the fleet's dispatcher's one schedule (it dispatches the discovered clusters).
    const inputs = Object.values(s.template.findResources('AWS::Scheduler::Schedule')).map(
      (r) => Object.keys(JSON.parse(r.Properties.Target.Input))[0],
    );
    assert.deepEqual(inputs.sort(), ['discover', 'dispatch']);
  });

  test('least privilege: list anywhere (no resource-level permission), describe in the regions, assume the roles', () => {
    const byId = new Map(statements(s.template).map((x) => [x.Sid, flat(x) as Statement]));
    assert.deepEqual(byId.get('DiscoverListEksClusters')?.Resource, '*');
    assert.deepEqual(byId.get('DiscoverListEksClusters')?.Action, 'eks:ListClusters');
    assert.deepEqual(byId.get('DiscoverDescribeEksClusters')?.Resource, [
      'arn:aws:eks:eu-west-1:123456789012:cluster/*',
      'arn:aws:eks:us-east-1:123456789012:cluster/*',
    ]);
    assert.deepEqual(byId.get('DiscoverAssumeAccountRoles')?.Resource, ROLE);
    assert.deepEqual(sids(s.template), [
      'DiscoverListEksClusters',
      'DiscoverDescribeEksClusters',
      'DiscoverAssumeAccountRoles',
      'DiscoverCreateOwnAccessEntry',
    ]);
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ FUNCTION_ROLE_ARN: Match.anyValue() }) },
    });
  });

  test('grantAccess: its own access entry on clusters tagged as the filter says, in the read-only group of deploy/rbac.yaml, no access policy', () => {
    const byId = new Map(statements(s.template).map((x) => [x.Sid, flat(x) as Statement]));
    assert.deepEqual(byId.get('DiscoverCreateOwnAccessEntry'), {
      Sid: 'DiscoverCreateOwnAccessEntry',
      Effect: 'Allow',
      Action: 'eks:CreateAccessEntry',
      Resource: [
        'arn:aws:eks:eu-west-1:123456789012:cluster/*',
        'arn:aws:eks:us-east-1:123456789012:cluster/*',
      ],
      Condition: {
        ArnEquals: {
          'eks:principalArn': { 'Fn::GetAtt': ['WatchdogFunctionRoleE6149ED2', 'Arn'] },
        },
        StringEquals: { 'eks:accessEntryType': 'STANDARD', 'aws:ResourceTag/lease-watchdog': 'on' },
        'ForAllValues:StringEquals': { 'eks:kubernetesGroups': ['lease-watchdog'] },
        Null: { 'eks:kubernetesGroups': 'false', 'eks:username': 'true' },
      },
    });
    // No access policy: AmazonEKSAdminViewPolicy, the only one with Nodes and Leases, reads Secrets.
    const all = JSON.stringify(s.template.toJSON());
    assert.equal(all.includes('eks:AssociateAccessPolicy'), false);
    assert.equal(all.includes('cluster-access-policy'), false);
  });

  test('without discover: no discovery schedule, no discovery permission', () => {
    const { template } = synthStack({});
    assert.deepEqual(sids(template), []);
    template.resourcePropertiesCountIs(
      'AWS::Scheduler::Schedule',
      { Target: Match.objectLike({ Input: JSON.stringify({ discover: true }) }) },
      0,
    );
  });
});
