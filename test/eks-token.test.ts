/**
 * The EKS IAM token, checked against an independent decoding (plain base64 and URL parsing here,
 * not the module's code) and an independent SigV4 computation with node:crypto, for pinned time
 * and fixed credentials.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import type { AwsCredentialIdentity } from '@smithy/types';
import { ClusterAuthError } from '../lambda/adapters/kube/config/auth-error.js';
import {
  createEksToken,
  EksTokenIssuer,
  stsHostname,
} from '../lambda/adapters/kube/config/eks-token.js';

const SIGNED_AT = Date.parse('2026-11-29T17:52:14.065Z');
const AMZ_DATE = '20261129T175214Z';
const MIN = 60_000;

const STATIC: AwsCredentialIdentity = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const SESSION: AwsCredentialIdentity = {
  accessKeyId: 'ASIAEXAMPLESESSION',
  secretAccessKey: 'sEcReT/kEy+wItH=sPeCiAlS',
  // Real session tokens carry '/', '+' and '=': they must survive the query encoding.
  sessionToken: 'IQoJb3JpZ2luX2VjEPr//////////wEaCXVzLWVhc3QtMSJH+MEUCIQD=',
};

/** Decodes a token with plain string and Buffer code: the prefix, unpadded base64url, a URL. */
function decode(token: string): URL {
  const prefix = 'k8s-aws-v1.';
  assert.ok(token.startsWith(prefix), 'token starts with k8s-aws-v1.');
  const body = token.slice(prefix.length);
  assert.match(body, /^[A-Za-z0-9_-]+$/, 'base64url alphabet, no padding');
  const standard = body.replaceAll('-', '+').replaceAll('_', '/');
  const padded = standard + '='.repeat((4 - (standard.length % 4)) % 4);
  const text = Buffer.from(padded, 'base64').toString('utf8');
  assert.equal(
    Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, ''),
    standard,
    'round-trips (valid base64)',
  );
  return new URL(text);
}

function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const hmac = (key: string | Buffer, text: string) =>
  createHmac('sha256', key).update(text, 'utf8').digest();

