/**
 * The kubeconfig the cluster reader works from: clusters, users, contexts and the current context,
 * read as client-node reads them (its entry checks and `token-file` reading, config_types.js; the
 * same YAML library) and applied to a request as client-node's `applyToHTTPSOptions` applies them.
 *
 * Ours because client-node's `KubeConfig` (config.js) imports, to be loaded at all, its generated
 * API models, undici, openid-client and three proxy agents: 2-3 s of the command's start and most
 * of the Lambda's import (docs/BENCHMARKS.md). Static credentials (a token, a client certificate,
 * a user name and password) are applied here; a user whose credentials need client-node's code
 * (an exec plugin, an auth provider) has it loaded then, on the first request, and only then.
 * Public members only: client-node's own KubeConfig is one of these too (the tests hand it in).
 */

import { readFileSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import type { RequestOptions } from 'node:https';
import { dirname, isAbsolute, join } from 'node:path';
import {
  type Cluster,
  type Context,
  newClusters,
  newContexts,
  newUsers,
  type User,
} from '@kubernetes/client-node/dist/config_types.js';
import { load } from 'js-yaml';
import { readPlainKubeconfig } from './kubeconfig-yaml.js';

export class KubeConfig {
  clusters: Cluster[] = [];
  users: User[] = [];
  contexts: Context[] = [];
  currentContext = '';

  /** Reads a kubeconfig file; relative certificate paths are taken from the file's folder. */
  loadFromFile(file: string): void {
    this.loadFromString(readFileSync(file).toString('utf-8'));
    const root = dirname(file);
    const absolute = (path: string) => (isAbsolute(path) ? path : join(root, path));
    for (const cluster of this.clusters) {
      if (cluster.caFile) (cluster as { caFile: string }).caFile = absolute(cluster.caFile);
    }
    for (const user of this.users) {
      if (user.certFile) (user as { certFile: string }).certFile = absolute(user.certFile);
      if (user.keyFile) (user as { keyFile: string }).keyFile = absolute(user.keyFile);
    }
  }

  /**
   * Reads kubeconfig text; an entry without its required fields throws (client-node's words).
   * The YAML kubectl writes is read without js-yaml (kubeconfig-yaml.ts), the same document.
   */
  loadFromString(text: string): void {
    const raw = (readPlainKubeconfig(text) ?? load(text)) as Record<string, unknown>;
    // As client-node: a document that is not a mapping throws a TypeError here.
    this.clusters = newClusters(raw.clusters);
    this.contexts = newContexts(raw.contexts);
    this.users = newUsers(raw.users);
    this.currentContext = raw['current-context'] as string;
  }

  /** Holds `options` (returns itself, so that a new KubeConfig is built in one expression). */
  loadFromOptions(
    options: Pick<KubeConfig, 'clusters' | 'users' | 'contexts' | 'currentContext'>,
  ): this {
    this.clusters = options.clusters;
    this.users = options.users;
    this.contexts = options.contexts;
    this.currentContext = options.currentContext;
    return this;
  }

  getContexts(): Context[] {
    return this.contexts;
  }

  getUsers(): User[] {
    return this.users;
  }

  getCurrentContext(): string {
    return this.currentContext;
  }

  getContextObject(name: string): Context | null {
    return this.contexts.find((context) => context.name === name) ?? null;
  }

  getCluster(name: string): Cluster | null {
    return this.clusters.find((cluster) => cluster.name === name) ?? null;
  }

  getUser(name: string): User | null {
    return this.users.find((user) => user.name === name) ?? null;
  }

  getCurrentCluster(): Cluster | null {
    const context = this.getContextObject(this.currentContext);
    return context ? this.getCluster(context.cluster) : null;
  }

  getCurrentUser(): User | null {
    const context = this.getContextObject(this.currentContext);
    return context ? this.getUser(context.user) : null;
  }

  /**
   * The current cluster's TLS settings and the current user's credentials, set on `opts` as
   * client-node sets them (and refused where it refuses: plain http without
   * insecure-skip-tls-verify). Reads the files the kubeconfig names.
   */
  async applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
    const user = this.getCurrentUser();
    if (user?.exec || user?.authProvider) {
      // Credentials that need client-node's authenticators: its KubeConfig, over the same objects
      // (an OIDC token it refreshes is kept in them).
      const { KubeConfig: Full } = await import('@kubernetes/client-node/dist/config.js');
      const full = new Full();
      full.loadFromOptions(this);
      return full.applyToHTTPSOptions(opts);
    }
    const cluster = this.getCurrentCluster();
    if (cluster?.server?.startsWith('http:') && !cluster.skipTLSVerify) {
      throw new Error('HTTP protocol is not allowed when skipTLSVerify is not set or false');
    }
    if (!user) return;
    applyTls(opts, cluster, user);
    const headers = headersOf(opts);
    if (user.token) headers.Authorization = `Bearer ${user.token}`;
    if (user.username) opts.auth = `${user.username}:${user.password}`;
  }
}

/**
 * `kc` (ours or client-node's) with its current cluster as `change` makes it; the users stay the
 * same objects (a refreshed OIDC token is kept).
 */
export function withCurrentCluster(
  kc: Pick<KubeConfig, 'clusters' | 'users' | 'contexts' | 'currentContext' | 'getCurrentCluster'>,
  change: (cluster: Cluster) => Cluster,
): KubeConfig {
  const current = kc.getCurrentCluster()?.name;
  return new KubeConfig().loadFromOptions({
    clusters: kc.clusters.map((c) => (c.name === current ? change(c) : c)),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
}

/** client-node's applyHTTPSOptions: the CA, client certificate and key, from file or data. */
function applyTls(opts: RequestOptions, cluster: Cluster | null, user: User): void {
  if (cluster?.skipTLSVerify) opts.rejectUnauthorized = false;
  if (cluster?.tlsServerName) opts.servername = cluster.tlsServerName;
  const ca = cluster ? fileOrData(cluster.caFile, cluster.caData) : undefined;
  if (ca) opts.ca = ca;
  const cert = fileOrData(user.certFile, user.certData);
  if (cert) opts.cert = cert;
  const key = fileOrData(user.keyFile, user.keyData);
  if (key) opts.key = key;
  if (user.impersonateUser != null) headersOf(opts)['Impersonate-User'] = user.impersonateUser;
}

/** The request's headers, as an object (created when there are none). */
function headersOf(opts: RequestOptions): OutgoingHttpHeaders {
  opts.headers ??= {};
  return opts.headers as OutgoingHttpHeaders;
}

/** A file's bytes, else base64 data decoded, else undefined (client-node's bufferFromFileOrString). */
function fileOrData(file: string | undefined, data: string | undefined): Buffer | undefined {
  if (file) return readFileSync(file);
  if (data) return Buffer.from(data, 'base64');
  return undefined;
}
