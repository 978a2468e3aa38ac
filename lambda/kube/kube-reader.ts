/**
 * Reads node Leases and Nodes over the Kubernetes API with `@kubernetes/client-node`'s
 * authentication (kubeconfig users: tokens, client certificates, exec plugins, OIDC) and TLS
 * settings, paginated with `limit` + `continue`, each request bounded by a timeout and the
 * caller's AbortSignal.
 *
 * Responses are parsed as plain JSON and projected page by page onto the few fields the core
 * needs (LeaseInfo, NodeInfo): a Node object is several kilobytes (images, conditions,
 * capacity), and keeping 100,000 of them, or running them through the client's model
 * deserialiser, costs far more than the check needs.
 */
import { HttpMethod, type KubeConfig, RequestContext } from '@kubernetes/client-node';
import { type Dispatcher, fetch } from 'undici';
import { parseTimestamp } from '../core/lease.js';
import type { LeaseInfo, NodeInfo, Snapshot, Taint } from '../core/model.js';
import { ClusterReadError } from './errors.js';
import type { ClusterReader } from './reader.js';

export interface KubeReaderOptions {
  readonly kubeConfig: KubeConfig;
  /** The name the cluster is reported under (notifications, JSON output). */
  readonly cluster: string;
  readonly namespace: string;
  /** Items per list request. Default 500 (what kubectl asks for). */
  readonly pageSize?: number | undefined;
  /** Timeout of each request, ms. Default 15,000. */
  readonly requestTimeoutMs?: number | undefined;
  /**
   * false: list Leases only (no not-ready, missing-lease, orphan or suppression verdicts: the
   * snapshot is degraded). Default true.
   */
  readonly readNodes?: boolean | undefined;
  /**
   * The Node labels to keep (see labelsUsedBy): a node carries dozens of labels, and keeping all
   * of them for 100,000 nodes costs hundreds of megabytes. Default: all of them.
   */
  readonly labelKeys?: readonly string[] | undefined;
  /**
   * Whole Nodes are ~13× the bytes of Leases and change slowly: with a cache, they are listed only
   * when it is older than its refresh period, and in between only the nodes the leases single
   * out (silent, unreadable, new, gone) are read again, one GET each. Default: list every read.
   */
  readonly nodeCache?: NodeCache | undefined;
}

/** More suspects than this in one read, and a full Node list is cheaper than the GETs. */
export const MAX_NODE_GETS = 100;
/** A lease older than this on the API server's clock may be going silent: read its Node afresh. */
export const SUSPECT_AGE_MS = 20_000;

/**
 * The Node facts of one cluster, kept between reads (a warm Lambda container, a `watch`
 * process). Kubelets renew every 10 s; Nodes change when someone cordons, taints or deletes one,
 * or when a kubelet reports a condition. With a cache, `not-ready` and newly cordoned healthy
 * nodes are noticed up to `refreshMs` late; silent nodes are always judged on fresh Node facts.
 */
export class NodeCache {
  private nodes: Map<string, NodeInfo> | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly refreshMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The cached nodes, when the last full list is recent enough. */
  current(): ReadonlyMap<string, NodeInfo> | undefined {
    return this.nodes && this.clock() - this.fetchedAt < this.refreshMs ? this.nodes : undefined;
  }

  replace(nodes: readonly NodeInfo[]): void {
    this.nodes = new Map(nodes.map((n) => [n.name, n]));
    this.fetchedAt = this.clock();
  }

  /** A fresh read of one node; undefined: it is gone. */
  update(name: string, node: NodeInfo | undefined): void {
    if (!this.nodes) return;
    if (node) this.nodes.set(name, node);
    else this.nodes.delete(name);
  }
}

