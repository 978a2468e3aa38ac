/**
 * The local composition root: the one place where the command line's options become the parts
 * of a check — the kubeconfig, the cluster reader, the policies (compose-watch.ts adds, for
 * `watch`, the state store and the notifier). `check` and `watch` receive the parts; they build
 * nothing themselves. Only what `check` needs is imported here: the command's start is its cost.
 */

import { loadKubeConfig } from '../lambda/adapters/kube/config/kubeconfig-files.js';
import { loadTlsEarly } from '../lambda/adapters/kube/http/http-exchange.js';
import {
  KubeClusterReader,
  type NodeCache,
  suspectAgeFor,
} from '../lambda/adapters/kube/kube-reader.js';
import { FileSilenceStore } from '../lambda/adapters/state/file/file-silence-store.js';
import { FileStateStore } from '../lambda/adapters/state/file/file-store.js';
import { labelsUsedBy } from '../lambda/core/evaluate.js';
import type { NodeInfo } from '../lambda/core/model.js';
import { parseSelector } from '../lambda/core/selector.js';
import { ClusterReadError, type KubeConfigView, type SilenceStore } from '../lambda/ports/index.js';
// Not the settings' index: it would load their schemas, which a check does not need.
import { DEFAULTS } from '../lambda/settings/defaults.js';
import { type ClusterPolicies, policiesOf } from '../lambda/settings/policies.js';
import { type CommonOptions, parseCli, UsageError, type WatchOptions } from './args.js';
import { type ClusterKey, clusterKeyOf, keyedSilenceStore, namesOf } from './cluster-key.js';
import { awsClients, type Io } from './io.js';
import { sanitize } from './sanitize.js';
import type { SilenceCommonOptions } from './silence-args.js';

export function policiesFor(options: CommonOptions | WatchOptions): ClusterPolicies {
  // What the command line does not set (the storm thresholds; check's reminders) by default.
  return policiesOf({ ...DEFAULTS, ...options }, { excludeSelector: options.exclude });
}

export function readerFor(
  options: CommonOptions,
  io: Io,
  policies: ClusterPolicies,
  nodeCache?: NodeCache,
): { reader: KubeClusterReader; kubeConfig: KubeConfigView } {
  refuseInsecureEnvironment(options, io);
  loadTlsEarly();
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
    // --timeout bounds the whole read, as a user reads it: not each of its requests in turn.
    bounds: { budgetMs: options.timeoutSeconds * 1000 },
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
    // A one-off read (check, silence add) asks for the leases and the Nodes over one connection:
    // a second TLS handshake costs more than a small cluster's lists. watch (with its node
    // cache) reads again and again, and keeps them side by side.
    oneConnection: nodeCache === undefined,
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

export function composeCheck(
  options: CommonOptions,
  io: Io,
): ClusterPolicies & { readonly reader: KubeClusterReader } {
  const policies = policiesFor(options);
  return { ...policies, reader: readerFor(options, io, policies).reader };
}

/**
 * `silence add`: the cluster's nodes now, read by the reader `check` uses (the kubeconfig, its
 * context, and the defaults of `check`), to show what a new silence matches.
 */
export async function readNodesForSilence(
  options: SilenceCommonOptions,
  io: Io,
): Promise<readonly NodeInfo[]> {
  const flags = [
    ...(options.kubeconfig === undefined ? [] : ['--kubeconfig', options.kubeconfig]),
    ...(options.context === undefined ? [] : ['--context', options.context]),
  ];
  const parsed = parseCli(['check', ...flags]);
  if (parsed.kind !== 'check') throw new Error('parseCli: check expected');
  const snapshot = await composeCheck(parsed.options, io).reader.read(io.signal);
  if (snapshot.nodes === null) {
    throw new ClusterReadError('forbidden', snapshot.degraded ?? 'the Nodes cannot be read');
  }
  return snapshot.nodes;
}

/** `silence`: which cluster, where its silences are, and the store (the state file's, or the table's). */
export interface SilenceParts {
  /** The cluster's key in the store: --cluster, else the kubeconfig context's server (cluster-key.ts). */
  readonly cluster: string;
  /** The cluster as the CLI says it: `NAME`, or `https://host:6443 (context ops)`. */
  readonly shown: string;
  /** The store as the CLI says it: the silences file, or `DynamoDB table NAME`. */
  readonly where: string;
  readonly store: SilenceStore;
  /** Throws a UsageError when the store does not exist, or holds nothing of the cluster. */
  requireCluster(signal: AbortSignal): Promise<void>;
}

export async function composeSilences(
  options: SilenceCommonOptions,
  io: Io,
): Promise<SilenceParts> {
  const { store } = options;
  if (store.kind === 'table') {
    // The AWS SDK loads only here: a state file's silences need none of it.
    const [aws, { DynamoDbSilenceStore }, { DynamoDbStateStore }] = await Promise.all([
      awsClients(io),
      import('../lambda/adapters/state/dynamodb/dynamodb-silence-store.js'),
      import('../lambda/adapters/state/dynamodb/dynamodb-store.js'),
    ]);
    const client = aws.dynamodb(store.region ?? io.env.AWS_REGION);
    // parseSilence refuses --table without --cluster.
    const cluster = options.cluster as string;
    const state = new DynamoDbStateStore({ client, tableName: store.table, clock: io.now });
    return {
      cluster,
      shown: cluster,
      where: `DynamoDB table ${store.table}`,
      store: new DynamoDbSilenceStore({ client, tableName: store.table, clock: io.now }),
      async requireCluster(signal) {
        if ((await state.load(cluster, signal)).version > 0) return;
        throw new UsageError(
          `DynamoDB table ${store.table} holds no state of cluster "${cluster}": check --cluster (the cluster's name in the deployment config) and --table (the stack's STATE_TABLE)`,
        );
      },
    };
  }
  const files = new FileSilenceStore(store.stateFile, io.now);
  const state = new FileStateStore(store.stateFile);
  const key: ClusterKey =
    options.cluster === undefined
      ? clusterKeyOf(
          loadKubeConfig({ path: options.kubeconfig, context: options.context, env: io.env }),
        )
      : { key: options.cluster, legacy: options.cluster, older: [] };
  return {
    cluster: key.key,
    shown: key.legacy === key.key ? key.key : `${key.key} (context ${key.legacy})`,
    where: files.path,
    store: keyedSilenceStore(files, key),
    requireCluster: () => requireFileCluster(state, key, options.cluster !== undefined),
  };
}

/** The state file must exist (`watch` creates it) and hold the cluster, under its key or an older name. */
async function requireFileCluster(
  state: FileStateStore,
  at: ClusterKey,
  named: boolean,
): Promise<void> {
  const { key, legacy } = at;
  const clusters = await state.clusters();
  if (clusters === undefined) {
    throw new UsageError(
      `state file ${state.path} does not exist: start lease-watchdog watch --state-file ${state.path} first (it creates it), or correct --state-file`,
    );
  }
  if (namesOf(at).some((name) => clusters.includes(name))) return;
  const has = clusters.length === 0 ? 'no cluster yet' : `it has: ${clusters.join(', ')}`;
  const fix = named
    ? "check --cluster, or leave it out to use the kubeconfig context's"
    : 'run lease-watchdog watch on this cluster with it first, or check --context and --kubeconfig';
  throw new UsageError(
    `state file ${state.path} has no cluster "${sanitize(named ? key : `${key}" (context "${legacy}`)}" (${sanitize(has)}): ${fix}`,
  );
}
