/**
 * The AWS credentials for one cluster: the function's own, or, for an `eks` cluster with
 * `auth.roleArn` (a cluster in another account), that role's, assumed with STS AssumeRole
 * (`fromTemporaryCredentials`, session name `lease-watchdog`) from the function's own. Every AWS
 * call made for a cluster (eks:DescribeCluster, the signed EKS token, reads of the cluster's EC2
 * instances) takes its credentials from here, so that a cross-account cluster is read in its own
 * account.
 *
 * Keep one for the life of the container: assumed credentials are cached per role and reused
 * until REFRESH_BEFORE_EXPIRY_MS before they expire (by the injected clock); concurrent callers
 * share one AssumeRole call, and a failed one is not cached (the next call tries again).
 */
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { ClusterAuth } from '../../../settings/index.js';

/** The session name the assumed role's CloudTrail entries carry. */
export const ROLE_SESSION_NAME = 'lease-watchdog';
/** Assumed credentials are renewed this long before they expire (they last 1 hour by default). */
export const REFRESH_BEFORE_EXPIRY_MS = 5 * 60_000;

/** Options of the STS client that assumes the roles (tests point it at a local endpoint). */
export interface StsClientOptions {
  readonly endpoint?: string | undefined;
  readonly maxAttempts?: number | undefined;
}

export interface ClusterAwsCredentialsDeps {
  /** The function's own credentials. */
  readonly credentials: AwsCredentialIdentityProvider;
  /** The function's region: STS is called in the cluster's region, else this one. */
  readonly region: string;
  /** Epoch ms. */
  readonly now: () => number;
  readonly sts?: StsClientOptions | undefined;
}

export class ClusterAwsCredentials {
  readonly #deps: ClusterAwsCredentialsDeps;
  readonly #roles = new Map<string, AwsCredentialIdentityProvider>();

  constructor(deps: ClusterAwsCredentialsDeps) {
    this.#deps = deps;
  }

  /**
   * The credentials for a cluster's AWS calls: the function's own, unless it is an `eks` cluster
   * with a role (`auth.roleArn`).
   */
  forCluster({ auth }: { readonly auth: ClusterAuth }): AwsCredentialIdentityProvider {
    if (auth.mode !== 'eks' || auth.roleArn === undefined) return this.#deps.credentials;
    const { roleArn } = auth;
    const region = auth.region || this.#deps.region;
    return kept(this.#roles, `${region}|${roleArn}`, () =>
      this.#cached(this.#assume(roleArn, region)),
    );
  }

  #assume(roleArn: string, region: string): AwsCredentialIdentityProvider {
    const { endpoint, maxAttempts } = this.#deps.sts ?? {};
    return fromTemporaryCredentials({
      params: { RoleArn: roleArn, RoleSessionName: ROLE_SESSION_NAME },
      masterCredentials: this.#deps.credentials,
      clientConfig: {
        region,
        ...(endpoint === undefined ? {} : { endpoint }),
        ...(maxAttempts === undefined ? {} : { maxAttempts }),
      },
    });
  }

  #cached(assume: AwsCredentialIdentityProvider): AwsCredentialIdentityProvider {
    let current: AwsCredentialIdentity | undefined;
    let pending: Promise<AwsCredentialIdentity> | undefined;
    const fresh = (c: AwsCredentialIdentity) =>
      c.expiration === undefined ||
      this.#deps.now() < c.expiration.getTime() - REFRESH_BEFORE_EXPIRY_MS;
    return async () => {
      if (current && fresh(current)) return current;
      pending ??= assume()
        .then((credentials) => {
          current = credentials;
          return credentials;
        })
        .finally(() => {
          pending = undefined;
        });
      return pending;
    };
  }
}

/** What `map` holds at `key`, made and kept the first time. */
export function kept<V>(map: Map<string, V>, key: string, make: () => V): V {
  const value = map.get(key) ?? make();
  map.set(key, value);
  return value;
}
