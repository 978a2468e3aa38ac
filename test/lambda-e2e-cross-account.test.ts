/**
 * `eks` clusters in other accounts (`auth.roleArn`), through the real handler: the function
 * assumes the role (the real `fromTemporaryCredentials` against a scripted STS endpoint,
 * testkit/sts-server.ts), calls eks:DescribeCluster (scripted EKS endpoint) and signs the EKS
 * token with the assumed credentials, and the API server (a scripted HTTPS server) receives a token
 * whose credential scope names the assumed access key. A same-account cluster keeps the
 * function's own credentials. A refused AssumeRole is one line naming the role and the fix, with
 * no secret in it. moto_server, when installed, answers AssumeRole as a second opinion.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EKS_TOKEN_PREFIX } from '../lambda/adapters/kube/config/eks-token.js';
import { type EksServer, startEksServer } from '../testkit/eks-server.js';
import { closedPort } from '../testkit/ports.js';
import { type StsServer, startStsServer } from '../testkit/sts-server.js';
import { startTinyApi, type TinyApi } from '../testkit/tiny-api.js';
import { type Harness, startWatchdogHarness } from '../testkit/watchdog-harness.js';

const ROLE = 'arn:aws:iam::210987654321:role/lease-watchdog-reader';
const DENIED_ROLE = 'arn:aws:iam::210987654321:role/not-trusting-us';

/** The presigned STS URL inside an EKS token. */
function tokenUrl(authorization: string | undefined): URL {
  const token = (authorization ?? '').replace(/^Bearer /, '');
  assert.ok(token.startsWith(EKS_TOKEN_PREFIX), `an EKS token, got ${token.slice(0, 20)}`);
  return new URL(Buffer.from(token.slice(EKS_TOKEN_PREFIX.length), 'base64url').toString('utf8'));
}

describe('lambda e2e: an eks cluster in another account (auth.roleArn)', () => {
  let h: Harness;
  let sts: StsServer;
  let eks: EksServer;
  let api: TinyApi;
  const authorizations: (string | undefined)[] = [];
  before(async () => {
    sts = await startStsServer();
    sts.allow(ROLE);
    api = await startTinyApi();
    api.serve((req, res) => {
      authorizations.push(req.headers.authorization);
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 403,
          reason: 'Forbidden',
        }),
      );
    });
    const caData = Buffer.from(api.caPem).toString('base64');
    eks = await startEksServer({
      'remote-eks': { endpoint: api.url, caData },
      'local-eks': { endpoint: api.url, caData },
    });
    h = await startWatchdogHarness({
      clusters: {},
      eksClusters: {
        remote: { clusterName: 'remote-eks', region: 'eu-west-1', roleArn: ROLE },
        refused: { clusterName: 'remote-eks', region: 'eu-west-1', roleArn: DENIED_ROLE },
        local: { clusterName: 'local-eks' },
      },
      eksEndpoint: eks.url,
      stsEndpoint: sts.url,
    });
  });
  after(async () => {
    await h.close();
    await Promise.all([sts.close(), eks.close(), api.close()]);
  });

  it('assumes the role once, and signs eks:DescribeCluster and the EKS token with its credentials', async () => {
    authorizations.length = 0;
    await h.run({ cluster: 'remote' });
    assert.deepEqual(sts.calls, [
      { roleArn: ROLE, sessionName: 'lease-watchdog', signedBy: 'local' },
    ]);
    const assumed = sts.issued[0];
    assert.ok(assumed);
    assert.deepEqual(
      [...new Set(eks.signedBy)],
      [assumed.accessKeyId],
      'DescribeCluster as the role',
    );
    assert.ok(authorizations.length > 0, 'the API server was called');
    const url = tokenUrl(authorizations[0]);
    assert.equal(url.hostname, 'sts.eu-west-1.amazonaws.com');
    const [keyId, , region, service] = (url.searchParams.get('X-Amz-Credential') ?? '').split('/');
    assert.deepEqual([keyId, region, service], [assumed.accessKeyId, 'eu-west-1', 'sts']);
    assert.equal(url.searchParams.get('X-Amz-Security-Token'), assumed.sessionToken);

    // Cached: the next check assumes nothing again.
    await h.tick({ cluster: 'remote' });
    assert.equal(sts.calls.length, 1);
  });

  it('a same-account cluster keeps the function credentials (no AssumeRole)', async () => {
    const calls = sts.calls.length;
    const described = eks.signedBy.length;
    authorizations.length = 0;
    await h.run({ cluster: 'local' });
    assert.equal(sts.calls.length, calls);
    assert.deepEqual(eks.signedBy.slice(described), ['local']);
    const keyId = (tokenUrl(authorizations[0]).searchParams.get('X-Amz-Credential') ?? '').split(
      '/',
    )[0];
    assert.equal(keyId, 'local');
  });

  it('a refused AssumeRole: one line naming the role and the fix, no secret, no call made as anyone else', async () => {
    const described = eks.signedBy.length;
    const mark = h.logger.entries.length;
    await h.run({ cluster: 'refused' });
    assert.equal(sts.calls.at(-1)?.roleArn, DENIED_ROLE);
    assert.equal(eks.signedBy.length, described, 'no DescribeCluster without the role');
    const failure = h.logger.entries
      .slice(mark)
      .find((e) => e.message === 'cannot read the cluster' && e.fields.cluster === 'refused');
    assert.ok(failure, JSON.stringify(h.logger.entries.slice(mark)));
    const message = String(failure.fields.error);
    assert.equal(failure.fields.failure, 'config');
    assert.equal(message.includes('\n'), false);
    assert.match(
      message,
      /^access denied assuming role 'arn:aws:iam::210987654321:role\/not-trusting-us' for cluster 'refused': that role's trust policy must allow sts:AssumeRole to the watchdog function's role \(stack output FunctionRoleArn\)/,
    );
    for (const issued of sts.issued) {
      assert.equal(message.includes(issued.secretAccessKey), false);
      assert.equal(message.includes(issued.sessionToken), false);
    }
  });
});

