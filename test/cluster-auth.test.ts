/**
 * ClusterAuthProvider through the real SDK clients against local Secrets Manager and EKS endpoints
 * (testkit), each auth mode, the refusals, the caches (injected clock) and the rule that no
 * secret ever shows in an error.
 */

import assert from 'node:assert/strict';
import type { RequestOptions } from 'node:https';
import { after, before, beforeEach, describe, it } from 'node:test';
import { inspect } from 'node:util';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import {
  ClusterAuthError,
  type ClusterAuthReason,
} from '../lambda/adapters/kube/config/auth-error.js';
import { ClusterAuthProvider } from '../lambda/adapters/kube/config/cluster-auth.js';
import { ClusterAwsCredentials } from '../lambda/adapters/kube/config/cluster-credentials.js';
import type { KubeConfig } from '../lambda/adapters/kube/config/kube-config.js';
import type { AuthenticatedCluster } from '../lambda/ports/index.js';
import type { ClusterAuth } from '../lambda/settings/index.js';
import { type EksServer, startEksServer } from '../testkit/eks-server.js';
import { type SecretsServer, startSecretsServer } from '../testkit/secrets-server.js';

const MIN = 60_000;
const T0 = Date.parse('2026-11-29T17:52:14Z');
const PEM = '-----BEGIN CERTIFICATE-----\nMIIBdGVzdC1jYQ==\n-----END CERTIFICATE-----\n';
const CA_DATA = Buffer.from(PEM).toString('base64');
const SA_TOKEN = 'eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXNlcnZpY2UtYWNjb3VudC10b2tlbg.SIGNATURE-prod-Zx9';
const STAGING_TOKEN = 'staging-token-7f3e9a1b2c4d5e6f';
const CREDENTIALS = {
  accessKeyId: 'ASIALOCALSIGNER',
  secretAccessKey: 'local/secret+key',
  sessionToken: 'FwoGZXIvYXdzEBYaDLocalSessionToken/+=',
};

const KUBECONFIG = `apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: prod-cluster
  cluster:
    server: https://prod.k8s.example.com:6443/
    certificate-authority-data: ${CA_DATA}
- name: staging-cluster
  cluster:
    server: https://staging.k8s.example.com
contexts:
- name: prod
  context: {cluster: prod-cluster, user: prod-reader}
- name: staging
  context: {cluster: staging-cluster, user: staging-reader}
users:
- name: prod-reader
  user:
    token: ${SA_TOKEN}
- name: staging-reader
  user:
    token: ${STAGING_TOKEN}
`;

const EXEC_KUBECONFIG = `apiVersion: v1
kind: Config
current-context: eks
clusters:
- name: eks
  cluster: {server: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', certificate-authority-data: ${CA_DATA}}
contexts:
- name: eks
  context: {cluster: eks, user: eks-admin}
users:
- name: eks-admin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: /usr/local/bin/aws
      args: [eks, get-token, --cluster-name, prod]
`;

const INSECURE_KUBECONFIG = KUBECONFIG.replace(
  `certificate-authority-data: ${CA_DATA}`,
  'insecure-skip-tls-verify: true',
);

const TOKEN_FILE_KUBECONFIG = KUBECONFIG.replace(
  `token: ${SA_TOKEN}`,
  'token-file: /proc/self/environ',
);

const BROKEN_KUBECONFIG = `apiVersion: v1
users:
- name: prod-reader
  user:
    token: ${SA_TOKEN}
   bad-indent: [${SA_TOKEN}
`;

const SECRETS = {
  'watchdog/prod-kubeconfig': KUBECONFIG,
  'watchdog/exec-kubeconfig': EXEC_KUBECONFIG,
  'watchdog/insecure-kubeconfig': INSECURE_KUBECONFIG,
  'watchdog/token-file-kubeconfig': TOKEN_FILE_KUBECONFIG,
  'watchdog/broken-kubeconfig': BROKEN_KUBECONFIG,
  'watchdog/prod-token': `${SA_TOKEN}\n`,
  'watchdog/json-token': JSON.stringify({ token: STAGING_TOKEN }),
  'watchdog/not-a-token': `${SA_TOKEN} ${STAGING_TOKEN}`,
  'watchdog/denied': SA_TOKEN,
};

/** Every secret value the tests hold: none may appear in an error. */
const SECRET_MATERIAL = [
  SA_TOKEN,
  STAGING_TOKEN,
  CREDENTIALS.secretAccessKey,
  CREDENTIALS.sessionToken,
];

