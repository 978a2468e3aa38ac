/**
 * The CDK app and its guard against deploying placeholders. The guard rests on the configuration
 * itself, not on which command runs the app: a configuration still holding a name under a domain
 * reserved for documentation (infra/config.example.json's oncall@example.com and
 * k8s.edge-lab.example.com) synthesizes as any other, and its template carries a CloudFormation
 * rule that no stack operation passes, so `cdk deploy` (also `cdk deploy --app cdk.out` after a
 * `cdk synth`, or the toolkit library) is refused before any resource is created, with one line.
 * A real configuration gets no such rule. And cdk.json carries the recommended feature flags of
 * the installed aws-cdk-lib, without changing a logical id.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildStack } from '../infra/stack.js';
import { loadConfigFile } from '../lambda/adapters/config/deployment-file.js';
import { parseAppConfig, placeholdersIn } from '../lambda/settings/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = join(root, 'infra', 'config.example.json');
/** What CloudFormation answers a deploy of the example with (the rule's AssertDescription). */
const EXAMPLE_REFUSED =
  'lease-watchdog: not deployed: the configuration still holds placeholder values (emails[0] oncall@example.com, clusters[1].auth.server k8s.edge-lab.example.com), names reserved for documentation (RFC 2606: example.com, .net, .org; .example, .invalid, .test) that reach no mailbox and no cluster. Put your own in a copy of infra/config.example.json and deploy it with -c config=<your file>.';

type Rule = {
  RuleCondition?: unknown;
  Assertions: { Assert: unknown; AssertDescription: string }[];
};

/** The template's rules other than CDK's own bootstrap check. */
function ourRules(template: { Rules?: Record<string, Rule> }): Rule[] {
  return Object.entries(template.Rules ?? {})
    .filter(([id]) => id !== 'CheckBootstrapVersion')
    .map(([, rule]) => rule);
}

function synthesized(input: unknown): { Rules?: Record<string, Rule> } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return Template.fromStack(buildStack(app, parseAppConfig(input))).toJSON();
}

/**
 * Refused by CloudFormation: one rule, no condition (it always applies), one assertion that holds
 * in no region (it compares the stack's region with a name no region has), and the line.
 */
function assertRefused(template: { Rules?: Record<string, Rule> }, line: string | RegExp): void {
  const rules = ourRules(template);
  assert.equal(rules.length, 1, 'one rule of ours');
  const [rule] = rules;
  assert.equal(rule?.RuleCondition, undefined);
  assert.equal(rule?.Assertions.length, 1);
  const [assertion] = rule?.Assertions ?? [];
  const equals = assertion?.Assert as { 'Fn::Equals': [unknown, string] } | undefined;
  const [region, other] = equals?.['Fn::Equals'] ?? [];
  assert.deepEqual(region, { Ref: 'AWS::Region' });
  assert.ok(typeof other === 'string');
  assert.doesNotMatch(other, /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'no region is named so');
  if (typeof line === 'string') assert.equal(assertion?.AssertDescription, line);
  else assert.match(assertion?.AssertDescription ?? '', line);
  assert.doesNotMatch(assertion?.AssertDescription ?? '', /\n/, 'one line');
}

const real = {
  clusters: [
    { name: 'prod-eu', auth: { mode: 'eks', clusterName: 'prod-eu', region: 'eu-west-1' } },
    {
      name: 'edge-lab',
      auth: {
        mode: 'token',
        server: 'https://k8s.edge-lab.corp.acme.io:6443',
        tokenSecretId: 'lease-watchdog/edge-lab-token',
      },
      runbookUrl: 'https://wiki.acme.io/runbooks/node-down',
    },
  ],
  emails: ['oncall@acme.io'],
  alarmEmails: ['ops@acme.io'],
};