/** Nodes worth reading afresh: their lease looks old or unreadable, or lease and Node disagree. */
export function suspectNodes(
  leases: readonly LeaseInfo[],
  nodes: ReadonlyMap<string, NodeInfo>,
  serverTime: number,
): string[] {
  const suspects = new Set<string>();
  const leased = new Set<string>();
  for (const lease of leases) {
    leased.add(lease.name);
    const renewed =
      typeof lease.renewTime === 'string' ? parseTimestamp(lease.renewTime) : undefined;
    if (renewed === undefined || serverTime - renewed >= SUSPECT_AGE_MS || !nodes.has(lease.name)) {
      suspects.add(lease.name);
    }
  }
  for (const name of nodes.keys()) if (!leased.has(name)) suspects.add(name);
  return [...suspects];
}

type Resource = 'leases' | 'nodes';

interface Page<T> {
  readonly items: T[];
  readonly next: string | undefined;
  readonly date: number | undefined;
  readonly bytes: number;
}

interface Connection {
  readonly headers: Record<string, string>;
  readonly dispatcher: Dispatcher | undefined;
}

interface Status {
  readonly message?: string;
  readonly reason?: string;
}

const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Walks an error's `cause` chain for a Node/undici error code. */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

/** Keeps what the core needs of a Lease; never throws on odd shapes (the core judges them). */
export function projectLease(item: unknown): LeaseInfo | undefined {
  const metadata = record(record(item).metadata);
  const spec = record(record(item).spec);
  const name = str(metadata.name);
  if (!name) return undefined;
  return {
    name,
    renewTime: spec.renewTime,
    leaseDurationSeconds: spec.leaseDurationSeconds,
    createdAt: str(metadata.creationTimestamp),
  };
}

const MAX_MESSAGE = 300;
const NO_TAINTS: readonly Taint[] = Object.freeze([]);

/**
 * One copy of each repeated value (zones, condition reasons, taint keys): JSON.parse gives every
 * node its own copy of "eu-west-1a" and "KubeletReady", which at 100,000 nodes adds up.
 */
export class Interner {
  private readonly values = new Map<string, string>();
  intern(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    const known = this.values.get(value);
    if (known !== undefined) return known;
    if (this.values.size < 10_000) this.values.set(value, value);
    return value;
  }
}

/** Keeps what the verdicts, grouping and notifications need of a Node (only `labelKeys` labels, when given). */
export function projectNode(
  item: unknown,
  labelKeys?: ReadonlySet<string>,
  interner: Interner = new Interner(),
): NodeInfo | undefined {
  const metadata = record(record(item).metadata);
  const spec = record(record(item).spec);
  const status = record(record(item).status);
  const name = str(metadata.name);
  if (!name) return undefined;
  const labels: Record<string, string> = {};
  const allLabels = record(metadata.labels);
  for (const key of labelKeys ?? Object.keys(allLabels)) {
    const value = allLabels[key];
    if (typeof value === 'string') labels[key] = interner.intern(value) as string;
  }
  const rawTaints = Array.isArray(spec.taints) ? spec.taints : [];
  const taints: Taint[] = [];
  for (const taint of rawTaints) {
    const key = interner.intern(str(record(taint).key));
    if (key) {
      taints.push({
        key,
        effect: interner.intern(str(record(taint).effect)),
        value: interner.intern(str(record(taint).value)),
      });
    }
  }
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const ready = record(conditions.find((c) => record(c).type === 'Ready'));
  const notReady = ready.status !== 'True';
  return {
    name,
    createdAt: str(metadata.creationTimestamp),
    labels,
    unschedulable: spec.unschedulable === true,
    deletionTimestamp: str(metadata.deletionTimestamp),
    taints: taints.length > 0 ? taints : NO_TAINTS,
    ready: interner.intern(str(ready.status)),
    // Reason and message matter only when the node is not Ready; kubelets can write long ones.
    readyReason: notReady ? interner.intern(str(ready.reason)) : undefined,
    readyMessage: notReady ? str(ready.message)?.slice(0, MAX_MESSAGE) : undefined,
    providerID: str(spec.providerID),
  };
}

