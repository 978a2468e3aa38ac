/**
 * `lease-watchdog config init|validate`: the deployment file checked as the CDK app checks it (the
 * same loader, the same one-line messages), whether it can be deployed, the effective settings;
 * and the example written where an editor finds its schema. In process.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfigFile } from '../lambda/adapters/config/deployment-file.js';
import { parseAppConfig } from '../lambda/settings/index.js';
import { runInProcess } from '../testkit/cli-in-process.js';

const EXAMPLE = new URL('../infra/config.example.json', import.meta.url).pathname;
const mine = {
  clusters: [{ name: 'prod', auth: { mode: 'eks', clusterName: 'prod', region: 'eu-west-1' } }],
  emails: ['oncall@acme.io'],
};

describe('lease-watchdog config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lease-watchdog-config-'));
  const file = (name: string, body: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
    return path;
  };
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('validate: a file of your own can be deployed, exit 0, with what it sets up', async () => {
    const path = file('mine.json', mine);
    const r = await runInProcess(['config', 'validate', path]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(
      r.stderr,
      `${path}: valid, and can be deployed: 1 cluster: prod (eks); 1 email address; a check every minute\n`,
    );
  });

  it('validate: the example is valid but holds placeholders: cannot be deployed, exit 2, one line', async () => {
    const r = await runInProcess(['config', 'validate', EXAMPLE]);
    assert.equal(r.code, 2);
    assert.equal(r.stderrLines.length, 1);
    assert.match(r.stderr, /valid, but cannot be deployed: .*emails\[0\] oncall@example\.com/);
  });

  it('validate: an invalid file says what the CDK app says, exit 2, one line', async () => {
    const bad = { ...mine, gracePeriodSeconds: 'soon', emails: ['oncall@acme.io'] };
    const path = file('bad.json', bad);
    assert.throws(() => loadConfigFile(path));
    let expected = '';
    try {
      loadConfigFile(path);
    } catch (error) {
      expected = (error as Error).message;
    }
    const r = await runInProcess(['config', 'validate', path]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, `lease-watchdog: ${expected}\n`);
    assert.match(expected, /gracePeriodSeconds/);
    const broken = await runInProcess([
      'config',
      'validate',
      file('broken.json', '{"clusters": ['),
    ]);
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /^lease-watchdog: .*broken\.json is not valid JSON/);
  });

  it('validate -o json: the effective settings, every default filled in', async () => {
    const path = file('effective.json', mine);
    const r = await runInProcess(['config', 'validate', path, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const effective = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.deepEqual(effective, JSON.parse(JSON.stringify(parseAppConfig(mine))));
    assert.equal(effective.gracePeriodSeconds, 50, 'a default the file does not set');
  });

  it('init: writes the example, $schema resolving from where the file is; never over a file', async () => {
    const path = join(dir, 'sub', '..', 'watchdog.json');
    const r = await runInProcess(['config', 'init', path]);
    assert.equal(r.code, 0, r.stderr);
    const written = JSON.parse(readFileSync(path, 'utf8')) as { $schema: string };
    const schema = resolve(dirname(path), written.$schema);
    assert.equal(schema, new URL('../infra/config.schema.json', import.meta.url).pathname);
    assert.ok(existsSync(schema));
    const { $schema: _, ...example } = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as object & {
      $schema: string;
    };
    assert.deepEqual({ ...written, $schema: undefined }, { ...example, $schema: undefined });
    const again = await runInProcess(['config', 'init', path]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /watchdog\.json exists: config init writes a new file only/);
  });

  it('validate: two email addresses are said so; a file not there points at config init', async () => {
    const two = file('two.json', { ...mine, emails: ['oncall@acme.io', 'ops@acme.io'] });
    const r = await runInProcess(['config', 'validate', two]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /; 2 email addresses; /);
    const missing = join(dir, 'nope.json');
    const none = await runInProcess(['config', 'validate', missing]);
    assert.equal(none.code, 2);
    assert.equal(
      none.stderr,
      `lease-watchdog: ${missing} not found: lease-watchdog config init ${missing} writes one\n`,
    );
  });

  it('validate refuses what cdk synth refuses, in its words: an access entry in another region than the stack', async () => {
    const auth = { mode: 'eks', clusterName: 'prod', region: 'us-east-1' };
    const away = { ...mine, region: 'eu-west-1', clusters: [{ name: 'prod', auth }] };
    const expected =
      /^lease-watchdog: \S+\.json: clusters\[0\]\.accessEntry must be false: cluster prod is in us-east-1 but the stack deploys to eu-west-1, and CloudFormation creates access entries in its own region only; set it false and, once deployed, run aws eks create-access-entry --region us-east-1 --cluster-name prod .*--kubernetes-groups lease-watchdog\n$/;
    const r = await runInProcess(['config', 'validate', file('away.json', away)]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, expected);
    // The stack's region from the environment, as cdk synth takes it.
    const { region: _none, ...unplaced } = away;
    const path = file('unplaced.json', unplaced);
    const fromEnv = await runInProcess(['config', 'validate', path], {
      env: { CDK_DEPLOY_REGION: 'eu-west-1' },
    });
    assert.match(fromEnv.stderr, expected);
    const optedOut = { ...away, clusters: [{ name: 'prod', auth, accessEntry: false }] };
    const fine = await runInProcess(['config', 'validate', file('opted-out.json', optedOut)]);
    assert.equal(fine.code, 0, fine.stderr);
  });

  it('validate refuses a secret given inline, saying to put it in Secrets Manager, and never quotes it', async () => {
    const key = 'R0123456789abcdef0123456789abcd';
    for (const [receiver, inline] of [
      ['pagerDuty', { routingKey: key }],
      ['pagerDuty', { routingKey: key, routingKeySecret: 'lease-watchdog/pd' }],
      ['opsgenie', { apiKey: key }],
    ] as const) {
      const r = await runInProcess([
        'config',
        'validate',
        file('inline.json', { ...mine, [receiver]: inline }),
      ]);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderrLines.length, 1, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(
          `: ${receiver}\\.(routingKey|apiKey) is a secret given inline: put it in AWS Secrets Manager and name the secret in \\1Secret `,
        ),
      );
      assert.doesNotMatch(r.stderr, new RegExp(key));
    }
  });

  it('refuses what it does not know, exit 2, one line each', async () => {
    for (const [argv, message] of [
      [['config'], /config needs a subcommand/],
      [['config', 'check', 'x.json'], /unknown config subcommand "check"/],
      [['config', 'validate'], /config validate needs a file/],
      [['config', 'validate', 'a.json', 'b.json'], /takes one file/],
      [['config', 'validate', 'a.json', '-o', 'yaml'], /--output must be json/],
    ] as const) {
      const r = await runInProcess(argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.equal(r.stderrLines.length, 1, r.stderr);
      assert.match(r.stderr, message);
    }
  });
});
