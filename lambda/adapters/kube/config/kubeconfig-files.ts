/**
 * Loads a kubeconfig for the CLI: from --kubeconfig, else $KUBECONFIG (colon-separated), else
 * ~/.kube/config; selects --context. Failures are one clear ClusterReadError('config') line that
 * names the file or context, never the file's contents.
 */

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { ClusterReadError } from '../../../ports/index.js';
import { KubeConfig, withCurrentCluster } from './kube-config.js';

export interface KubeconfigLocation {
  /** --kubeconfig PATH */
  readonly path?: string | undefined;
  /** --context NAME */
  readonly context?: string | undefined;
  /** Environment ($KUBECONFIG, $HOME). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** --insecure-skip-tls-verify: the current cluster's certificate is not verified. */
  readonly insecureSkipTlsVerify?: boolean | undefined;
}

export function loadKubeConfig(source: KubeconfigLocation): KubeConfig {
  const kc = mergedKubeConfig(kubeconfigFiles(source));
  if (source.context) selectContext(kc, source.context);
  checkCurrentServer(kc);
  if (!source.insecureSkipTlsVerify) return kc;
  return withCurrentCluster(kc, (cluster) => ({ ...cluster, skipTLSVerify: true }));
}

/** The files to read, as kubectl finds them; those that exist, at least one. */
function kubeconfigFiles(source: KubeconfigLocation): string[] {
  const files = source.path
    ? [source.path]
    : (source.env.KUBECONFIG?.split(delimiter).filter(Boolean) ?? [
        join(source.env.HOME ?? homedir(), '.kube', 'config'),
      ]);
  const present = files.filter((file) => existsSync(file));
  if (present.length === 0) {
    const where = source.path
      ? `kubeconfig ${source.path} does not exist`
      : `no kubeconfig found (looked at ${files.join(', ')})`;
    throw new ClusterReadError('config', `${where}: pass --kubeconfig PATH or set KUBECONFIG`);
  }
  return present;
}

/** The files merged as kubectl merges $KUBECONFIG: the first to set a value wins. */
function mergedKubeConfig(files: readonly string[]): KubeConfig {
  const kc = new KubeConfig();
  for (const file of files) {
    const next = new KubeConfig();
    try {
      next.loadFromFile(file);
    } catch (error) {
      const why = error instanceof Error ? (error.message.split('\n')[0] ?? '') : '';
      throw new ClusterReadError('config', `kubeconfig ${file} cannot be read: ${why}`, undefined, {
        cause: error,
      });
    }
    // The names a file before it holds stay its (client-node's mergeConfig throws on them).
    const unknown = <T extends { name: string }>(held: T[], added: T[]) => {
      const known = new Set(held.map((item) => item.name));
      return [...held, ...added.filter((item) => !known.has(item.name))];
    };
    kc.loadFromOptions({
      clusters: unknown(kc.clusters, next.clusters),
      users: unknown(kc.users, next.users),
      contexts: unknown(kc.contexts, next.contexts),
      currentContext: kc.currentContext || next.currentContext,
    });
  }
  return kc;
}

/** --context: made current, when the kubeconfig has it. */
function selectContext(kc: KubeConfig, name: string): void {
  if (!kc.contexts.some((c) => c.name === name)) {
    const known = kc.contexts.map((c) => c.name).join(', ') || 'none';
    throw new ClusterReadError(
      'config',
      `context "${name}" is not in the kubeconfig (contexts: ${known}): check --context`,
    );
  }
  kc.currentContext = name;
}

/** A current context whose cluster has a server URL, with no credentials in it. */
function checkCurrentServer(kc: KubeConfig): void {
  const context = kc.getContextObject(kc.getCurrentContext());
  if (!context) {
    throw new ClusterReadError(
      'config',
      'the kubeconfig has no current-context: pass --context NAME (kubectl config get-contexts lists them)',
    );
  }
  const server = kc.getCluster(context.cluster)?.server;
  if (!server) {
    throw new ClusterReadError(
      'config',
      `context "${context.name}" names cluster "${context.cluster}", which has no server in the kubeconfig`,
    );
  }
  if (hasUserInfo(server)) {
    throw new ClusterReadError(
      'config',
      `context "${context.name}": the server URL of cluster "${context.cluster}" has a user name or password in it (https://user:pass@host): remove them from the URL and give credentials as the kubeconfig user's token or certificate`,
    );
  }
  if (!isServerUrl(server)) {
    // Anything that may be user info (before an @ in the authority) stays out of the message.
    const safe = server.replace(/^([^:/]*:\/\/)[^/]*@/, '$1[redacted]@');
    const shown = JSON.stringify(safe.length > 200 ? `${safe.slice(0, 200)}…` : safe);
    throw new ClusterReadError(
      'config',
      `context "${context.name}": the server of cluster "${context.cluster}" is not an https:// URL (${shown}): fix its server in the kubeconfig, e.g. https://host:6443`,
    );
  }
}

/** true when `server` parses as an http(s) URL (the user info was checked before: never shown). */
function isServerUrl(server: string): boolean {
  return ['https:', 'http:'].includes(URL.parse(server)?.protocol ?? '');
}

/** true when `server` is a URL with a user name or password (`https://user:pass@host`). */
export function hasUserInfo(server: string): boolean {
  const url = URL.parse(server);
  if (!url) return /\/\/[^/\s]*@/.test(server);
  return url.username !== '' || url.password !== '';
}
