/**
 * `lease-watchdog watch --sns-topic-arn` when SNS does not take a notification on its last check:
 * with --state-file it is kept for the next run (and sent by it), without one it is lost and the
 * exit status says so. In process, on a fake clock the simulated cluster shares; the real SNS
 * client, pointed at the local server.
 */

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SNSClient } from '@aws-sdk/client-sns';
import type { AwsClients } from '../cli/io.js';
import { SimCluster } from '../sim/cluster.js';
import { localAws, runInProcess } from '../testkit/cli-in-process.js';
import { FakeClock } from '../testkit/fake-clock.js';
import { type SimFixture, startSimFixture, stopKubeletLongAgo } from '../testkit/sim-fixture.js';
import { type SnsServer, startSnsServer } from '../testkit/sns-server.js';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog';

/** The last "could not publish" line: the last check's, which no later check retries. */
function lastRefusal(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line.includes('could not publish'));
  assert.ok(lines.length > 0, stderr);
  return lines.at(-1) as string;
}

describe('lease-watchdog watch: a publish that fails on the last check', () => {
  const clock = new FakeClock();
  let sim: SimFixture;
  let dir: string;
  let sns: SnsServer;
  let kubeconfig: string;
  let aws: AwsClients;
  const env = { AWS_REGION: 'eu-west-1' };
  before(async () => {
    const cluster = new SimCluster({ seed: 7, now: clock.now });
    const names = cluster.addNodes(3, { zones: ['eu-west-1a'] });
    const dead = names[0] as string;
    stopKubeletLongAgo(cluster, dead, clock.now());
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-cli-delivery' });
    ({ dir, kubeconfig } = sim);
    sns = await startSnsServer();
    aws = localAws({ sns: sns.url });
  });
  after(async () => {
    await sns.close();
    await sim.close();
  });

  const cli = (args: string[]) => runInProcess(args, { clock, env, aws });

  // Two checks: a node first seen already silent pages at its re-check a renew interval on
  // (between them), and the second, the last, tries the refused notification again.
  const watch = (...extra: string[]) => [
    'watch',
    '--kubeconfig',
    kubeconfig,
    '--interval',
    '3',
    '--sns-topic-arn',
    TOPIC,
    ...extra,
  ];

  it('with --state-file: says it is kept, and the next run sends it', async () => {
    const stateFile = join(dir, 'state.json');
    sns.reset();
    sns.failNext(100, 'internal');
    const first = await cli(watch('--checks', '2', '--state-file', stateFile));
    assert.equal(first.code, 1, first.stderr);
    assert.doesNotMatch(lastRefusal(first.stderr), /retried next check/, first.stderr);
    assert.match(
      first.stderr,
      new RegExp(`1 notification not published; kept in ${stateFile} for the next run`),
    );
    assert.equal(sns.messages.length, 0);

    sns.reset();
    const second = await cli(watch('--checks', '1', '--state-file', stateFile));
    assert.equal(second.code, 1, second.stderr);
    assert.equal(sns.messages.length, 1, second.stderr);
    assert.match(sns.messages[0]?.subject ?? '', /FIRING: 1 node down/);
  });

  it('without --state-file: says it is lost, and exits 2', async () => {
    sns.reset();
    sns.failNext(100, 'internal');
    const result = await cli(watch('--checks', '2'));
    assert.equal(result.code, 2, result.stderr);
    assert.doesNotMatch(lastRefusal(result.stderr), /retried next check/, result.stderr);
    assert.match(
      result.stderr,
      /1 notification not published and lost: without --state-file nothing keeps it/,
    );
  });

  it('a topic that is not there, or no credentials: one line and exit 2 before the first check', async () => {
    sns.reset();
    sns.failNext(1, 'not-found', 'GetTopicAttributes');
    const gone = await cli(watch('--checks', '1'));
    assert.equal(gone.code, 2, gone.stderr);
    assert.deepEqual(gone.stderrLines, [
      `lease-watchdog: cannot publish to ${TOPIC} (NotFoundException: Topic does not exist): check the topic ARN and the AWS credentials and region, or leave out --sns-topic-arn`,
    ]);
    assert.equal(gone.stdout, '', 'no check ran');

    const noCredentials: AwsClients = {
      ...aws,
      sns: (region) =>
        new SNSClient({
          region,
          endpoint: sns.url,
          credentials: async () => {
            throw Object.assign(new Error('Could not load credentials from any providers'), {
              name: 'CredentialsProviderError',
            });
          },
        }),
    };
    const anonymous = await runInProcess(watch('--checks', '1'), {
      clock,
      env,
      aws: noCredentials,
    });
    assert.equal(anonymous.code, 2, anonymous.stderr);
    assert.equal(anonymous.stderrLines.length, 1, anonymous.stderr);
    assert.match(
      anonymous.stderr,
      /\(CredentialsProviderError: Could not load credentials from any providers\)/,
    );
    assert.equal(sns.requests, 0, 'nothing published');
  });
});
