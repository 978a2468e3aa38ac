/**
 * Kubeconfig text (from a secret) → a KubeConfig holding one context, usable in Lambda: no exec
 * plugins, no command-running auth providers, no files, TLS verification on. Pure: no network,
 * no file system (files a kubeconfig names are refused before client-node could read them).
 */
import path from 'node:path';
import type { Cluster, Context, User } from '@kubernetes/client-node/dist/config_types.js';
import { load } from 'js-yaml';
import type { ClusterAuth } from '../../../settings/index.js';
import { failing } from './auth-error.js';
import { KubeConfig } from './kube-config.js';

type KubeconfigAuth = Extract<ClusterAuth, { mode: 'kubeconfig' }>;

/**
 * The context a secret's kubeconfig names (`auth.context`, else its current one), alone, checked
 * for Lambda (module comment). `name`: the watchdog's name for the cluster, for errors.
 */
export function kubeConfigFromText(text: string, name: string, auth: KubeconfigAuth): KubeConfig {
  const where = `kubeconfig in secret '${auth.secretId}'`;
  const fail = failing(name);
  const raw = parseYaml(text, where, fail);
  refuseTokenFiles(raw, where, fail);
  const loaded = loadText(text, where, fail);
  const { context, cluster, user } = chosenContext(loaded, auth.context, where, fail);
  checkUser(user, where, fail);
  checkCluster(cluster, where, fail);

  return new KubeConfig().loadFromOptions({
    clusters: [{ ...cluster, skipTLSVerify: false }],
    users: [user],
    contexts: [context],
    currentContext: context.name,
  });
}

/** client-node's reading of the text; its errors kept only when they cannot quote the text. */
function loadText(text: string, where: string, fail: Fail): KubeConfig {
  const loaded = new KubeConfig();
  try {
    loaded.loadFromString(text);
  } catch (error) {
    // client-node's own messages name an entry ("clusters[0].cluster.server is missing"); keep
    // those, drop anything else (it could quote the text).
    const detail =
      error instanceof Error &&
      /^(clusters|users|contexts)\[\d+\][\w.[\]-]* is missing$/.test(error.message)
        ? `: ${error.message}`
        : '';
    throw fail('kubeconfig-invalid', `${where} is not a usable kubeconfig${detail}`);
  }
  return loaded;
}

/** The context to use (the one asked for, else the current one), with its cluster and user. */
function chosenContext(
  loaded: KubeConfig,
  asked: string | undefined,
  where: string,
  fail: Fail,
): { context: Context; cluster: Cluster; user: User } {
  const contextName = asked ?? loaded.getCurrentContext();
  if (!contextName) {
    throw fail(
      'kubeconfig-invalid',
      `${where} has no current-context; set 'context' in the cluster's auth settings`,
    );
  }
  const context = loaded.getContextObject(contextName);
  if (!context) {
    const known = loaded.getContexts().map((c) => `'${c.name}'`);
    const listed = known.length === 0 ? 'it has no contexts' : `it has ${listNames(known)}`;
    throw fail('context-not-found', `${where} has no context '${contextName}'; ${listed}`);
  }
  const cluster = loaded.getCluster(context.cluster);
  if (!cluster) {
    throw fail(
      'kubeconfig-invalid',
      `${where}: context '${context.name}' names cluster '${context.cluster}', which is not defined`,
    );
  }
  const user = loaded.getUser(context.user);
  if (!user) {
    throw fail(
      'kubeconfig-invalid',
      `${where}: context '${context.name}' names user '${context.user}', which is not defined`,
    );
  }
  return { context, cluster, user };
}

function parseYaml(text: string, where: string, fail: Fail): unknown {
  let raw: unknown;
  try {
    // js-yaml, as client-node's loadYaml reads it (without its model classes): empty is invalid.
    raw = load(text);
    if (!raw) throw new Error('Failed to load YAML');
  } catch (error) {
    // js-yaml quotes the offending lines in its message: report the position only.
    const mark = (error as { mark?: { line?: number; column?: number } }).mark;
    const at =
      typeof mark?.line === 'number' && typeof mark.column === 'number'
        ? ` (line ${mark.line + 1}, column ${mark.column + 1})`
        : '';
    throw fail('kubeconfig-invalid', `${where} is not valid YAML${at}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw fail('kubeconfig-invalid', `${where} is not a kubeconfig (expected a YAML mapping)`);
  }
  return raw;
}

/** client-node reads `token-file` while loading: refuse it before that can happen. */
function refuseTokenFiles(raw: unknown, where: string, fail: Fail): void {
  const users = (raw as { users?: unknown }).users;
  if (!Array.isArray(users)) return;
  for (const entry of users) {
    const user = (entry as { name?: unknown; user?: unknown } | null)?.user;
    if (user && typeof user === 'object' && 'token-file' in user) {
      const name = String((entry as { name?: unknown }).name ?? '?');
      throw fail(
        'file-reference',
        `${where}: user '${name}' reads its token from a file (token-file), which does not exist in Lambda; put the token itself in the kubeconfig or use auth mode 'token'`,
      );
    }
  }
}

function checkUser(user: User, where: string, fail: Fail): void {
  const exec = user.exec as { command?: unknown } | null | undefined;
  if (exec) {
    const command = typeof exec.command === 'string' ? path.basename(exec.command) : '?';
    throw fail(
      'exec-plugin',
      `kubeconfig user '${user.name}' needs the exec plugin '${command}' which does not exist in Lambda; use auth mode 'eks' for EKS clusters (or 'token' with a service account token for others)`,
    );
  }
  const provider = user.authProvider as { name?: unknown } | null | undefined;
  if (provider && provider.name !== 'oidc') {
    throw fail(
      'exec-plugin',
      `kubeconfig user '${user.name}' needs the auth provider '${String(provider.name)}', which runs a command that does not exist in Lambda; use auth mode 'eks' for EKS clusters (or 'token' with a service account token for others)`,
    );
  }
  const files = [
    user.certFile ? 'client-certificate' : undefined,
    user.keyFile ? 'client-key' : undefined,
  ].filter((f) => f !== undefined);
  if (files.length > 0) {
    throw fail(
      'file-reference',
      `${where}: user '${user.name}' refers to files (${files.join(', ')}) that do not exist in Lambda; embed them as ${files.map((f) => `${f}-data`).join(', ')}`,
    );
  }
}

function checkCluster(cluster: Cluster, where: string, fail: Fail): void {
  if (cluster.skipTLSVerify) {
    throw fail(
      'insecure-tls',
      `${where}: cluster '${cluster.name}' sets insecure-skip-tls-verify, which is refused: TLS verification is always on in Lambda; provide certificate-authority-data instead`,
    );
  }
  if (cluster.caFile) {
    throw fail(
      'file-reference',
      `${where}: cluster '${cluster.name}' refers to a file (certificate-authority) that does not exist in Lambda; embed it as certificate-authority-data`,
    );
  }
  if (!cluster.server.startsWith('https://')) {
    throw fail(
      'insecure-tls',
      `${where}: cluster '${cluster.name}' has a server that is not https://; the watchdog only talks TLS to the API server`,
    );
  }
}

type Fail = ReturnType<typeof failing>;

function listNames(names: string[]): string {
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}
