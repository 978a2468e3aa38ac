/**
 * Cluster readers for the Lambda: each check fetches credentials from the cluster credentials
 * port (Secrets Manager, EKS), then reads with `KubeClusterReader`. One reader per cluster, kept
 * for the life of the container with its node cache (when `nodeRefreshSeconds` > 0).
 */

import { labelsUsedBy } from '../../core/evaluate.js';
import type { Snapshot } from '../../core/model.js';
import {
  type ClusterCredentials,
  ClusterReadError,
  type ClusterReaderFactory,
  type KubeConfigView,
  type ReadMode,
  type StructuredLogger,
} from '../../ports/index.js';
import { ClusterAuthError } from './config/auth-error.js';
import { KubeClusterReader, NodeCache, suspectAgeFor } from './kube-reader.js';

interface AuthenticatedReaderOptions {
  readonly credentials: ClusterCredentials;
  readonly requestTimeoutMs: number;
  /** List whole Nodes at most this often; 0: on every check. */
  readonly nodeRefreshMs: number;
  readonly clock: () => number;
  /** Where a Table of Nodes that could not be used is noted. */
  readonly logger?: Pick<StructuredLogger, 'warn'> | undefined;
}

/** Reads each cluster with credentials from the credentials port, fresh for each check. */
export function authenticatedReaders(options: AuthenticatedReaderOptions): ClusterReaderFactory {
  const { credentials } = options;
  return (cluster, policy) => {
    const { nodeRefreshMs, clock } = options;
    const nodeCache = nodeRefreshMs > 0 ? new NodeCache(nodeRefreshMs, clock) : undefined;
    const read = async (signal?: AbortSignal, mode?: ReadMode): Promise<Snapshot> => {
      let kubeConfig: KubeConfigView;
      try {
        kubeConfig = await credentials.kubeConfigFor(cluster, signal);
      } catch (error) {
        if (error instanceof ClusterAuthError) {
          throw new ClusterReadError(error.failure, error.message, undefined, { cause: error });
        }
        throw error;
      }
      const reader = new KubeClusterReader({
        kubeConfig,
        cluster: cluster.name,
        namespace: cluster.namespace,
        requestTimeoutMs: options.requestTimeoutMs,
        labelKeys: labelsUsedBy(policy),
        nodeCache,
        suspectAfterMs: suspectAgeFor(policy.gracePeriodSeconds),
        logger: options.logger,
      });
      try {
        return await reader.read(signal, mode);
      } catch (error) {
        // Rejected credentials may be a rotated secret or an expired token: fetch afresh next time.
        if (error instanceof ClusterReadError && error.failure === 'unauthorized') {
          credentials.forget(cluster);
        }
        throw error;
      }
    };
    return { read };
  };
}