export class KubeClusterReader implements ClusterReader {
  private readonly pageSize: number;
  private readonly timeoutMs: number;
  private readonly server: string;
  private readonly labelKeys: ReadonlySet<string> | undefined;

  constructor(private readonly options: KubeReaderOptions) {
    this.labelKeys = options.labelKeys ? new Set(options.labelKeys) : undefined;
    this.pageSize = options.pageSize ?? 500;
    this.timeoutMs = options.requestTimeoutMs ?? 15_000;
    const server = options.kubeConfig.getCurrentCluster()?.server;
    if (!server) {
      throw new ClusterReadError(
        'config',
        'the kubeconfig has no current cluster with a server URL: pass --context NAME or fix current-context',
      );
    }
    this.server = server.replace(/\/+$/, '');
  }

  /** The name the cluster is reported under. */
  get cluster(): string {
    return this.options.cluster;
  }

  async read(signal?: AbortSignal): Promise<Snapshot> {
    const { namespace } = this.options;
    const leasePath = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
    const stats = { requests: 0, bytes: 0 };
    const interner = new Interner();
    // One connection pool for every page of this read (client-node builds a new one per call):
    // a TLS handshake per read, not per page, and no idle sockets left behind.
    const connection = await this.connect();
    try {
      return await this.readWith(connection, leasePath, stats, interner, signal);
    } finally {
      connection.dispatcher?.destroy().catch(() => undefined);
    }
  }

  private async readWith(
    connection: Connection,
    leasePath: string,
    stats: { requests: number; bytes: number },
    interner: Interner,
    signal: AbortSignal | undefined,
  ): Promise<Snapshot> {
    const cache = this.options.nodeCache;
    const cached = cache?.current();
    const listNodes = () =>
      this.list(
        connection,
        'nodes',
        '/api/v1/nodes',
        (item) => projectNode(item, this.labelKeys, interner),
        stats,
        signal,
      ).then((listed) => {
        cache?.replace(listed.items);
        return listed;
      });
    const [leases, nodes] = await Promise.all([
      this.list(connection, 'leases', leasePath, projectLease, stats, signal),
      this.options.readNodes === false
        ? new ClusterReadError('config', 'Nodes not read (leases-only mode)')
        : cached
          ? undefined // refreshed below, from what the leases say
          : listNodes().catch((error: unknown) => {
              // Without Nodes the check still runs on leases alone: degraded, and it says so.
              if (error instanceof ClusterReadError && error.failure === 'forbidden') return error;
              throw error;
            }),
    ]);
    if (cached && cache && nodes === undefined) {
      const serverTime = leases.date ?? Date.now();
      const suspects = suspectNodes(leases.items, cached, serverTime);
      if (suspects.length > MAX_NODE_GETS) {
        const listed = await listNodes();
        return this.snapshot(leases, listed.items, undefined, stats);
      }
      await Promise.all(
        suspects.map(async (name) => {
          const answer = await this.request(
            connection,
            'nodes',
            `/api/v1/nodes/${encodeURIComponent(name)}`,
            signal,
            { missingIsNull: true },
          );
          stats.requests++;
          stats.bytes += answer.bytes;
          cache.update(
            name,
            answer.body ? projectNode(answer.body, this.labelKeys, interner) : undefined,
          );
        }),
      );
      return this.snapshot(leases, [...(cache.current() ?? cached).values()], undefined, stats);
    }
    return this.snapshot(
      leases,
      nodes instanceof ClusterReadError || nodes === undefined ? null : nodes.items,
      nodes instanceof ClusterReadError ? `${nodes.message}; checked leases alone` : undefined,
      stats,
    );
  }

  private snapshot(
    leases: { items: LeaseInfo[]; date: number | undefined },
    nodes: NodeInfo[] | null,
    degraded: string | undefined,
    stats: { requests: number; bytes: number },
  ): Snapshot {
    const { namespace, cluster } = this.options;
    return {
      cluster,
      namespace,
      leases: leases.items,
      nodes,
      // Paginated lists are one consistent read as of the first page: its Date is the server's time.
      serverTime: leases.date ?? Date.now(),
      degraded,
      stats,
    };
  }

