/**
 * The local composition root: the one place where the command line's options become the parts
 * of a check — the kubeconfig, the cluster reader, the policies (compose-watch.ts adds, for
 * `watch`, the state store and the notifier). `check` and `watch` receive the parts; they build
 * nothing themselves. Only what `check` needs is imported here: the command's start is its cost.
 */

import {
  KubeClusterReader,
  type NodeCache,
  suspectAgeFor,
} from '../lambda/adapters/kube/kube-reader.js';
import { loadKubeConfig } from '../lambda/adapters/kube/kubeconfig.js';
import { FileSilenceStore } from '../lambda/adapters/state/file/file-silence-store.js';
import { labelsUsedBy } from '../lambda/core/evaluate.js';
import { parseSelector } from '../lambda/core/selector.js';
import { ClusterReadError, type KubeConfigView, type SilenceStore } from '../lambda/ports/index.js';
import { type ClusterPolicies, DEFAULTS, policiesOf } from '../lambda/settings/index.js';
import type { CommonOptions, WatchOptions } from './args.js';
import { awsClients } from './aws-clients.js';
import type { Io } from './io.js';
import { sanitize } from './sanitize.js';
import type { SilenceCommonOptions } from './silence-args.js';

export interface CheckParts extends ClusterPolicies {
  /** The name the cluster is reported under: the kubeconfig context. */
  readonly cluster: string;
  readonly reader: KubeClusterReader;
}

export function policiesFor(options: CommonOptions | WatchOptions): ClusterPolicies {
  return policiesOf(
    {
      gracePeriodSeconds: options.gracePeriodSeconds,
      startupGraceSeconds: options.startupGraceSeconds,
      reminderIntervalSeconds:
        'reminderIntervalSeconds' in options
          ? options.reminderIntervalSeconds
          : DEFAULTS.reminderIntervalSeconds,
      storm: DEFAULTS.storm,
    },
    { excludeSelector: options.exclude },
  );
}

export function readerFor(
  options: CommonOptions,
  io: Io,
  policies: ClusterPolicies,
  nodeCache?: NodeCache,
): { reader: KubeClusterReader; kubeConfig: KubeConfigView } {
  refuseInsecureEnvironment(options, io);
  const kubeConfig = loadKubeConfig({
    path: options.kubeconfig,
    context: options.context,
    env: io.env,
    insecureSkipTlsVerify: options.insecureSkipTlsVerify,
  });
  const cluster = kubeConfig.getCurrentCluster();
  if (options.insecureSkipTlsVerify) {
    io.stderr(
      "lease-watchdog: warning: --insecure-skip-tls-verify: the API server's certificate is not verified; anyone in the network path can read the token and answer for the cluster",
    );
  } else if (cluster?.skipTLSVerify) {
    io.stderr(
      `lease-watchdog: warning: the kubeconfig's cluster "${sanitize(cluster.name)}" sets insecure-skip-tls-verify: the API server's certificate is not verified`,
    );
  }
  const reader = new KubeClusterReader({
    kubeConfig,
    cluster: kubeConfig.getCurrentContext(),
    namespace: options.namespace,
    requestTimeoutMs: options.timeoutSeconds * 1000,
    labelKeys: labelsUsedBy(policies.policy),
    nodeCache,
    suspectAfterMs: suspectAgeFor(options.gracePeriodSeconds),
    showPluginStderr: options.verbose,
    logger: {
      warn: (message, fields) =>
        io.stderr(
          `lease-watchdog: warning: ${message}${typeof fields?.error === 'string' ? ` (${sanitize(fields.error)})` : ''}`,
        ),
    },
    nodeSelector: options.selector === undefined ? undefined : parseSelector(options.selector),
  });
  return { reader, kubeConfig };
}

/**
 * NODE_TLS_REJECT_UNAUTHORIZED=0 turns off certificate checks for every connection the process
 * makes that does not set its own (the AWS SDK's included): refused unless asked for explicitly.
 */
function refuseInsecureEnvironment(options: CommonOptions, io: Io): void {
  if (io.env.NODE_TLS_REJECT_UNAUTHORIZED !== '0' || options.insecureSkipTlsVerify) return;
  throw new ClusterReadError(
    'config',
    'NODE_TLS_REJECT_UNAUTHORIZED=0 is set, which turns off TLS certificate checks: unset it, or pass --insecure-skip-tls-verify to run without verifying the API server',
  );
}

export function composeCheck(options: CommonOptions, io: Io): CheckParts {
  const policies = policiesFor(options);
  const { reader } = readerFor(options, io, policies);
  return { ...policies, cluster: reader.cluster, reader };
}

/** `silence`: the cluster's name and its silences' store (the state file's, or the table's). */
export async function composeSilences(
  options: SilenceCommonOptions,
  io: Io,
): Promise<{ readonly cluster: string; readonly store: SilenceStore }> {
  const { store } = options;
  if (store.kind === 'table') {
    // The AWS SDK loads only here: a state file's silences need none of it.
    const [aws, { DynamoDbSilenceStore }] = await Promise.all([
      awsClients(io),
      import('../lambda/adapters/state/dynamodb/dynamodb-silence-store.js'),
    ]);
    const client = aws.dynamodb(store.region ?? io.env.AWS_REGION);
    // parseSilence refuses --table without --cluster.
    const cluster = options.cluster as string;
    return {
      cluster,
      store: new DynamoDbSilenceStore({ client, tableName: store.table, clock: io.now }),
    };
  }
  const cluster =
    options.cluster ??
    loadKubeConfig({
      path: options.kubeconfig,
      context: options.context,
      env: io.env,
    }).getCurrentContext();
  return { cluster, store: new FileSilenceStore(store.stateFile, io.now) };
}