describe('a configuration still holding placeholder values synthesizes, and cannot be deployed', () => {
  test('the example: its template carries a rule no deploy passes, naming what to replace', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    assertRefused(
      Template.fromStack(buildStack(app, loadConfigFile(EXAMPLE))).toJSON(),
      EXAMPLE_REFUSED,
    );
  });

  test('a real configuration: no rule of ours (no false refusal)', () => {
    assert.deepEqual(ourRules(synthesized(real)), []);
    assert.deepEqual(placeholdersIn(parseAppConfig(real)), []);
  });

  const [eks, token] = real.clusters as [object, { auth: object }];
  const left: [string, object, RegExp][] = [
    [
      'an email',
      { ...real, emails: ['oncall@acme.io', 'me@example.org'] },
      /emails\[1\] me@example\.org/,
    ],
    [
      'an alarm email',
      { ...real, alarmEmails: ['ops@corp.example'] },
      /alarmEmails\[0\] ops@corp\.example/,
    ],
    [
      "a token cluster's server (the host only is named)",
      {
        ...real,
        clusters: [eks, { ...token, auth: { ...token.auth, server: 'https://api.cluster.test' } }],
      },
      /clusters\[1\]\.auth\.server api\.cluster\.test\)/,
    ],
    [
      'a runbook',
      { ...real, clusters: [{ ...eks, runbookUrl: 'https://wiki.example.com/x' }, token] },
      /clusters\[0\]\.runbookUrl wiki\.example\.com\)/,
    ],
  ];
  for (const [what, input, named] of left) {
    test(`one placeholder left is enough: ${what}`, () => {
      assertRefused(synthesized(input), named);
    });
  }

  test('many placeholders: the line names three and counts the rest', () => {
    const emails = ['a', 'b', 'c', 'd', 'e'].map((user) => `${user}@example.net`);
    assertRefused(
      synthesized({ ...real, emails }),
      /\(emails\[0\] a@example\.net, emails\[1\] b@example\.net, emails\[2\] c@example\.net and 2 more\)/,
    );
  });

  test('placeholdersIn: the reserved names only, not names that merely look alike', () => {
    const emailsOf = (domains: string[]) =>
      placeholdersIn(
        parseAppConfig({ ...real, emails: domains.map((domain) => `x@${domain}`) }),
      ).map((p) => p.value.slice(2));
    assert.deepEqual(
      emailsOf([
        'example.com',
        'Mail.EXAMPLE.COM',
        'mail.example.org',
        'example.net',
        'a.example',
        'b.invalid',
        'c.test',
      ]),
      [
        'example.com',
        'Mail.EXAMPLE.COM',
        'mail.example.org',
        'example.net',
        'a.example',
        'b.invalid',
        'c.test',
      ],
    );
    assert.deepEqual(
      emailsOf([
        'examples.com',
        'example.company.io',
        'myexample.com',
        'test.io',
        'example.co',
        'corp.internal',
      ]),
      [],
    );
  });
});

describe('no process inspection', () => {
  const env = {
    ...process.env,
    PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
    CDK_DISABLE_VERSION_CHECK: '1',
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    LEASE_WATCHDOG_CONFIG_FILE: '',
    AWS_ACCESS_KEY_ID: '',
    AWS_SECRET_ACCESS_KEY: '',
    AWS_PROFILE: '',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  const template = (outdir: string) =>
    JSON.parse(readFileSync(join(outdir, 'LeaseWatchdog.template.json'), 'utf8'));

  test('cdk synth of the example, under a parent whose arguments name `cdk deploy`: the cloud assembly carries the rule, so deploying it later (cdk deploy --app cdk.out) is refused too', () => {
    // One real `cdk synth` (the CLI runs the app as cdk.json says) under a shell whose own
    // arguments are `cdk deploy` (the command list keeps the shell alive as the app's ancestor):
    // what the process-table guard refused, now no different from any synth.
    const outdir = mkdtempSync(join(tmpdir(), 'lw-app-'));
    const run = spawnSync(
      'sh',
      ['-c', 'npx cdk synth --quiet --no-notices -o "$LW_OUTDIR"; exit $?', 'cdk', 'deploy'],
      { cwd: root, env: { ...env, LW_OUTDIR: outdir }, encoding: 'utf8', timeout: 300_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    assertRefused(template(outdir), EXAMPLE_REFUSED);
    // And the synth says so, as a warning.
    assert.match(
      run.stderr,
      /lease-watchdog: synthesized, but CloudFormation will refuse to deploy it: the configuration still holds placeholder values \(emails\[0\] oncall@example\.com/,
    );
  });
});

describe('cdk.json', () => {
  const cdkJson = JSON.parse(readFileSync(join(root, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const recommended = JSON.parse(
    readFileSync(
      join(root, 'node_modules', 'aws-cdk-lib', 'recommended-feature-flags.json'),
      'utf8',
    ),
  ) as Record<string, unknown>;

  test('carries every feature flag the installed aws-cdk-lib recommends, at its value', () => {
    assert.ok(Object.keys(recommended).length > 80);
    for (const [flag, value] of Object.entries(recommended)) {
      assert.deepEqual(cdkJson.context[flag], value, flag);
    }
  });

  test('the flags change no logical id (a renamed one would replace the resource)', () => {
    const config = parseAppConfig({
      clusters: [
        { name: 'prod-eu', auth: { mode: 'eks', region: 'eu-west-1' } },
        { name: 'onprem', auth: { mode: 'kubeconfig', secretId: 'kube/onprem' } },
      ],
      emails: ['oncall@example.com'],
      alarmEmails: ['ops@example.com'],
      vpc: { vpcId: 'vpc-0123456789abcdef0', subnetIds: ['subnet-0123456789abcdef0'] },
      account: '123456789012',
      region: 'eu-west-1',
    });
    const ids = (context: Record<string, unknown>) => {
      const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
      const resources = Template.fromStack(buildStack(app, config)).toJSON().Resources as Record<
        string,
        { Type: string }
      >;
      return Object.entries(resources)
        .map(([id, r]) => `${id} ${r.Type}`)
        .sort();
    };
    const withFlags = ids(cdkJson.context);
    assert.ok(withFlags.length > 25);
    assert.deepEqual(withFlags, ids({}));
  });
});