/** SigV4 for a presigned GET on `host` (AWS docs: canonical request → string to sign → HMAC). */
function expectedSignature(input: {
  host: string;
  clusterName: string;
  region: string;
  secretAccessKey: string;
  query: Record<string, string>;
}): string {
  const canonicalQuery = Object.entries(input.query)
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [
    'GET',
    '/',
    canonicalQuery,
    `host:${input.host}\nx-k8s-aws-id:${input.clusterName}\n`,
    'host;x-k8s-aws-id',
    sha256Hex(''),
  ].join('\n');
  const day = AMZ_DATE.slice(0, 8);
  const scope = `${day}/${input.region}/sts/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', AMZ_DATE, scope, sha256Hex(canonicalRequest)].join(
    '\n',
  );
  const kDate = hmac(`AWS4${input.secretAccessKey}`, day);
  const kRegion = hmac(kDate, input.region);
  const kService = hmac(kRegion, 'sts');
  const kSigning = hmac(kService, 'aws4_request');
  return createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest('hex');
}

function paramsOf(url: URL): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of url.searchParams) {
    assert.equal(params[key], undefined, `parameter ${key} appears once`);
    params[key] = value;
  }
  return params;
}

describe('createEksToken: the token, decoded independently', () => {
  const cases = [
    { name: 'session credentials', credentials: SESSION, region: 'eu-west-1' },
    { name: 'static credentials', credentials: STATIC, region: 'us-east-1' },
  ];
  for (const { name, credentials, region } of cases) {
    it(`${name}: a presigned STS GetCallerIdentity URL, signed as SigV4 prescribes`, async () => {
      // Prepare
      const clusterName = 'prod-eu_1';

      // Act
      const { token, signedAt, expiresAt } = await createEksToken({
        clusterName,
        region,
        credentials,
        signingDate: new Date(SIGNED_AT),
      });

      // Assess
      const url = decode(token);
      assert.equal(url.protocol, 'https:');
      assert.equal(url.host, `sts.${region}.amazonaws.com`);
      assert.equal(url.pathname, '/');
      const params = paramsOf(url);
      const { 'X-Amz-Signature': signature, ...signed } = params;
      const expected: Record<string, string> = {
        Action: 'GetCallerIdentity',
        Version: '2011-06-15',
        'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
        'X-Amz-Credential': `${credentials.accessKeyId}/20261129/${region}/sts/aws4_request`,
        'X-Amz-Date': AMZ_DATE,
        'X-Amz-Expires': '60',
        'X-Amz-SignedHeaders': 'host;x-k8s-aws-id',
      };
      if (credentials.sessionToken) expected['X-Amz-Security-Token'] = credentials.sessionToken;
      assert.deepEqual(signed, expected);
      assert.equal('X-Amz-Security-Token' in params, credentials.sessionToken !== undefined);
      assert.match(signature ?? '', /^[0-9a-f]{64}$/);
      assert.equal(
        signature,
        expectedSignature({
          host: url.host,
          clusterName,
          region,
          secretAccessKey: credentials.secretAccessKey,
          query: expected,
        }),
      );
      assert.equal(signedAt, Date.parse('2026-11-29T17:52:14Z'));
      assert.equal(expiresAt - signedAt, 15 * MIN);
      assert.ok(!token.includes(credentials.secretAccessKey));
      assert.ok(!url.href.includes(credentials.secretAccessKey), 'the secret key never travels');
    });
  }

  it('writes the query like the Go SDK: sorted by name, X-Amz-Signature last', async () => {
    const { token } = await createEksToken({
      clusterName: 'c',
      region: 'eu-west-1',
      credentials: SESSION,
      signingDate: new Date(SIGNED_AT),
    });
    const url = decode(token);
    const keys = [...url.searchParams.keys()];
    assert.deepEqual(keys, [
      'Action',
      'Version',
      'X-Amz-Algorithm',
      'X-Amz-Credential',
      'X-Amz-Date',
      'X-Amz-Expires',
      'X-Amz-Security-Token',
      'X-Amz-SignedHeaders',
      'X-Amz-Signature',
    ]);
    // '/', '+' and '=' of the session token are percent-encoded, never left raw or as '+'.
    assert.match(url.search, /X-Amz-Security-Token=IQoJb3JpZ2luX2VjEPr%2F%2F%2F/);
    assert.match(url.search, /%2BMEUCIQD%3D&/);
  });

  it('signs the cluster name: two clusters, two signatures', async () => {
    const sign = (clusterName: string) =>
      createEksToken({
        clusterName,
        region: 'eu-west-1',
        credentials: STATIC,
        signingDate: new Date(SIGNED_AT),
      }).then(({ token }) => decode(token).searchParams.get('X-Amz-Signature'));
    assert.notEqual(await sign('a'), await sign('b'));
    assert.equal(await sign('a'), await sign('a'), 'deterministic for the same input');
  });

  it('uses the regional STS endpoint of the partition', () => {
    assert.equal(stsHostname('us-east-1'), 'sts.us-east-1.amazonaws.com');
    assert.equal(stsHostname('ap-southeast-2'), 'sts.ap-southeast-2.amazonaws.com');
    assert.equal(stsHostname('us-gov-west-1'), 'sts.us-gov-west-1.amazonaws.com');
    assert.equal(stsHostname('cn-north-1'), 'sts.cn-north-1.amazonaws.com.cn');
    assert.throws(() => stsHostname('evil.example.com/x'), /region must look like/);
    assert.throws(() => stsHostname(''), /region must look like/);
  });

  it('refuses a name that is not an EKS cluster name (it goes into a signed header)', async () => {
    await assert.rejects(
      createEksToken({
        clusterName: 'bad\nname',
        region: 'eu-west-1',
        credentials: STATIC,
        signingDate: new Date(SIGNED_AT),
      }),
      /not a valid EKS cluster name/,
    );
  });
});

describe('EksTokenIssuer: caching and renewal (injected clock)', () => {
  // A whole second: STS counts the 15 minutes from X-Amz-Date, which has second resolution.
  const T0 = Date.parse('2026-11-29T17:52:14Z');
  function issuer(credentials: () => Promise<AwsCredentialIdentity>) {
    let now = T0;
    let loads = 0;
    const issue = new EksTokenIssuer({
      credentials: () => {
        loads += 1;
        return credentials();
      },
      now: () => now,
    });
    return {
      issue,
      advance: (ms: number) => {
        now += ms;
      },
      loads: () => loads,
    };
  }

  it('hands out the same token within 10 minutes, and a new one after', async () => {
    const { issue, advance, loads } = issuer(async () => SESSION);
    const first = await issue.token('prod', 'eu-west-1');

    advance(10 * MIN - 1);
    const again = await issue.token('prod', 'eu-west-1');
    assert.equal(again.token, first.token);
    assert.equal(loads(), 1);

    advance(1);
    const renewed = await issue.token('prod', 'eu-west-1');
    assert.notEqual(renewed.token, first.token);
    assert.equal(decode(renewed.token).searchParams.get('X-Amz-Date'), '20261129T180214Z');
    assert.equal(renewed.expiresAt, T0 + 25 * MIN, 'valid for 15 minutes from renewal');
  });

  it('keeps one token per cluster and region', async () => {
    const { issue } = issuer(async () => STATIC);
    const a = await issue.token('a', 'eu-west-1');
    const b = await issue.token('b', 'eu-west-1');
    const aElsewhere = await issue.token('a', 'us-west-2');
    assert.equal(new Set([a.token, b.token, aElsewhere.token]).size, 3);
    assert.equal(decode(aElsewhere.token).host, 'sts.us-west-2.amazonaws.com');
  });

  it('renews early when the signing credentials expire before 10 minutes', async () => {
    const expiring = { ...SESSION, expiration: new Date(T0 + 5 * MIN) };
    const { issue, advance } = issuer(async () => expiring);
    const first = await issue.token('prod', 'eu-west-1');
    advance(3 * MIN);
    assert.equal((await issue.token('prod', 'eu-west-1')).token, first.token);
    advance(1 * MIN + 1); // within a minute of the credentials' expiry
    assert.notEqual((await issue.token('prod', 'eu-west-1')).token, first.token);
  });

  it('reports credentials that cannot be loaded as a ClusterAuthError', async () => {
    const { issue } = issuer(async () => {
      throw Object.assign(new Error('Could not load credentials from any providers'), {
        name: 'CredentialsProviderError',
      });
    });
    const error = await issue.token('prod', 'eu-west-1').catch((e: unknown) => e);
    assert.ok(error instanceof ClusterAuthError);
    assert.equal(error.reason, 'credentials');
    assert.match(error.message, /could not load AWS credentials .* cluster 'prod'/);
    assert.doesNotMatch(error.message, /\n/);
  });

  it('forget() drops the cached token: the next call signs again', async () => {
    const { issue, loads } = issuer(async () => STATIC);
    await issue.token('prod', 'eu-west-1');
    await issue.token('prod', 'eu-west-1');
    assert.equal(loads(), 1);
    issue.forget('prod', 'eu-west-1');
    await issue.token('prod', 'eu-west-1');
    assert.equal(loads(), 2);
  });

  it('never shows the secret key or session token when inspected in an error', async () => {
    const { issue } = issuer(async () => SESSION);
    const error = await issue.token('bad name!', 'eu-west-1').catch((e: unknown) => e);
    assert.ok(error instanceof ClusterAuthError);
    assert.equal(error.reason, 'settings-invalid');
    const shown = inspect(error, { depth: 10 });
    assert.ok(!shown.includes(SESSION.secretAccessKey));
    assert.ok(!shown.includes(SESSION.sessionToken ?? '?'));
  });
});
