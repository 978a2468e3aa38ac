/**
 * Cluster readers for the Lambda: each check fetches credentials from the cluster credentials
 * port (Secrets Manager, EKS), then reads with `KubeClusterReader`. One reader per cluster, kept
 * for the life of the container with its node cache (when `nodeRefreshSeconds` > 0).
 */

import { labelsUsedBy } from '../../core/evaluate.js';
import type { Snapshot } from '../../core/model.js';
import type { Policy } from '../../core/policy.js';
import {
  type ClusterCredentials,
  ClusterReadError,
  type ClusterReader,
  type ClusterReaderFactory,
  type KubeConfigView,
  type ReadMode,
  type StructuredLogger,
} from '../../ports/index.js';
import type { ClusterSettings } from '../../settings/index.js';
import { isClusterAuthError } from './auth-error.js';
import { KubeClusterReader, NodeCache, suspectAgeFor } from './kube-reader.js';

export interface AuthenticatedReaderOptions {
  readonly credentials: ClusterCredentials;
  readonly requestTimeoutMs: number;
  /** List whole Nodes at most this often; 0: on every check. */
  readonly nodeRefreshMs: number;
  readonly clock: () => number;
  /** Where a Table of Nodes that could not be used is noted. */
  readonly logger?: Pick<StructuredLogger, 'warn'> | undefined;
}

/** Reads one cluster with credentials from the credentials port, fresh for each check. */
class AuthenticatedReader implements ClusterReader {
  constructor(
    private readonly cluster: ClusterSettings,
    private readonly policy: Policy,
    private readonly options: AuthenticatedReaderOptions,
    private readonly nodeCache: NodeCache | undefined,
  ) {}

  async read(signal?: AbortSignal, mode?: ReadMode): Promise<Snapshot> {
    const { credentials } = this.options;
    let kubeConfig: KubeConfigView;
    try {
      kubeConfig = await credentials.kubeConfigFor(this.cluster, signal);
    } catch (error) {
      if (isClusterAuthError(error)) {
        throw new ClusterReadError(error.failure, error.message, undefined, { cause: error });
      }
      throw error;
    }
    const reader = new KubeClusterReader({
      kubeConfig,
      cluster: this.cluster.name,
      namespace: this.cluster.namespace,
      requestTimeoutMs: this.options.requestTimeoutMs,
      labelKeys: labelsUsedBy(this.policy),
      nodeCache: this.nodeCache,
      suspectAfterMs: suspectAgeFor(this.policy.gracePeriodSeconds),
      logger: this.options.logger,
    });
    try {
      return await reader.read(signal, mode);
    } catch (error) {
      // Rejected credentials may be a rotated secret or an expired token: fetch afresh next time.
      if (error instanceof ClusterReadError && error.failure === 'unauthorized') {
        credentials.forget(this.cluster);
      }
      throw error;
    }
  }
}

export function authenticatedReaders(options: AuthenticatedReaderOptions): ClusterReaderFactory {
  return (cluster, policy) =>
    new AuthenticatedReader(
      cluster,
      policy,
      options,
      options.nodeRefreshMs > 0 ? new NodeCache(options.nodeRefreshMs, options.clock) : undefined,
    );
}
