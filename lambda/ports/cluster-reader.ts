/** Reading a cluster: the reader, its one error, and where credentials come from. */
import type { RequestOptions } from 'node:https';
import type { Cluster, Context, User } from '@kubernetes/client-node/dist/config_types.js';
import type { ClusterReadFailure, Snapshot } from '../core/model.js';
import type { Policy } from '../core/policy.js';
import type { ClusterAuth, ClusterSettings } from '../settings/index.js';

/** Reads one cluster. */
export interface ClusterReader {
  /**
   * Lists the node Leases and the Nodes. Rejects with a ClusterReadError; honours `signal`.
   * `look`: a look between scheduled checks (a routine look, a suspect's re-check): a reader that
   * keeps the Nodes may list the Leases alone and read afresh only the nodes that may page now.
   */
  read(signal?: AbortSignal, mode?: ReadMode): Promise<Snapshot>;
}

/** `check`: a scheduled check, everything its verdicts need; `look`: what a look needs. */
export type ReadMode = 'check' | 'look';

export type { ClusterReadFailure };

/**
 * Why a cluster could not be read. Every failure of a reader is one of these, with one clear
 * line (`message`) that names what failed and what to check. Messages never contain secrets.
 */
export class ClusterReadError extends Error {
  override readonly name = 'ClusterReadError';
  constructor(
    readonly failure: ClusterReadFailure,
    message: string,
    /** HTTP status code, when the API answered. */
    readonly statusCode?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Builds the reader of one cluster, judged by `policy` (its labels, its grace period). */
export type ClusterReaderFactory = (cluster: ClusterSettings, policy: Policy) => ClusterReader;

/** A cluster as its credentials know it: its name and how to reach it. */
export interface AuthenticatedCluster {
  readonly name: string;
  readonly auth: ClusterAuth;
}

/**
 * A kubeconfig, as the cluster reader uses it: its current cluster and user, and what they set on
 * a request. The adapters' own (adapters/kube/config/kube-config.ts), or client-node's KubeConfig.
 */
export interface KubeConfigView {
  readonly clusters: Cluster[];
  readonly users: User[];
  readonly contexts: Context[];
  readonly currentContext: string;
  getCurrentContext(): string;
  getCurrentCluster(): Cluster | null;
  getCurrentUser(): User | null;
  /** TLS settings and credentials (may run an exec plugin, read files, refresh a token). */
  applyToHTTPSOptions(opts: RequestOptions): Promise<void>;
}

/** Where a check gets a KubeConfig for a cluster (Secrets Manager and EKS in Lambda). */
export interface ClusterCredentials {
  kubeConfigFor(cluster: AuthenticatedCluster, signal?: AbortSignal): Promise<KubeConfigView>;
  /** Drops what is cached for the cluster, so the next check fetches credentials afresh. */
  forget(cluster: AuthenticatedCluster): void;
}
