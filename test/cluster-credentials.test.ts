/**
 * ClusterAwsCredentials: which credentials a cluster's AWS calls use, and how long an assumed
 * role's are kept, by the injected clock, through the real `fromTemporaryCredentials` against a
 * scripted STS endpoint (testkit/sts-server.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ClusterAwsCredentials,
  REFRESH_BEFORE_EXPIRY_MS,
  ROLE_SESSION_NAME,
} from '../lambda/adapters/kube/config/cluster-credentials.js';
import { type StsServer, startStsServer } from '../testkit/sts-server.js';

const ROLE = 'arn:aws:iam::210987654321:role/lease-watchdog-reader';
const T0 = Date.parse('2026-11-29T17:52:14Z');
const HOUR = 3_600_000;
const own = async () => ({ accessKeyId: 'AKIAFUNCTIONROLE', secretAccessKey: 'own' });

describe('ClusterAwsCredentials', () => {
  let sts: StsServer;
  let now = T0;
  before(async () => {
    // Each issued set expires one hour after the fake clock's now.
    sts = await startStsServer({ expiresAt: () => now + HOUR });
    sts.allow(ROLE);
  });
  after(() => sts.close());

  const credentials = () =>
    new ClusterAwsCredentials({
      credentials: own,
      region: 'eu-west-1',
      now: () => now,
      sts: { endpoint: sts.url, maxAttempts: 1 },
    });

  it('a cluster without roleArn (and a token or kubeconfig cluster) gets the function credentials', () => {
    const c = credentials();
    assert.equal(c.forCluster({ auth: { mode: 'eks', clusterName: 'local' } }), own);
    assert.equal(
      c.forCluster({ auth: { mode: 'token', server: 'https://k8s', tokenSecretId: 's' } }),
      own,
    );
  });

  it('assumes the role once, signed with the function credentials, and keeps it until 5 minutes before expiry', async () => {
    now = T0;
    const calls = sts.calls.length;
    const c = credentials();
    const cluster = { auth: { mode: 'eks' as const, clusterName: 'remote', roleArn: ROLE } };
    const provider = c.forCluster(cluster);
    assert.equal(c.forCluster(cluster), provider, 'one provider per role');
    const [first, concurrent] = await Promise.all([provider(), provider()]);
    assert.equal(concurrent, first, 'concurrent callers share one AssumeRole');
    assert.deepEqual(sts.calls.slice(calls), [
      { roleArn: ROLE, sessionName: ROLE_SESSION_NAME, signedBy: 'AKIAFUNCTIONROLE' },
    ]);
    assert.equal(first.accessKeyId, sts.issued.at(-1)?.accessKeyId);

    now = T0 + HOUR - REFRESH_BEFORE_EXPIRY_MS - 1;
    assert.equal(await provider(), first, 'still fresh');
    assert.equal(sts.calls.length, calls + 1);

    now = T0 + HOUR - REFRESH_BEFORE_EXPIRY_MS;
    const renewed = await provider();
    assert.equal(sts.calls.length, calls + 2, 'renewed 5 minutes before expiry');
    assert.notEqual(renewed.accessKeyId, first.accessKeyId);
  });

  it('a refused AssumeRole is not cached: the next call asks again', async () => {
    const c = credentials();
    const denied = 'arn:aws:iam::210987654321:role/not-trusting-us';
    const provider = c.forCluster({ auth: { mode: 'eks', clusterName: 'x', roleArn: denied } });
    const calls = sts.calls.length;
    await assert.rejects(provider(), { name: 'AccessDenied' });
    await assert.rejects(provider(), { name: 'AccessDenied' });
    assert.equal(sts.calls.length, calls + 2);
  });
});
