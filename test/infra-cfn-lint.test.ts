/**
 * Every template the stack synthesizes passes cfn-lint (CloudFormation's own linter: resource
 * schemas, intrinsic functions, references) with no error: the example deployment file, a
 * discovery fleet, and every receiver on, each with its nested templates. Skipped, saying so,
 * where cfn-lint is not installed (`pip install cfn-lint`).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ONE_CLUSTER, synthDeployment } from '../testkit/synth-stack.js';

const EXAMPLE = new URL('../infra/config.example.json', import.meta.url);
const installed = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' }).status === 0;

const DEPLOYMENTS: Readonly<Record<string, object>> = {
  'the example': JSON.parse(readFileSync(EXAMPLE, 'utf8')) as object,
  'a discovery fleet': {
    ...ONE_CLUSTER,
    clusters: [],
    discover: {
      regions: ['eu-west-1', 'us-east-1'],
      accounts: [{ roleArn: 'arn:aws:iam::210987654321:role/lease-watchdog-discovery' }],
      tags: { 'lease-watchdog': 'on' },
      grantAccess: true,
    },
  },
  'every receiver on': {
    ...ONE_CLUSTER,
    chatNotifications: { link: 'https://wiki.example.com/runbook' },
    machineTopic: true,
    eventBus: 'default',
    pagerDuty: { routingKeySecret: 'lease-watchdog/pagerduty' },
    opsgenie: { apiKeySecret: 'lease-watchdog/opsgenie', region: 'eu' },
    incidentIo: { alertSourceId: '01GW2G3V0S59R238FAHPDS1R66', tokenSecret: 'lease-watchdog/iio' },
    webhook: { url: 'https://hooks.example.com/lw', signingKeySecret: 'lease-watchdog/hook' },
    alertmanager: { url: 'https://am.example.com:9093', authSecret: 'lease-watchdog/am' },
  },
};

interface Finding {
  readonly Level: string;
  readonly Rule: { readonly Id: string };
  readonly Message: string;
  readonly Filename: string;
  readonly Location: { readonly Path?: readonly (string | number)[] };
}

describe('cfn-lint on every synthesized template', {
  skip: installed ? false : 'cfn-lint is not installed here (pip install cfn-lint)',
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'lease-watchdog-cfn-lint-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The errors cfn-lint finds in `templates`, one line each. */
  const errorsIn = (name: string, templates: readonly object[]): string[] => {
    const files = templates.map((template, i) => {
      const file = join(dir, `${name.replaceAll(' ', '-')}-${i}.template.json`);
      writeFileSync(file, JSON.stringify(template));
      return file;
    });
    const lint = spawnSync('cfn-lint', ['--format', 'json', '--', ...files], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.ok(lint.stdout.trim().startsWith('['), `cfn-lint ran: ${lint.stderr}`);
    return (JSON.parse(lint.stdout) as Finding[])
      .filter((f) => f.Level === 'Error')
      .map((f) => `${f.Rule.Id} ${f.Location.Path?.join('/') ?? ''}: ${f.Message}`);
  };

  it('finds the error of a template that has one (this test can fail)', () => {
    const broken = { Resources: { Topic: { Type: 'AWS::SNS::Topic', Properties: { Nope: 1 } } } };
    assert.notDeepEqual(errorsIn('broken', [broken]), []);
  });

  for (const [name, deployment] of Object.entries(DEPLOYMENTS)) {
    it(`${name}: no error`, () => {
      const { parent, nested } = synthDeployment(deployment);
      assert.deepEqual(errorsIn(name, [parent, ...nested]), [], `${1 + nested.length} template(s)`);
    });
  }
});
