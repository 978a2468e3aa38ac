/**
 * EKS IAM authentication tokens, generated in-process (no aws CLI, no exec plugin).
 *
 * Built exactly like aws-iam-authenticator (`pkg/token/token.go`, `GetWithSTS`) and
 * `aws eks get-token` (awscli `customizations/eks/get_token.py`, `TokenGenerator`):
 * an STS `GetCallerIdentity` GET request on the regional STS endpoint, with the header
 * `x-k8s-aws-id: <cluster name>` added before signing, SigV4-presigned with `X-Amz-Expires=60`
 * (ignored by STS: a presigned STS URL is valid for 15 minutes after `X-Amz-Date`), then
 * `k8s-aws-v1.` + the URL in unpadded base64url.
 *
 * Regional endpoint: aws-iam-authenticator switches to `endpoints.RegionalSTSEndpoint` when given a
 * region, and the AWS CLI v2 defaults `sts_regional_endpoints` to `regional`; the server-side
 * verifier accepts every regional STS host of the partition. The global `sts.amazonaws.com`
 * (us-east-1 only) is not used: it would make every token depend on us-east-1.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { describeAwsError, failing } from './auth-error.js';

export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/** `X-Amz-Expires`: required by SigV4 presigning, ignored by STS; 60 for old authenticators. */
export const PRESIGN_EXPIRES_SECONDS = 60;
/** STS accepts a presigned GetCallerIdentity URL for 15 minutes after its `X-Amz-Date`. */
export const EKS_TOKEN_LIFETIME_MS = 15 * 60_000;
/** Renew well before the 15 minutes run out (the CLI says 14; a check may take a while). */
const TOKEN_RENEW_AFTER_MS = 10 * 60_000;

const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/;

/** The regional STS host name for `region`, per partition. */
export function stsHostname(region: string): string {
  if (!REGION.test(region)) {
    throw new Error(`region must look like 'eu-west-1', got '${region.slice(0, 40)}'`);
  }
  if (region.startsWith('cn-')) return `sts.${region}.amazonaws.com.cn`;
  if (region.startsWith('us-isob-')) return `sts.${region}.sc2s.sgov.gov`;
  if (region.startsWith('us-iso-')) return `sts.${region}.c2s.ic.gov`;
  return `sts.${region}.amazonaws.com`;
}

export interface EksToken {
  /** `k8s-aws-v1.<base64url presigned URL>`: a bearer token. Secret. */
  readonly token: string;
  /** Signing time (`X-Amz-Date`), epoch ms. */
  readonly signedAt: number;
  /** When STS stops accepting it, epoch ms. */
  readonly expiresAt: number;
}

export interface EksTokenInput {
  readonly clusterName: string;
  readonly region: string;
  readonly credentials: AwsCredentialIdentity;
  readonly signingDate: Date;
}

/** One EKS token, signed at `signingDate`. Pure apart from hashing: same input, same token. */
export async function createEksToken(input: EksTokenInput): Promise<EksToken> {
  const { clusterName, region, credentials, signingDate } = input;
  if (!CLUSTER_NAME.test(clusterName)) {
    throw new Error(`'${clusterName.slice(0, 120)}' is not a valid EKS cluster name`);
  }
  const hostname = stsHostname(region);
  const signer = new SignatureV4({ service: 'sts', region, credentials, sha256: Sha256 });
  const presigned = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, [CLUSTER_ID_HEADER]: clusterName },
    },
    { signingDate, expiresIn: PRESIGN_EXPIRES_SECONDS },
  );
  const url = `https://${hostname}/?${presignedQuery(presigned.query ?? {})}`;
  // Second-resolution, like X-Amz-Date.
  const signedAt = Math.floor(signingDate.getTime() / 1000) * 1000;
  return {
    token: EKS_TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url'),
    signedAt,
    expiresAt: signedAt + EKS_TOKEN_LIFETIME_MS,
  };
}

/**
 * The query string as the Go SDK writes a presigned URL: parameters sorted by name, RFC 3986
 * encoded, `X-Amz-Signature` last.
 */
function presignedQuery(query: Record<string, string | string[] | null>): string {
  const pairs: string[] = [];
  let signature = '';
  for (const key of Object.keys(query).sort()) {
    const value = query[key];
    if (typeof value !== 'string') continue;
    if (key === 'X-Amz-Signature') signature = value;
    else pairs.push(`${rfc3986(key)}=${rfc3986(value)}`);
  }
  pairs.push(`X-Amz-Signature=${signature}`);
  return pairs.join('&');
}

function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export interface EksTokenIssuerDeps {
  readonly credentials: AwsCredentialIdentityProvider;
  /** Epoch ms. */
  readonly now: () => number;
}

interface CachedToken {
  readonly token: EksToken;
  readonly renewAt: number;
}

/**
 * Hands out EKS tokens per cluster and region, cached and renewed before they expire: after
 * TOKEN_RENEW_AFTER_MS, or earlier when the signing credentials expire sooner.
 */
export class EksTokenIssuer {
  private readonly cache = new Map<string, CachedToken>();

  constructor(private readonly deps: EksTokenIssuerDeps) {}

  /** Rejects with a ClusterAuthError ('credentials') when no credentials can be loaded. */
  async token(clusterName: string, region: string): Promise<EksToken> {
    const key = `${region}/${clusterName}`;
    const now = this.deps.now();
    const cached = this.cache.get(key);
    if (cached && now < cached.renewAt) return cached.token;

    let credentials: AwsCredentialIdentity;
    try {
      credentials = await this.deps.credentials();
    } catch (error) {
      throw failing(clusterName, error)(
        'credentials',
        `could not load AWS credentials to sign the EKS token for cluster '${clusterName}' (${describeAwsError(error)})`,
      );
    }
    let token: EksToken;
    try {
      token = await createEksToken({
        clusterName,
        region,
        credentials,
        signingDate: new Date(now),
      });
    } catch (error) {
      throw failing(clusterName, error)(
        'settings-invalid',
        `cannot sign an EKS token for cluster '${clusterName}': ${describeAwsError(error)}`,
      );
    }
    const credentialsExpire = credentials.expiration?.getTime() ?? Number.POSITIVE_INFINITY;
    const renewAt = Math.min(token.signedAt + TOKEN_RENEW_AFTER_MS, credentialsExpire - 60_000);
    this.cache.set(key, { token, renewAt });
    return token;
  }

  /** Drops the cached token (e.g. after the API server answered 401). */
  forget(clusterName: string, region: string): void {
    this.cache.delete(`${region}/${clusterName}`);
  }
}
