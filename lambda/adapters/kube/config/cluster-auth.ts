/**
 * A cluster's auth settings → a KubeConfig for the cluster reader, in Lambda: kubeconfig or
 * bearer token from Secrets Manager, or EKS (eks:DescribeCluster + an in-process IAM token), as
 * the function's role or, with `auth.roleArn`, as that role (cluster-credentials.ts).
 *
 * Keep one provider for the life of the container (module level in the composition root): it
 * caches secrets (5 minutes), cluster endpoints and CAs (15 minutes) and EKS tokens (renewed after
 * 10 minutes), by the injected clock. Call `kubeConfigFor` once per check: the KubeConfig it
 * returns carries a token valid for that check, not forever.
 *
 * Stale while error: when refreshing an expired secret or endpoint fails for a reason of AWS's
 * (throttled, 5xx, network), the cached value keeps serving, for at most MAX_STALE_MS (1 hour)
 * past its expiry; every check tries the refresh again. What AWS says about the request itself
 * (not found, access denied) is never masked, and `forget()` (after a 401) drops the value.
 * Throttling and 5xx of Secrets Manager, STS or eks:DescribeCluster are the failure
 * 'unavailable', not 'config': the settings are fine.
 */

import {
  DescribeClusterCommand,
  type DescribeClusterCommandOutput,
  type EKSClient,
} from '@aws-sdk/client-eks';
import {
  GetSecretValueCommand,
  type GetSecretValueCommandOutput,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { identityOf } from '../../../ports/cluster-finder.js';
import type { AuthenticatedCluster } from '../../../ports/index.js';
import type { ClusterAuth } from '../../../settings/index.js';
import {
  aborted,
  assumeRoleError,
  type ClusterAuthError,
  type ClusterAuthReason,
  describeClusterError,
  failing,
  secretError,
  stsUnavailable,
} from './auth-error.js';
import { kubeConfigFromText } from './auth-kubeconfig.js';
import { type ClusterAwsCredentials, kept } from './cluster-credentials.js';
import { EksTokenIssuer } from './eks-token.js';
import type { KubeConfig } from './kube-config.js';
import { base64Pem, bearerToken, httpsServer, singleUserConfig } from './token-kubeconfig.js';

export interface ClusterAuthDeps {
  readonly secrets: SecretsManagerClient;
  /**
   * An EKS client for `region` (the default region when undefined), with `credentials` when given
   * (an assumed role's) instead of the function's own.
   */
  readonly eks: (region?: string, credentials?: AwsCredentialIdentityProvider) => EKSClient;
  /** Each cluster's AWS credentials (`auth.roleArn`): they sign its EKS tokens. */
  readonly awsCredentials: ClusterAwsCredentials;
  /** The function's region: the default for `eks` mode. */
  readonly region: string;
  /** Epoch ms. */
  readonly now: () => number;
}

const SECRET_TTL_MS = 5 * 60_000;
const CLUSTER_INFO_TTL_MS = 15 * 60_000;
const MAX_STALE_MS = 60 * 60_000;
/** Failures of a refresh that a cached value may ride out: AWS's trouble, not the request's. */
const TRANSIENT: ReadonlySet<ClusterAuthReason> = new Set<ClusterAuthReason>([
  'aws-unavailable',
  'secret-unavailable',
  'describe-cluster-failed',
]);

interface Expiring<T> {
  readonly value: T;
  readonly expiresAt: number;
}

interface ClusterInfo {
  readonly endpoint: string;
  readonly caData: string;
}

export class ClusterAuthProvider {
  private readonly secretCache = new Map<string, Expiring<string>>();
  private readonly clusterInfoCache = new Map<string, Expiring<ClusterInfo>>();
  private readonly eksClients = new Map<string, EKSClient>();
  /** Per assumed role ('' for the function's own credentials). */
  private readonly tokenIssuers = new Map<string, EksTokenIssuer>();

  constructor(private readonly deps: ClusterAuthDeps) {}

  /** Rejects with a ClusterAuthError; honours `signal`. */
  async kubeConfigFor(cluster: AuthenticatedCluster, signal?: AbortSignal): Promise<KubeConfig> {
    if (signal?.aborted) throw aborted(cluster.name, signal.reason);
    const { auth } = cluster;
    switch (auth.mode) {
      case 'kubeconfig': {
        const text = await this.secret(cluster.name, auth.secretId, signal);
        return kubeConfigFromText(text, cluster.name, auth);
      }
      case 'token': {
        const server = httpsServer(cluster.name, auth.server);
        const caData = auth.caData === undefined ? undefined : base64Pem(cluster.name, auth.caData);
        const token = bearerToken(
          cluster.name,
          auth.tokenSecretId,
          await this.secret(cluster.name, auth.tokenSecretId, signal),
        );
        return singleUserConfig(cluster.name, server, caData, token);
      }
      case 'eks': {
        const region = auth.region ?? this.deps.region;
        const credentials = this.deps.awsCredentials.forCluster(cluster);
        const { roleArn } = auth;
        if (roleArn !== undefined) {
          // Assumed first, so that a refusal names the role (not the calls made with it).
          await abortable(credentials(), signal).catch((error: unknown) => {
            throw assumeRoleError(cluster.name, roleArn, error, signal);
          });
        }
        const info = await this.clusterInfo(
          { name: cluster.name, auth },
          region,
          credentials,
          signal,
        );
        const issuer = kept(
          this.tokenIssuers,
          roleArn ?? '',
          () => new EksTokenIssuer({ credentials, now: this.deps.now }),
        );
        const { token } = await issuer.token(auth.clusterName, region).catch(stsUnavailable);
        return singleUserConfig(cluster.name, info.endpoint, info.caData, token);
      }
    }
  }

  /**
   * Forgets what is cached for this cluster (secret, endpoint and CA, token), so that the next
   * `kubeConfigFor` fetches afresh: call it after the API server answered 401.
   */
  forget(cluster: AuthenticatedCluster): void {
    const { auth } = cluster;
    switch (auth.mode) {
      case 'kubeconfig':
        this.secretCache.delete(auth.secretId);
        return;
      case 'token':
        this.secretCache.delete(auth.tokenSecretId);
        return;
      case 'eks': {
        const region = auth.region ?? this.deps.region;
        this.clusterInfoCache.delete(clusterInfoKey(auth, region));
        this.tokenIssuers.get(auth.roleArn ?? '')?.forget(auth.clusterName, region);
        return;
      }
    }
  }

  private async secret(cluster: string, secretId: string, signal?: AbortSignal): Promise<string> {
    const now = this.deps.now();
    const cached = this.secretCache.get(secretId);
    if (cached && now < cached.expiresAt) return cached.value;

    let output: GetSecretValueCommandOutput;
    try {
      output = await this.deps.secrets.send(
        new GetSecretValueCommand({ SecretId: secretId }),
        signal ? { abortSignal: signal } : {},
      );
    } catch (error) {
      const failure = secretError(cluster, secretId, error, signal);
      if (this.servesStale(cached, failure, now)) return cached.value;
      throw failure;
    }
    const value =
      output.SecretString ??
      (output.SecretBinary ? Buffer.from(output.SecretBinary).toString('utf8') : '');
    if (value.trim() === '') {
      throw failing(cluster)('secret-invalid', `secret '${secretId}' is empty`);
    }
    this.secretCache.set(secretId, { value, expiresAt: now + SECRET_TTL_MS });
    return value;
  }

  private async clusterInfo(
    settings: { readonly name: string; readonly auth: EksAuth },
    region: string,
    credentials: AwsCredentialIdentityProvider,
    signal?: AbortSignal,
  ): Promise<ClusterInfo> {
    const cluster = settings.name;
    const { clusterName, roleArn, identity } = settings.auth;
    const key = clusterInfoKey(settings.auth, region);
    const now = this.deps.now();
    const cached = this.clusterInfoCache.get(key);
    if (cached && now < cached.expiresAt) return cached.value;

    let description: DescribeClusterCommandOutput;
    try {
      const client = kept(this.eksClients, `${roleArn ?? ''}|${region}`, () =>
        roleArn === undefined ? this.deps.eks(region) : this.deps.eks(region, credentials),
      );
      description = await client.send(
        new DescribeClusterCommand({ name: clusterName }),
        signal ? { abortSignal: signal } : {},
      );
    } catch (error) {
      const failure = describeClusterError(
        cluster,
        { clusterName, region, roleArn },
        error,
        signal,
      );
      if (this.servesStale(cached, failure, now)) return cached.value;
      throw failure;
    }
    const { arn, id, createdAt } = description.cluster ?? {};
    const found = { clusterName, region, arn, id, createdAt: createdAt?.toISOString() };
    if (identity !== undefined && identityOf(found) !== identity) {
      // Deleted and created again since discovery's run: never read the new one with the other's
      // state (the check's WATCHDOG asks EKS, and finds the one watched deleted).
      throw failing(cluster)(
        'describe-cluster-failed',
        `EKS cluster '${clusterName}' in ${region} is not the one discovery watches (created again): discovery takes it up at its next run`,
      );
    }
    const endpoint = description.cluster?.endpoint;
    const caData = description.cluster?.certificateAuthority?.data;
    if (!endpoint || !caData) {
      const status = description.cluster?.status ?? 'unknown';
      throw failing(cluster)(
        'describe-cluster-failed',
        `EKS cluster '${clusterName}' in ${region} has no endpoint or certificate authority yet (status ${status})`,
      );
    }
    const info = {
      endpoint: httpsServer(cluster, endpoint),
      caData: base64Pem(cluster, caData),
    };
    this.clusterInfoCache.set(key, { value: info, expiresAt: now + CLUSTER_INFO_TTL_MS });
    return info;
  }

  /** Whether an expired value rides out this failure of its refresh (see the module comment). */
  private servesStale<T>(
    cached: Expiring<T> | undefined,
    failure: ClusterAuthError,
    now: number,
  ): cached is Expiring<T> {
    return (
      cached !== undefined && TRANSIENT.has(failure.reason) && now < cached.expiresAt + MAX_STALE_MS
    );
  }
}

type EksAuth = Extract<ClusterAuth, { mode: 'eks' }>;

/** Where an EKS cluster's endpoint and CA are cached: per role, region, name and identity. */
function clusterInfoKey({ roleArn, clusterName, identity }: EksAuth, region: string): string {
  return `${roleArn ?? ''}|${region}/${clusterName}|${identity ?? ''}`;
}

/** `work`, or a rejection as soon as `signal` aborts (AssumeRole takes no signal). */
function abortable<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
