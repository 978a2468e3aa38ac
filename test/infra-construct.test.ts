/**
 * The construct's props as a CDK app passes them: a topic object, a VPC object with its subnets
 * and security groups, and tokens wherever a name or ARN goes. What is known at synth is still
 * checked at synth; a token is left to CloudFormation.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { App, type CfnElement, CfnParameter, Fn, Lazy, Stack, Token } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { LeaseWatchdog, type LeaseWatchdogProps } from '../infra/lease-watchdog.js';
import { isDeployTimeValue } from '../lambda/settings/field-checks.js';
import { ConfigError } from '../lambda/settings/index.js';

const eks = { name: 'prod-eu', auth: { mode: 'eks' as const } };

function synth(props: (stack: Stack) => LeaseWatchdogProps) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Platform', {
    env: { account: '123456789012', region: 'eu-west-1' },
  });
  const watchdog = new LeaseWatchdog(stack, 'Watchdog', props(stack));
  const template = Template.fromStack(stack);
  const findings = new AwsSolutionsChecks()
    .validateScope(app)
    .violations.flatMap((v) =>
      v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`),
    );
  return { stack, watchdog, template, findings };
}

function logicalId(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}

/** The statements of the function role's policy, by Sid. */
function statement(s: ReturnType<typeof synth>, sid: string) {
  const role = logicalId(s.watchdog.role);
  const [policy] = Object.values(s.template.findResources('AWS::IAM::Policy')).filter(
    (p) => JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: role }]),
  );
  return (policy?.Properties.PolicyDocument.Statement as { Sid?: string }[] | undefined)?.find(
    (st) => st.Sid === sid,
  );
}

function messageOf(build: () => unknown): string {
  try {
    build();
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail('expected a ConfigError');
}

describe('a deploy-time value (CDK token)', () => {
  test('is recognised exactly as Token.isUnresolved recognises a string', () => {
    const stack = new Stack();
    const values = [
      new sns.Topic(stack, 'T').topicArn,
      new CfnParameter(stack, 'P').valueAsString,
      Lazy.string({ produce: () => 'x' }),
      Fn.importValue('shared-topic-arn'),
      `arn:aws:sns:eu-west-1:123456789012:${Fn.ref('P')}`,
      'arn:aws:sns:eu-west-1:123456789012:alerts',
      `\${Token[not a token]}`,
      'Token[TOKEN.1]',
      '',
    ];
    for (const value of values) {
      assert.equal(isDeployTimeValue(value), Token.isUnresolved(value), String(value));
    }
    assert.deepEqual(
      values.map((v) => isDeployTimeValue(v)),
      [true, true, true, true, true, false, false, false, false],
    );
  });
});

describe('the topic', () => {
  test('existingTopicArn may be a token (topic.topicArn): nothing created, everything uses it', () => {
    const s = synth((stack) => ({
      clusters: [eks],
      existingTopicArn: new sns.Topic(stack, 'Alerts').topicArn,
    }));
    const alerts = logicalId(s.stack.node.findChild('Alerts'));
    s.template.resourceCountIs('AWS::SNS::Topic', 1);
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ TOPIC_ARN: { Ref: alerts } }) },
    });
  });

  test('topic: an ITopic is used as it is, its key granted; no second topic or key', () => {
    const s = synth((stack) => ({
      clusters: [eks],
      emails: ['oncall@example.com'],
      topic: new sns.Topic(stack, 'Alerts', {
        masterKey: new kms.Key(stack, 'AlertsKey', {
          enableKeyRotation: true,
        }),
      }),
    }));
    s.template.resourceCountIs('AWS::SNS::Topic', 1);
    s.template.resourceCountIs('AWS::KMS::Key', 1);
    const topic = s.stack.resolve(s.watchdog.topic.topicArn);
    assert.deepEqual(statement(s, 'PublishNotifications'), {
      Sid: 'PublishNotifications',
      Effect: 'Allow',
      Action: 'sns:Publish',
      Resource: topic,
    });
    assert.ok(statement(s, 'EncryptNotifications'), 'may use the topic key');
    s.template.hasResourceProperties('AWS::SNS::Subscription', {
      Endpoint: 'oncall@example.com',
      TopicArn: topic,
    });
    for (const alarm of Object.values(s.template.findResources('AWS::CloudWatch::Alarm'))) {
      assert.deepEqual(alarm.Properties.AlarmActions, [topic]);
    }
  });

  test('topic and existingTopicArn together are refused', () => {
    assert.equal(
      messageOf(() =>
        synth((stack) => ({
          clusters: [eks],
          topic: new sns.Topic(stack, 'Alerts'),
          existingTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alerts',
        })),
      ),
      'give topic or existingTopicArn, not both: they name the same thing',
    );
  });

  test('emails and the alarm topic ARN may be tokens too', () => {
    const s = synth((stack) => ({
      clusters: [eks],
      emails: [new CfnParameter(stack, 'OncallEmail').valueAsString],
      alarmTopicArn: Fn.importValue('ops-topic-arn'),
    }));
    s.template.hasResourceProperties('AWS::SNS::Subscription', {
      Endpoint: { Ref: 'OncallEmail' },
    });
    const [alarm] = Object.values(s.template.findResources('AWS::CloudWatch::Alarm'));
    assert.deepEqual(alarm?.Properties.AlarmActions[1], { 'Fn::ImportValue': 'ops-topic-arn' });
  });

  test('a literal is still checked at synth', () => {
    assert.equal(
      messageOf(() => synth(() => ({ clusters: [eks], existingTopicArn: 'alerts' }))),
      'existingTopicArn must be an SNS topic ARN like arn:aws:sns:eu-west-1:123456789012:alerts (got "alerts")',
    );
  });
});

