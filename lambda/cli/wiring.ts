/** What both CLI commands share: the terminal and environment they run in, exit codes, and wiring. */
import { labelsUsedBy } from '../core/evaluate.js';
import type { Policy } from '../core/policy.js';
import { KubeClusterReader, type NodeCache } from '../kube/kube-reader.js';
import { loadKubeConfig } from '../kube/kubeconfig.js';
import type { CommonOptions } from './args.js';

export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => number;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
}

export const EXIT_OK = 0;
export const EXIT_ALERTING = 1;
export const EXIT_ERROR = 2;

export function policyOf(options: CommonOptions): Policy {
  return Object.freeze({
    gracePeriodSeconds: options.gracePeriodSeconds,
    startupGraceSeconds: options.startupGraceSeconds,
    exclude: options.exclude,
  });
}

export function readerFor(
  options: CommonOptions,
  env: Io['env'],
  nodeCache?: NodeCache,
): KubeClusterReader {
  const kubeConfig = loadKubeConfig({ path: options.kubeconfig, context: options.context, env });
  return new KubeClusterReader({
    kubeConfig,
    cluster: kubeConfig.getCurrentContext(),
    namespace: options.namespace,
    requestTimeoutMs: options.timeoutSeconds * 1000,
    labelKeys: labelsUsedBy(policyOf(options)),
    nodeCache,
  });
}
