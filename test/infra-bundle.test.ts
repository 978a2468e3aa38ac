/**
 * The real thing, once each: the Lambda bundle CDK builds with the local esbuild (no Docker), and
 * `npx cdk synth` on a bad configuration failing with one line.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { loadConfigFile } from '../infra/config.js';
import { buildStack } from '../infra/stack.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'node_modules', '.bin');
const env = {
  ...process.env,
  PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
  CDK_DISABLE_VERSION_CHECK: '1',
  CDK_DISABLE_CLI_TELEMETRY: 'true',
};
const work = mkdtempSync(join(tmpdir(), 'lease-watchdog-infra-'));

describe('the Lambda bundle', () => {
  test('is built locally by esbuild from lambda/handler.ts, as ESM that loads in Node and exports handler', () => {
    const app = new App({ outdir: join(work, 'cdk.out') });
    const stack = buildStack(app, loadConfigFile(join(root, 'infra', 'config.example.json')));
    const template = Template.fromStack(stack);
    const assembly = app.synth();

    const [fn] = Object.values(template.findResources('AWS::Lambda::Function'));
    const s3Key = fn?.Properties.Code.S3Key as string;
    const asset = join(assembly.directory, `asset.${s3Key.replace(/\.zip$/, '')}`);
    const bundle = join(asset, 'index.mjs');
    assert.ok(existsSync(bundle), `${bundle} exists`);
    const code = readFileSync(bundle, 'utf8');
    assert.ok(
      code.startsWith("import { createRequire as __lwCreateRequire } from 'node:module';"),
      'the require banner',
    );

    const map = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as { sources: string[] };
    // Sources are relative to esbuild's output directory, a sibling-named staging directory of the asset.
    const own = map.sources
      .filter((s) => !s.includes('node_modules'))
      .map((s) => relative(root, resolve(asset, s)));
    assert.ok(
      own.includes('lambda/handler.ts'),
      `the entry point is lambda/handler.ts: ${own.join(', ')}`,
    );
    assert.ok(
      own.includes('lambda/settings/parse.ts'),
      'the same settings validation as the stack',
    );
    assert.ok(own.includes('lambda/create-handler.ts'), 'the handler createHandler builds');

    const settings = fn?.Properties.Environment.Variables.LEASE_WATCHDOG_SETTINGS as string;
    const load = (vars: Record<string, string>) =>
      spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const m = await import(${JSON.stringify(bundle)}); console.log(typeof m.handler);`,
        ],
        {
          cwd: work,
          encoding: 'utf8',
          timeout: 60_000,
          env: {
            PATH: process.env.PATH ?? '',
            AWS_REGION: 'eu-west-1',
            NODE_OPTIONS: '--enable-source-maps',
            ...vars,
          },
        },
      );
    const loaded = load({
      LEASE_WATCHDOG_SETTINGS: settings,
      TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog',
      STATE_TABLE: 'LeaseWatchdog-StateTable',
    });
    assert.equal(loaded.status, 0, loaded.stderr);
    assert.equal(loaded.stdout.trim(), 'function');

    const unconfigured = load({
      TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog',
      STATE_TABLE: 't',
    });
    assert.notEqual(unconfigured.status, 0);
    assert.match(unconfigured.stderr, /LEASE_WATCHDOG_SETTINGS is required/);

    // TLS verification off for the whole process: the cold start fails with one clear line.
    const insecure = load({
      LEASE_WATCHDOG_SETTINGS: settings,
      TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog',
      STATE_TABLE: 'LeaseWatchdog-StateTable',
      NODE_TLS_REJECT_UNAUTHORIZED: '0',
    });
    assert.notEqual(insecure.status, 0);
    assert.match(insecure.stderr, /NODE_TLS_REJECT_UNAUTHORIZED=0 turns off TLS verification/);
  });
});

describe('cdk synth with a bad configuration', () => {
  test('exits 1 with one line on stderr naming the field and the fix, no stack trace', () => {
    const bad = join(work, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        clusters: [{ name: 'prod', auth: { mode: 'eks' } }],
        emails: ['oncall@example.com'],
        scheduleMinutes: 0.5,
      }),
    );
    const run = spawnSync('npx', ['cdk', 'synth', '--no-notices', '-c', `config=${bad}`], {
      cwd: root,
      env,
      encoding: 'utf8',
      timeout: 170_000,
    });
    assert.equal(run.status, 1, run.stderr);
    const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
    // The CDK CLI adds its own last line about the app's exit status; the app's is the one before.
    const ours = lines.filter((line) => !/Subprocess exited with error 1$/.test(line));
    assert.deepEqual(ours, [
      `lease-watchdog config: ${bad}: scheduleMinutes must be a whole number ≥ 1; for sub-minute detection use fastMode (got 0.5)`,
    ]);
    assert.ok(!lines.some((line) => /^\s+at /.test(line)), 'no stack trace');
  });

  test('LEASE_WATCHDOG_CONFIG_FILE picks the file when -c config is not given', () => {
    const bad = join(work, 'env.json');
    writeFileSync(bad, JSON.stringify({ clusters: [{ name: 'prod', auth: { mode: 'ekss' } }] }));
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
      cwd: root,
      env: { ...env, LEASE_WATCHDOG_CONFIG_FILE: bad, CDK_OUTDIR: join(work, 'env.out') },
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(run.status, 1, run.stderr);
    assert.equal(
      run.stderr,
      `lease-watchdog config: ${bad}: clusters[0].auth.mode must be one of kubeconfig, token, eks (got "ekss")\n`,
    );
  });
});
