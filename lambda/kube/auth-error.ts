/**
 * Why a cluster's auth settings could not be turned into a KubeConfig. One line, naming what
 * failed and what to check. Messages never contain secret material (kubeconfig contents, tokens):
 * only secret ids, cluster, context and user names, regions and AWS error names.
 */
import type { ClusterReadFailure } from '../core/model.js';

export type ClusterAuthReason =
  | 'settings-invalid' // the auth settings themselves are unusable (bad region, cluster name, URL)
  | 'secret-not-found' // Secrets Manager: no such secret
  | 'secret-access-denied' // Secrets Manager: AccessDenied / KMS decryption failure
  | 'secret-unavailable' // Secrets Manager: any other failure (throttling, network, 5xx)
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
      default:
        return 'config';
    }
  }
}

export function isClusterAuthError(error: unknown): error is ClusterAuthError {
  return error instanceof ClusterAuthError;
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

export function isAbortError(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  return error instanceof Error && error.name === 'AbortError';
}