  /** Credentials and TLS settings from the kubeconfig (runs an exec plugin when it has one). */
  private async connect(): Promise<Connection> {
    const context = new RequestContext(this.server, HttpMethod.GET);
    try {
      await this.options.kubeConfig.applySecurityAuthentication(context);
    } catch (error) {
      throw this.authSetupError(error);
    }
    return {
      headers: { ...context.getHeaders(), Accept: 'application/json' },
      dispatcher: context.getDispatcher() as Dispatcher | undefined,
    };
  }

  private async list<T>(
    connection: Connection,
    resource: Resource,
    path: string,
    project: (item: unknown) => T | undefined,
    stats: { requests: number; bytes: number },
    signal: AbortSignal | undefined,
  ): Promise<{ items: T[]; date: number | undefined }> {
    const items: T[] = [];
    let date: number | undefined;
    let next: string | undefined;
    do {
      const page: Page<T> = await this.page(connection, resource, path, next, project, signal);
      stats.requests++;
      stats.bytes += page.bytes;
      date ??= page.date;
      for (const item of page.items) items.push(item);
      next = page.next;
    } while (next);
    return { items, date };
  }

  private async page<T>(
    connection: Connection,
    resource: Resource,
    path: string,
    continueToken: string | undefined,
    project: (item: unknown) => T | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Page<T>> {
    const query = new URLSearchParams({ limit: String(this.pageSize) });
    if (continueToken) query.set('continue', continueToken);
    const answer = await this.request(connection, resource, `${path}?${query}`, signal);
    const body = answer.body ?? {};
    const list = Array.isArray(body.items) ? body.items : [];
    const items: T[] = [];
    for (const raw of list) {
      const item = project(raw);
      if (item !== undefined) items.push(item);
    }
    return {
      items,
      next: str(record(body.metadata).continue) || undefined,
      date: answer.date,
      bytes: answer.bytes,
    };
  }

  /** GET one object; `body` is undefined when it does not exist (404). */
  private async request(
    connection: Connection,
    resource: Resource,
    pathAndQuery: string,
    signal: AbortSignal | undefined,
    options: { missingIsNull?: boolean } = {},
  ): Promise<{
    body: Record<string, unknown> | undefined;
    date: number | undefined;
    bytes: number;
  }> {
    const url = `${this.server}${pathAndQuery}`;
    const what = this.describe(resource);
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const response = await fetch(url, {
        headers: connection.headers,
        dispatcher: connection.dispatcher,
        signal: combined,
      });
      const text = await response.text();
      const bytes = Buffer.byteLength(text);
      if (response.status === 404 && options.missingIsNull)
        return { body: undefined, date: undefined, bytes };
      if (!response.ok)
        throw this.statusError(resource, response.status, response.statusText, text);
      let body: Record<string, unknown>;
      try {
        body = record(JSON.parse(text));
      } catch {
        throw new ClusterReadError(
          'server',
          `the API server's answer to ${what} is not JSON (HTTP ${response.status})`,
        );
      }
      const dateHeader = response.headers.get('date');
      const date = dateHeader ? Date.parse(dateHeader) : Number.NaN;
      return { body, date: Number.isNaN(date) ? undefined : date, bytes };
    } catch (error) {
      if (error instanceof ClusterReadError) throw error;
      if (signal?.aborted) {
        throw new ClusterReadError(
          'aborted',
          `${what}: aborted before the API server answered`,
          undefined,
          {
            cause: error,
          },
        );
      }
      if (timeout.aborted) {
        throw new ClusterReadError(
          'timeout',
          `${what}: no answer from ${this.host()} within ${this.timeoutMs / 1000}s`,
          undefined,
          { cause: error },
        );
      }
      throw this.transportError(what, error);
    }
  }

