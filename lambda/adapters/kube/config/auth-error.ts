/**
 * Why a cluster's auth settings could not be turned into a KubeConfig. One line, naming what
 * failed and what to check. Messages never contain secret material (kubeconfig contents, tokens):
 * only secret ids, cluster, context and user names, regions and AWS error names.
 */
import type { ClusterReadFailure } from '../../../core/model.js';

export type ClusterAuthReason =
  | 'settings-invalid' // the auth settings themselves are unusable (bad region, cluster name, URL)
  | 'secret-not-found' // Secrets Manager: no such secret
  | 'secret-access-denied' // Secrets Manager: AccessDenied / KMS decryption failure
  | 'secret-unavailable' // Secrets Manager: any other failure (network, an unexpected answer)
  | 'aws-unavailable' // Secrets Manager, STS or eks:DescribeCluster throttled or failed (5xx)
  | 'secret-invalid' // the secret holds nothing usable (empty, not a token)
  | 'kubeconfig-invalid' // not YAML, not a kubeconfig, or no usable context/cluster/user
  | 'context-not-found' // the requested context is not in the kubeconfig
  | 'exec-plugin' // the kubeconfig user needs an exec (or command-running) credential plugin
  | 'insecure-tls' // insecure-skip-tls-verify, or a plain-http server
  | 'file-reference' // the kubeconfig refers to files that do not exist in Lambda
  | 'ca-invalid' // caData is not base64 PEM
  | 'cluster-not-found' // eks:DescribeCluster: no such cluster
  | 'describe-cluster-denied' // eks:DescribeCluster: AccessDenied
  | 'describe-cluster-failed' // eks:DescribeCluster: any other failure, or no endpoint/CA yet
  | 'credentials' // the AWS credentials to sign the EKS token could not be loaded
  | 'assume-role-denied' // STS AssumeRole of the cluster's roleArn: AccessDenied
  | 'assume-role-failed' // STS AssumeRole of the cluster's roleArn: any other failure
  | 'aborted'; // the caller's signal ended the work

export class ClusterAuthError extends Error {
  override readonly name = 'ClusterAuthError';
  constructor(
    readonly reason: ClusterAuthReason,
    /** The watchdog's name for the cluster. */
    readonly cluster: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(oneLine(message), options);
  }

  /** How the reader reports this failure (WATCHDOG alerts). */
  get failure(): ClusterReadFailure {
    switch (this.reason) {
      case 'exec-plugin':
        return 'exec-plugin';
      case 'aborted':
        return 'aborted';
      case 'aws-unavailable':
        return 'unavailable';
      default:
        return 'config';
    }
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The name of an AWS SDK (or any) error, for messages; never its payload. */
export function errorName(error: unknown): string {
  if (error instanceof Error) return error.name;
  return typeof error;
}

/** A short, single-line description of an AWS SDK error: its name and its service message. */
export function describeAwsError(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 200);
  const message = error.message.replace(/\s+/g, ' ').trim().slice(0, 200);
  return message && message !== error.name ? `${error.name}: ${message}` : error.name;
}

/** AWS error names that mean "slow down" or "try again later", whatever the service. */
const UNAVAILABLE_NAMES = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'InternalFailure',
  'InternalServiceError',
  'InternalServiceErrorException',
  'InternalServerError',
  'InternalServerErrorException',
  'ServerException',
  'IDPCommunicationError',
]);

/**
 * Whether an AWS call failed because AWS throttled it or failed itself (5xx), not because of what
 * was asked: its name says so, or it answered with a status of 429 or 5xx (the SDK marks those
 * `$fault: 'server'`).
 */
export function isAwsUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (UNAVAILABLE_NAMES.has(error.name)) return true;
  const { $metadata, $fault } = error as {
    $metadata?: { httpStatusCode?: number };
    $fault?: string;
  };
  const status = $metadata?.httpStatusCode;
  return $fault === 'server' || status === 429 || (status !== undefined && status >= 500);
}

// --- What AWS said, as a ClusterAuthError -------------------------------------------------------

/** The ClusterAuthErrors of `cluster`, with `error` (a failed AWS call's) as their cause. */
export function failing(cluster: string, error?: unknown) {
  return (reason: ClusterAuthReason, message: string) =>
    new ClusterAuthError(reason, cluster, message, error === undefined ? {} : { cause: error });
}