let secrets: SecretsServer;
let eks: EksServer;

describe('cluster auth', () => {
  before(async () => {
    secrets = await startSecretsServer(SECRETS);
    secrets.deny('watchdog/denied');
    eks = await startEksServer({
      prod: { endpoint: 'https://ABCDEF.gr7.eu-west-1.eks.amazonaws.com', caData: CA_DATA },
      creating: { status: 'CREATING' },
    });
  });

  after(async () => {
    await secrets.close();
    await eks.close();
  });

  function setup(credentials: AwsCredentialIdentityProvider = async () => CREDENTIALS) {
    let now = T0;
    const eksRegions: (string | undefined)[] = [];
    const provider = new ClusterAuthProvider({
      secrets: secrets.client,
      eks: (region) => {
        eksRegions.push(region);
        return eks.client;
      },
      awsCredentials: new ClusterAwsCredentials({
        credentials,
        region: 'eu-west-1',
        now: () => now,
      }),
      region: 'eu-west-1',
      now: () => now,
    });
    return {
      provider,
      eksRegions,
      advance: (ms: number) => {
        now += ms;
      },
    };
  }

  function cluster(auth: ClusterAuth, name = 'prod'): AuthenticatedCluster {
    return { name, auth };
  }

  async function authError(promise: Promise<unknown>, reason: ClusterAuthReason) {
    const error = await promise.then(
      () => assert.fail(`expected a ClusterAuthError (${reason})`),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ClusterAuthError, `a ClusterAuthError, got ${inspect(error)}`);
    assert.equal(error.reason, reason, error.message);
    assert.equal(error.name, 'ClusterAuthError');
    assert.doesNotMatch(error.message, /[\r\n]/, 'one line');
    const shown = inspect(error, { depth: 20 });
    for (const secret of SECRET_MATERIAL) {
      assert.ok(!error.message.includes(secret), `message leaks a secret: ${error.message}`);
      assert.ok(!shown.includes(secret), 'the error (with its cause) leaks a secret');
    }
    return error;
  }

  /** How client-node will use the config for a request: TLS options and headers. */
  async function requestOptions(config: KubeConfig): Promise<RequestOptions> {
    const options: RequestOptions = {};
    await config.applyToHTTPSOptions(options);
    return options;
  }

  function decodeEksToken(token: string): URL {
    assert.ok(token.startsWith('k8s-aws-v1.'));
    return new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
  }

  describe("mode 'kubeconfig'", () => {
    it('uses the current context, and keeps only that context', async () => {
      const { provider } = setup();
      const config = await provider.kubeConfigFor(
        cluster({ mode: 'kubeconfig', secretId: 'watchdog/prod-kubeconfig' }),
      );
      assert.equal(config.getCurrentContext(), 'prod');
      assert.equal(config.getCurrentCluster()?.server, 'https://prod.k8s.example.com:6443');
      assert.equal(config.getCurrentCluster()?.skipTLSVerify, false);
      assert.deepEqual(
        config.getContexts().map((c) => c.name),
        ['prod'],
      );
      assert.deepEqual(
        config.getUsers().map((u) => u.name),
        ['prod-reader'],
      );
      const options = await requestOptions(config);
      assert.equal((options.headers as Record<string, string>).Authorization, `Bearer ${SA_TOKEN}`);
      assert.equal(String(options.ca), PEM);
      assert.notEqual(options.rejectUnauthorized, false);
    });

    it('selects the context it is told to', async () => {
      const { provider } = setup();
      const config = await provider.kubeConfigFor(
        cluster({ mode: 'kubeconfig', secretId: 'watchdog/prod-kubeconfig', context: 'staging' }),
      );
      assert.equal(config.getCurrentContext(), 'staging');
      assert.equal(config.getCurrentUser()?.token, STAGING_TOKEN);
      assert.equal(config.getCurrentCluster()?.server, 'https://staging.k8s.example.com');
    });

    it('names an unknown context and the known ones, and no secret', async () => {
      const { provider } = setup();
      const error = await authError(
        provider.kubeConfigFor(
          cluster({ mode: 'kubeconfig', secretId: 'watchdog/prod-kubeconfig', context: 'qa' }),
        ),
        'context-not-found',
      );
      assert.equal(
        error.message,
        "kubeconfig in secret 'watchdog/prod-kubeconfig' has no context 'qa'; it has 'prod', 'staging'",
      );
    });

    it('refuses a user that needs an exec plugin, pointing to eks mode', async () => {
      const { provider } = setup();
      const error = await authError(
        provider.kubeConfigFor(
          cluster({ mode: 'kubeconfig', secretId: 'watchdog/exec-kubeconfig' }),
        ),
        'exec-plugin',
      );
      assert.match(
        error.message,
        /^kubeconfig user 'eks-admin' needs the exec plugin 'aws' which does not exist in Lambda; use auth mode 'eks' for EKS clusters/,
      );
      assert.equal(error.failure, 'exec-plugin');
    });

    it('refuses insecure-skip-tls-verify', async () => {
      const { provider } = setup();
      const error = await authError(
        provider.kubeConfigFor(
          cluster({ mode: 'kubeconfig', secretId: 'watchdog/insecure-kubeconfig' }),
        ),
        'insecure-tls',
      );
      assert.match(error.message, /cluster 'prod-cluster' sets insecure-skip-tls-verify/);
    });

    it('refuses token-file before client-node could read the file', async () => {
      const { provider } = setup();
      await authError(
        provider.kubeConfigFor(
          cluster({ mode: 'kubeconfig', secretId: 'watchdog/token-file-kubeconfig' }),
        ),
        'file-reference',
      );
    });

    it('reports unparseable YAML by position, without quoting it', async () => {
      const { provider } = setup();
      const error = await authError(
        provider.kubeConfigFor(
          cluster({ mode: 'kubeconfig', secretId: 'watchdog/broken-kubeconfig' }),
        ),
        'kubeconfig-invalid',
      );
      assert.match(
        error.message,
        /^kubeconfig in secret 'watchdog\/broken-kubeconfig' is not valid YAML \(line \d+, column \d+\)$/,
      );
    });

    it('names a missing secret', async () => {
      const { provider } = setup();
      const error = await authError(
        provider.kubeConfigFor(cluster({ mode: 'kubeconfig', secretId: 'watchdog/nope' })),
        'secret-not-found',
      );
      assert.match(error.message, /secret 'watchdog\/nope' for cluster 'prod' was not found/);
    });
  });

  describe('the secret cache (injected clock)', () => {
    it('reads a secret once within the TTL, and again after it', async () => {
      const { provider, advance } = setup();
      const auth: ClusterAuth = { mode: 'kubeconfig', secretId: 'watchdog/prod-kubeconfig' };
      const before = secrets.callsFor('watchdog/prod-kubeconfig');

      await provider.kubeConfigFor(cluster(auth));
      advance(5 * MIN - 1);
      await provider.kubeConfigFor(cluster(auth));
      assert.equal(secrets.callsFor('watchdog/prod-kubeconfig') - before, 1, 'cached');

      advance(1);
      await provider.kubeConfigFor(cluster(auth));
      assert.equal(secrets.callsFor('watchdog/prod-kubeconfig') - before, 2, 'expired after 5 min');
    });

    it('does not cache failures, and forget() drops a cached secret', async () => {
      const { provider } = setup();
      const auth: ClusterAuth = {
        mode: 'token',
        server: 'https://k.example',
        tokenSecretId: 'late',
      };
      await authError(provider.kubeConfigFor(cluster(auth)), 'secret-not-found');
      secrets.put('late', 'first-token');
      const first = await provider.kubeConfigFor(cluster(auth));
      assert.equal(first.getCurrentUser()?.token, 'first-token');

      secrets.put('late', 'rotated-token');
      const cached = await provider.kubeConfigFor(cluster(auth));
      assert.equal(cached.getCurrentUser()?.token, 'first-token');
      provider.forget(cluster(auth));
      const fresh = await provider.kubeConfigFor(cluster(auth));
      assert.equal(fresh.getCurrentUser()?.token, 'rotated-token');
    });
  });

  describe("mode 'token'", () => {
    it('builds a config from server, CA and the token in Secrets Manager', async () => {
      const { provider } = setup();
      const config = await provider.kubeConfigFor(
        cluster({
          mode: 'token',
          server: 'https://10.0.0.1:6443/',
          caData: CA_DATA,
          tokenSecretId: 'watchdog/prod-token',
        }),
      );
      assert.equal(config.getCurrentCluster()?.server, 'https://10.0.0.1:6443');
      assert.equal(config.getCurrentCluster()?.skipTLSVerify, false);
      assert.equal(config.getCurrentUser()?.token, SA_TOKEN, 'trailing newline trimmed');
      const options = await requestOptions(config);
      assert.equal((options.headers as Record<string, string>).Authorization, `Bearer ${SA_TOKEN}`);
      assert.equal(String(options.ca), PEM);
      assert.notEqual(options.rejectUnauthorized, false);
    });

    it('reads {"token": ...} JSON secrets, and works without caData (system CAs)', async () => {
      const { provider } = setup();
      const config = await provider.kubeConfigFor(
        cluster({
          mode: 'token',
          server: 'https://k.example',
          tokenSecretId: 'watchdog/json-token',
        }),
      );
      assert.equal(config.getCurrentUser()?.token, STAGING_TOKEN);
      assert.equal(config.getCurrentCluster()?.caData, undefined);
    });

    const refusals: {
      name: string;
      auth: ClusterAuth;
      reason: ClusterAuthReason;
      match: RegExp;
    }[] = [
      {
        name: 'a plain-http server',
        auth: { mode: 'token', server: 'http://10.0.0.1', tokenSecretId: 'watchdog/prod-token' },
        reason: 'insecure-tls',
        match: /must be an https:\/\/ URL/,
      },
      {
        name: 'CA data that is not base64 PEM',
        auth: {
          mode: 'token',
          server: 'https://10.0.0.1',
          caData: 'bm90IGEgY2VydA==',
          tokenSecretId: 'watchdog/prod-token',
        },
        reason: 'ca-invalid',
        match: /not a base64-encoded PEM certificate/,
      },
      {
        name: 'a secret that is not one token',
        auth: { mode: 'token', server: 'https://10.0.0.1', tokenSecretId: 'watchdog/not-a-token' },
        reason: 'secret-invalid',
        match: /does not hold a bearer token/,
      },
      {
        name: 'a secret the role may not read',
        auth: { mode: 'token', server: 'https://10.0.0.1', tokenSecretId: 'watchdog/denied' },
        reason: 'secret-access-denied',
        match: /needs secretsmanager:GetSecretValue/,
      },
    ];
    for (const { name, auth, reason, match } of refusals) {
      it(`refuses ${name}`, async () => {
        const { provider } = setup();
        const error = await authError(provider.kubeConfigFor(cluster(auth)), reason);
        assert.match(error.message, match);
      });
    }
  });

  describe("mode 'eks'", () => {
    beforeEach(() => {
      eks.denyAll(false);
    });

    it('takes endpoint and CA from DescribeCluster and signs an IAM token in-process', async () => {
      const { provider, eksRegions } = setup();
      const config = await provider.kubeConfigFor(cluster({ mode: 'eks', clusterName: 'prod' }));
      assert.equal(
        config.getCurrentCluster()?.server,
        'https://ABCDEF.gr7.eu-west-1.eks.amazonaws.com',
      );
      assert.equal(config.getCurrentCluster()?.caData, CA_DATA);
      assert.equal(config.getCurrentCluster()?.skipTLSVerify, false);
      assert.deepEqual(eksRegions, ['eu-west-1']);
      const token = config.getCurrentUser()?.token ?? '';
      const url = decodeEksToken(token);
      assert.equal(url.host, 'sts.eu-west-1.amazonaws.com');
      assert.equal(url.searchParams.get('Action'), 'GetCallerIdentity');
      assert.equal(url.searchParams.get('X-Amz-SignedHeaders'), 'host;x-k8s-aws-id');
      assert.equal(url.searchParams.get('X-Amz-Security-Token'), CREDENTIALS.sessionToken);
      assert.equal(
        url.searchParams.get('X-Amz-Date'),
        '20261129T175214Z',
        'signed at the injected now',
      );
      const options = await requestOptions(config);
      assert.equal((options.headers as Record<string, string>).Authorization, `Bearer ${token}`);
    });

    it('caches DescribeCluster and the token; renews the token after 10 minutes', async () => {
      const { provider, advance } = setup();
      const before = eks.calls;
      const auth: ClusterAuth = { mode: 'eks', clusterName: 'prod' };
      const first = (await provider.kubeConfigFor(cluster(auth))).getCurrentUser()?.token;
      advance(10 * MIN - 1);
      const second = (await provider.kubeConfigFor(cluster(auth))).getCurrentUser()?.token;
      assert.equal(second, first);
      advance(1);
      const third = (await provider.kubeConfigFor(cluster(auth))).getCurrentUser()?.token;
      assert.notEqual(third, first);
      assert.equal(decodeEksToken(third ?? '').searchParams.get('X-Amz-Date'), '20261129T180214Z');
      assert.equal(eks.calls - before, 1, 'one DescribeCluster within 15 minutes');
      assert.deepEqual(eks.requests.slice(before), ['/clusters/prod']);
    });

    it('forget() (a 401) drops the cached endpoint and CA: DescribeCluster is asked again', async () => {
      const { provider } = setup();
      const before = eks.calls;
      const auth: ClusterAuth = { mode: 'eks', clusterName: 'prod' };
      await provider.kubeConfigFor(cluster(auth));
      provider.forget(cluster(auth));
      await provider.kubeConfigFor(cluster(auth));
      assert.equal(eks.calls - before, 2, 'one DescribeCluster before forget(), one after');
    });

    it('uses the cluster region when given, for DescribeCluster and STS', async () => {
      const { provider, eksRegions } = setup();
      const config = await provider.kubeConfigFor(
        cluster({ mode: 'eks', clusterName: 'prod', region: 'us-west-2' }),
      );
      assert.deepEqual(eksRegions, ['us-west-2']);
      const url = decodeEksToken(config.getCurrentUser()?.token ?? '');
      assert.equal(url.host, 'sts.us-west-2.amazonaws.com');
      assert.match(
        url.searchParams.get('X-Amz-Credential') ?? '',
        /\/us-west-2\/sts\/aws4_request$/,
      );
    });

    it('names a cluster DescribeCluster does not know', async () => {
      const { provider } = setup();
      const error = await authError(
        provider.kubeConfigFor(cluster({ mode: 'eks', clusterName: 'gone' })),
        'cluster-not-found',
      );
      assert.equal(
        error.message,
        "EKS cluster 'gone' was not found in eu-west-1 (eks:DescribeCluster)",
      );
    });

    it('names the missing eks:DescribeCluster permission on AccessDenied', async () => {
      const { provider } = setup();
      eks.denyAll(true);
      const error = await authError(
        provider.kubeConfigFor(cluster({ mode: 'eks', clusterName: 'prod' })),
        'describe-cluster-denied',
      );
      assert.match(error.message, /needs the eks:DescribeCluster permission/);
      assert.equal(error.failure, 'config');
    });

    it('says so when the cluster has no endpoint yet', async () => {
      const { provider } = setup();
      const error = await authError(
        provider.kubeConfigFor(cluster({ mode: 'eks', clusterName: 'creating' })),
        'describe-cluster-failed',
      );
      assert.match(error.message, /no endpoint or certificate authority yet \(status CREATING\)/);
    });
  });

  describe('abort', () => {
    it('rejects with reason aborted when the signal has fired', async () => {
      const { provider } = setup();
      const controller = new AbortController();
      controller.abort(new Error('deadline'));
      const error = await authError(
        provider.kubeConfigFor(
          cluster({ mode: 'kubeconfig', secretId: 'watchdog/prod-kubeconfig' }),
          controller.signal,
        ),
        'aborted',
      );
      assert.equal(error.failure, 'aborted');
    });

    it('cancels a Secrets Manager call that hangs when the signal fires', async () => {
      const { provider } = setup();
      secrets.put('watchdog/hanging', SA_TOKEN);
      secrets.hang('watchdog/hanging');
      const controller = new AbortController();
      const pending = provider.kubeConfigFor(
        cluster({ mode: 'token', server: 'https://k.example', tokenSecretId: 'watchdog/hanging' }),
        controller.signal,
      );
      setTimeout(() => controller.abort(new Error('deadline')), 50);
      await authError(pending, 'aborted');
    });
  });

  describe("AWS throttled or failing: the class 'unavailable', and the cache rides it out", () => {
    const tokenAuth = (secretId: string): ClusterAuth => ({
      mode: 'token',
      server: 'https://k.example',
      tokenSecretId: secretId,
    });
    beforeEach(() => {
      eks.unavailable(null);
      eks.denyAll(false);
    });

    for (const how of ['throttle', '5xx'] as const) {
      it(`Secrets Manager ${how} → unavailable, not config`, async () => {
        const { provider } = setup();
        secrets.put(`watchdog/${how}`, SA_TOKEN);
        secrets.unavailable(`watchdog/${how}`, how);
        const error = await authError(
          provider.kubeConfigFor(cluster(tokenAuth(`watchdog/${how}`))),
          'aws-unavailable',
        );
        assert.equal(error.failure, 'unavailable');
        assert.match(error.message, /^Secrets Manager throttled or failed reading secret/);
        secrets.unavailable(`watchdog/${how}`, null);
      });

      it(`eks:DescribeCluster ${how} → unavailable, not config`, async () => {
        const { provider } = setup();
        eks.unavailable(how);
        const error = await authError(
          provider.kubeConfigFor(cluster({ mode: 'eks', clusterName: 'prod' })),
          'aws-unavailable',
        );
        assert.equal(error.failure, 'unavailable');
        assert.match(error.message, /^eks:DescribeCluster on 'prod' in eu-west-1 was throttled/);
      });
    }

    it('STS throttling the credentials that sign the EKS token → unavailable', async () => {
      // The credential chain's STS call cannot be made to throttle here: the error it would throw.
      const throttled = Object.assign(new Error('Rate exceeded'), {
        name: 'Throttling',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      });
      const { provider } = setup(async () => {
        throw throttled;
      });
      const error = await authError(
        provider.kubeConfigFor(cluster({ mode: 'eks', clusterName: 'prod' })),
        'aws-unavailable',
      );
      assert.equal(error.failure, 'unavailable');
    });

    it('a cached secret keeps serving while its refresh is throttled, for at most an hour', async () => {
      const { provider, advance } = setup();
      secrets.put('watchdog/stale', 'cached-token');
      const auth = tokenAuth('watchdog/stale');
      await provider.kubeConfigFor(cluster(auth));
      secrets.unavailable('watchdog/stale', 'throttle');
      const before = secrets.callsFor('watchdog/stale');

      advance(5 * MIN); // expired: refreshed, throttled, the cached value serves
      const stale = await provider.kubeConfigFor(cluster(auth));
      advance(60 * MIN - 1);
      const stillStale = await provider.kubeConfigFor(cluster(auth));
      assert.equal(stale.getCurrentUser()?.token, 'cached-token');
      assert.equal(stillStale.getCurrentUser()?.token, 'cached-token');
      assert.equal(secrets.callsFor('watchdog/stale') - before, 2, 'each check tries the refresh');

      advance(1); // an hour past its expiry: no longer served
      await authError(provider.kubeConfigFor(cluster(auth)), 'aws-unavailable');

      secrets.unavailable('watchdog/stale', null);
      secrets.put('watchdog/stale', 'fresh-token');
      const fresh = await provider.kubeConfigFor(cluster(auth));
      assert.equal(fresh.getCurrentUser()?.token, 'fresh-token');
    });

    it('a cached secret does not mask access denied, nor outlive forget() (a 401)', async () => {
      const { provider, advance } = setup();
      secrets.put('watchdog/revoked', 'cached-token');
      const auth = tokenAuth('watchdog/revoked');
      await provider.kubeConfigFor(cluster(auth));
      secrets.unavailable('watchdog/revoked', '5xx');
      provider.forget(cluster(auth));
      await authError(provider.kubeConfigFor(cluster(auth)), 'aws-unavailable');

      secrets.unavailable('watchdog/revoked', null);
      await provider.kubeConfigFor(cluster(auth));
      secrets.deny('watchdog/revoked');
      advance(5 * MIN);
      await authError(provider.kubeConfigFor(cluster(auth)), 'secret-access-denied');
    });

    it('a cached endpoint keeps serving while DescribeCluster fails; the token is still renewed', async () => {
      const { provider, advance } = setup();
      const auth: ClusterAuth = { mode: 'eks', clusterName: 'prod' };
      const first = await provider.kubeConfigFor(cluster(auth));
      eks.unavailable('5xx');
      const before = eks.calls;

      advance(15 * MIN);
      const stale = await provider.kubeConfigFor(cluster(auth));
      assert.equal(eks.calls - before, 1, 'the refresh was tried');
      assert.equal(stale.getCurrentCluster()?.server, first.getCurrentCluster()?.server);
      assert.equal(stale.getCurrentCluster()?.caData, CA_DATA);
      assert.notEqual(stale.getCurrentUser()?.token, first.getCurrentUser()?.token, 'a new token');

      advance(60 * MIN);
      await authError(provider.kubeConfigFor(cluster(auth)), 'aws-unavailable');
    });
  });
});