describe('the clusters', () => {
  test('names and ARNs of an EKS cluster, a secret and an API server may be tokens', () => {
    const s = synth((stack) => {
      const secret = new secretsmanager.Secret(stack, 'Kubeconfig');
      return {
        clusters: [
          {
            name: 'prod-eu',
            auth: {
              mode: 'eks',
              clusterName: new CfnParameter(stack, 'EksName').valueAsString,
              region: new CfnParameter(stack, 'EksRegion').valueAsString,
            },
          },
          { name: 'onprem', auth: { mode: 'kubeconfig', secretId: secret.secretArn } },
          {
            name: 'edge',
            auth: {
              mode: 'token',
              server: Fn.importValue('edge-endpoint'),
              tokenSecretId: new CfnParameter(stack, 'EdgeToken').valueAsString,
            },
          },
        ],
        emails: ['oncall@example.com'],
      };
    });
    s.template.hasResourceProperties('AWS::EKS::AccessEntry', {
      ClusterName: { Ref: 'EksName' },
    });
    // Deployed only where the cluster is: the region is known at deploy time only.
    const [entry] = Object.values(s.template.findResources('AWS::EKS::AccessEntry'));
    assert.deepEqual(s.template.toJSON().Conditions[entry?.Condition], {
      'Fn::Equals': ['eu-west-1', { Ref: 'EksRegion' }],
    });
    // A secret given as a token: an ARN or a name, as CloudFormation finds it.
    const edge = statement(s, 'Cluster2ReadSecret') as { Resource: unknown[] };
    const isArn = (edge.Resource[0] as { 'Fn::If': [string] })['Fn::If'][0];
    assert.deepEqual(s.template.toJSON().Conditions[isArn], {
      'Fn::Equals': [{ 'Fn::Select': [0, { 'Fn::Split': [':', { Ref: 'EdgeToken' }] }] }, 'arn'],
    });
    assert.deepEqual(edge.Resource, [
      {
        'Fn::If': [
          isArn,
          { Ref: 'EdgeToken' },
          {
            'Fn::Join': [
              '',
              [
                'arn:',
                { Ref: 'AWS::Partition' },
                ':secretsmanager:eu-west-1:123456789012:secret:',
                { Ref: 'EdgeToken' },
                '-??????',
              ],
            ],
          },
        ],
      },
      {
        'Fn::If': [
          isArn,
          { 'Fn::Join': ['', [{ Ref: 'EdgeToken' }, '-??????']] },
          { Ref: 'AWS::NoValue' },
        ],
      },
    ]);
    const settings = JSON.stringify(
      s.template.findResources('AWS::Lambda::Function')[logicalId(s.watchdog.function)]?.Properties
        .Environment.Variables.LEASE_WATCHDOG_SETTINGS,
    );
    assert.match(settings, /"Ref":"EksName"/, 'the function gets the resolved name');
  });

  test('a cluster name must be known at synth: it names the schedule, alarms and metrics', () => {
    assert.equal(
      messageOf(() =>
        synth((stack) => ({
          clusters: [eks, { name: new CfnParameter(stack, 'Name').valueAsString, auth: eks.auth }],
          emails: ['oncall@example.com'],
        })),
      ),
      "clusters[1].name must be known at synth, not a token: it names the cluster's schedule, alarms and metrics",
    );
  });
});

describe('the VPC', () => {
  test('vpc, vpcSubnets and securityGroups are CDK objects; ids may be tokens', () => {
    const s = synth((stack) => {
      const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Shared', {
        vpcId: Fn.importValue('shared-vpc-id'),
        availabilityZones: ['eu-west-1a', 'eu-west-1b'],
        privateSubnetIds: [Fn.importValue('shared-subnet-a'), Fn.importValue('shared-subnet-b')],
      });
      return {
        clusters: [eks],
        emails: ['oncall@example.com'],
        vpc,
        vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
        securityGroups: [
          ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', Fn.importValue('shared-sg'), {
            mutable: false,
          }),
        ],
      };
    });
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      VpcConfig: {
        SubnetIds: [
          { 'Fn::ImportValue': 'shared-subnet-a' },
          { 'Fn::ImportValue': 'shared-subnet-b' },
        ],
        SecurityGroupIds: [{ 'Fn::ImportValue': 'shared-sg' }],
      },
    });
    s.template.resourceCountIs('AWS::EC2::SecurityGroup', 0);
    assert.deepEqual(s.findings, []);
  });

  test('subnets or security groups without a VPC, or the file form of vpc, are refused', () => {
    assert.equal(
      messageOf(() =>
        synth(() => ({
          clusters: [eks],
          emails: ['oncall@example.com'],
          vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
        })),
      ),
      'vpcSubnets and securityGroups need vpc: pass the VPC they belong to',
    );
    assert.equal(
      messageOf(() =>
        synth(() => ({
          clusters: [eks],
          emails: ['oncall@example.com'],
          vpc: { vpcId: 'vpc-0123456789abcdef0', subnetIds: [] } as unknown as ec2.IVpc,
        })),
      ),
      'vpc must be an ec2.IVpc (e.g. ec2.Vpc.fromLookup); {"vpcId", "subnetIds"} is the deployment file\'s form',
    );
  });
});