export function aborted(cluster: string, cause: unknown): ClusterAuthError {
  return failing(cluster, cause)('aborted', `authentication for cluster '${cluster}' was aborted`);
}

/** The EKS token's credentials could not be loaded because STS throttled or failed. */
export function stsUnavailable(error: unknown): never {
  if (
    error instanceof ClusterAuthError &&
    error.reason === 'credentials' &&
    isAwsUnavailable(error.cause)
  ) {
    throw new ClusterAuthError('aws-unavailable', error.cluster, error.message, { cause: error });
  }
  throw error;
}

/**
 * A failed AWS call as a ClusterAuthError: aborted; AWS's own trouble (`busy`: the call's words,
 * then its error and "retried next check"); what its error's name says (`byName`); or `other`.
 */
function awsCallError(
  cluster: string,
  error: unknown,
  signal: AbortSignal | undefined,
  messages: {
    busy: string;
    byName?: Record<string, readonly [ClusterAuthReason, string]>;
    other: readonly [ClusterAuthReason, string];
  },
): ClusterAuthError {
  if (signal?.aborted || errorName(error) === 'AbortError') return aborted(cluster, error);
  const { busy, byName = {}, other } = messages;
  const fail = failing(cluster, error);
  if (isAwsUnavailable(error)) {
    return fail('aws-unavailable', `${busy} (${describeAwsError(error)}); retried next check`);
  }
  const [reason, message] = byName[errorName(error)] ?? other;
  return fail(reason, message);
}

export function secretError(
  cluster: string,
  secretId: string,
  error: unknown,
  signal?: AbortSignal,
) {
  const secret = `secret '${secretId}' for cluster '${cluster}'`;
  return awsCallError(cluster, error, signal, {
    busy: `Secrets Manager throttled or failed reading ${secret}`,
    byName: {
      ResourceNotFoundException: ['secret-not-found', `${secret} was not found in Secrets Manager`],
      AccessDeniedException: [
        'secret-access-denied',
        `access denied reading ${secret}: the function's role needs secretsmanager:GetSecretValue on it`,
      ],
      DecryptionFailure: [
        'secret-access-denied',
        `${secret} could not be decrypted: the function's role needs kms:Decrypt on the secret's KMS key`,
      ],
    },
    other: ['secret-unavailable', `could not read ${secret} (${describeAwsError(error)})`],
  });
}

/** STS AssumeRole of a cluster's `auth.roleArn` failed. */
export function assumeRoleError(
  cluster: string,
  roleArn: string,
  error: unknown,
  signal?: AbortSignal,
): ClusterAuthError {
  const role = `role '${roleArn}' for cluster '${cluster}'`;
  return awsCallError(cluster, error, signal, {
    busy: `STS AssumeRole of '${roleArn}' for cluster '${cluster}' was throttled or failed`,
    other: /AccessDenied/.test(errorName(error))
      ? [
          'assume-role-denied',
          `access denied assuming ${role}: that role's trust policy must allow sts:AssumeRole to the watchdog function's role (stack output FunctionRoleArn); see docs/DEPLOY.md, "Clusters in other accounts"`,
        ]
      : [
          'assume-role-failed',
          `could not assume ${role} (${describeAwsError(error)}); check clusters[].auth.roleArn and that role's trust policy (docs/DEPLOY.md, "Clusters in other accounts")`,
        ],
  });
}

export function describeClusterError(
  cluster: string,
  eks: { readonly clusterName: string; readonly region: string; readonly roleArn?: string },
  error: unknown,
  signal?: AbortSignal,
) {
  const { clusterName, region, roleArn } = eks;
  const call = `eks:DescribeCluster on '${clusterName}' in ${region}`;
  const who = roleArn === undefined ? "the function's role" : `the role '${roleArn}'`;
  return awsCallError(cluster, error, signal, {
    busy: `${call} was throttled or failed`,
    byName: {
      ResourceNotFoundException: [
        'cluster-not-found',
        `EKS cluster '${clusterName}' was not found in ${region} (eks:DescribeCluster)`,
      ],
      AccessDeniedException: [
        'describe-cluster-denied',
        `access denied calling ${call}: ${who} needs the eks:DescribeCluster permission on that cluster`,
      ],
    },
    other: ['describe-cluster-failed', `${call} failed (${describeAwsError(error)})`],
  });
}