/** moto's STS, when installed: the same provider, another implementation of AssumeRole. */
const moto = spawnSync('moto_server', ['--help'], { stdio: 'ignore' }).status === 0;

describe('second opinion: AssumeRole against moto_server', {
  skip: moto ? false : 'moto_server is not installed',
}, () => {
  it('the assumed credentials come back and sign the EKS token', async () => {
    const { ClusterAwsCredentials } = await import(
      '../lambda/adapters/kube/config/cluster-credentials.js'
    );
    const { createEksToken } = await import('../lambda/adapters/kube/config/eks-token.js');
    const port = await closedPort();
    const server = spawn('moto_server', ['-p', String(port)], { stdio: 'ignore' });
    try {
      const endpoint = `http://127.0.0.1:${port}`;
      for (let i = 0; i < 100; i++) {
        if (
          await fetch(endpoint).then(
            () => true,
            () => false,
          )
        )
          break;
        await sleep(100);
      }
      const credentials = new ClusterAwsCredentials({
        credentials: async () => ({ accessKeyId: 'AKIAMOTOLOCAL000', secretAccessKey: 'moto' }),
        region: 'eu-west-1',
        now: Date.now,
        sts: { endpoint, maxAttempts: 1 },
      }).forCluster({ auth: { mode: 'eks', clusterName: 'remote-eks', roleArn: ROLE } });
      const assumed = await credentials();
      assert.match(assumed.accessKeyId, /^ASIA/);
      assert.ok(assumed.sessionToken);
      assert.ok((assumed.expiration?.getTime() ?? 0) > Date.now());
      assert.equal(await credentials(), assumed, 'cached');
      const { token } = await createEksToken({
        clusterName: 'remote-eks',
        region: 'eu-west-1',
        credentials: assumed,
        signingDate: new Date(),
      });
      const url = tokenUrl(`Bearer ${token}`);
      assert.equal(url.searchParams.get('X-Amz-Credential')?.split('/')[0], assumed.accessKeyId);
    } finally {
      server.kill();
    }
  });
});