  private describe(resource: Resource): string {
    return resource === 'leases'
      ? `listing leases in namespace ${this.options.namespace}`
      : 'listing nodes';
  }

  private host(): string {
    try {
      return new URL(this.server).host;
    } catch {
      return 'the API server';
    }
  }

  private authSetupError(error: unknown): ClusterReadError {
    const code = errorCode(error);
    const user = this.options.kubeConfig.getCurrentUser();
    const command =
      user?.exec?.command ?? (user?.authProvider?.config?.exec?.command as string | undefined);
    if (code === 'ENOENT' && command) {
      return new ClusterReadError(
        'exec-plugin',
        `the kubeconfig user "${user?.name}" needs the credential plugin "${command}", which is not installed or not on PATH`,
        undefined,
        { cause: error },
      );
    }
    if (command) {
      return new ClusterReadError(
        'exec-plugin',
        `the credential plugin "${command}" of kubeconfig user "${user?.name}" failed: ${firstLine(error)}`,
        undefined,
        { cause: error },
      );
    }
    return new ClusterReadError(
      'config',
      `cannot use the kubeconfig's credentials: ${firstLine(error)}`,
      undefined,
      {
        cause: error,
      },
    );
  }

  private statusError(
    resource: Resource,
    status: number,
    statusText: string,
    text: string,
  ): ClusterReadError {
    let detail: Status = {};
    try {
      detail = record(JSON.parse(text)) as Status;
    } catch {
      // Not a Status object: fall back to the HTTP status text.
    }
    const serverSays = detail.message ? `: ${oneLine(detail.message)}` : '';
    const ns = this.options.namespace;
    switch (true) {
      case status === 401:
        return new ClusterReadError(
          'unauthorized',
          `the API server at ${this.host()} rejected the credentials (401 Unauthorized): the token or certificate is wrong or expired`,
          status,
        );
      case status === 403: {
        const scope = resource === 'leases' ? `leases in namespace ${ns}` : 'nodes';
        const group = resource === 'leases' ? ' (API group coordination.k8s.io)' : '';
        return new ClusterReadError(
          'forbidden',
          `cannot list ${scope}${group} (403 Forbidden)${serverSays} — grant get/list on ${resource}, see deploy/rbac.yaml`,
          status,
        );
      }
      case status === 404:
        return new ClusterReadError(
          'not-found',
          resource === 'leases'
            ? `namespace ${ns} not found (404): node leases live in kube-node-lease; check --namespace`
            : `nodes not found (404) at ${this.host()}: is this a Kubernetes API server?`,
          status,
        );
      default:
        return new ClusterReadError(
          'server',
          `the API server answered ${status} ${statusText || ''}`.trimEnd() +
            ` to ${this.describe(resource)}${serverSays}`,
          status,
        );
    }
  }

  private transportError(what: string, error: unknown): ClusterReadError {
    const code = errorCode(error);
    if (code && TLS_CODES.has(code)) {
      const hint =
        code === 'ERR_TLS_CERT_ALTNAME_INVALID'
          ? 'the certificate does not name this host (check the server URL or tls-server-name)'
          : "the server's certificate is not signed by the CA in the kubeconfig (check certificate-authority-data)";
      return new ClusterReadError(
        'tls',
        `TLS verification of ${this.host()} failed (${code}): ${hint}`,
        undefined,
        {
          cause: error,
        },
      );
    }
    if (code && UNREACHABLE_CODES.has(code)) {
      return new ClusterReadError(
        'unreachable',
        `cannot reach the API server at ${this.host()} (${code}) while ${what}: check the server URL, DNS and the network path`,
        undefined,
        { cause: error },
      );
    }
    return new ClusterReadError(
      'unreachable',
      `${what} at ${this.host()} failed: ${firstLine(error)}${code ? ` (${code})` : ''}`,
      undefined,
      { cause: error },
    );
  }
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return oneLine(message.split('\n')[0] ?? message);
}
