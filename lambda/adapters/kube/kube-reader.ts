/**
 * Reads node Leases and Nodes over the Kubernetes API: one session per read (transport.ts), the
 * answers projected onto what the core needs (projection.ts), and, with a node cache
 * (node-cache.ts), whole Nodes listed only once per refresh period, the Table of Nodes
 * (node-table.ts) and GETs of the nodes that may page in between (node-reads.ts reads the
 * Nodes). Never `resourceVersion=0`: every list is a consistent read from etcd, paginated, and a
 * server that ignores `limit` is bounded by the page caps (its bytes, and the values it builds:
 * page-values.ts). Every failure is one ClusterReadError with one clear line (read-errors.ts).
 */

import type { LeaseInfo, NodeInfo, Snapshot } from '../../core/model.js';
import type { LabelSelector } from '../../core/selector.js';
import {
  ClusterReadError,
  type ClusterReader,
  type KubeConfigView,
  type ReadMode,
  type StructuredLogger,
} from '../../ports/index.js';
import { hasUserInfo } from './config/kubeconfig-files.js';
import { Interner, NameTable, projectLease } from './decode/projection.js';
import {
  ApiSession,
  type Listed,
  READ_BOUNDS,
  type ReadBounds,
  type ReadStats,
  type SessionOptions,
} from './http/transport.js';
import { type NodeCache, SUSPECT_AGE_MS } from './node-cache.js';
import { NodeReads, type OneRead } from './node-reads.js';

export type { ReadBounds } from './http/transport.js';
export { NodeCache, suspectAgeFor } from './node-cache.js';

export interface KubeReaderOptions {
  readonly kubeConfig: KubeConfigView;
  /** The name the cluster is reported under (notifications, JSON output). */
  readonly cluster: string;
  readonly namespace: string;
  /** Items per list request. Default 500 (what kubectl asks for). */
  readonly pageSize?: number | undefined;
  /** Timeout of each request, ms. Default 15,000. */
  readonly requestTimeoutMs?: number | undefined;
  /**
   * Bounds of one read: bytes per page, pages per list, and the time of the whole read (never
   * less than one request's timeout). Default READ_BOUNDS.
   */
  readonly bounds?: Partial<ReadBounds> | undefined;
  /**
   * Quote what a failing exec credential plugin wrote to stderr in the error (the CLI's
   * --verbose). Default false: a plugin can echo credentials there.
   */
  readonly showPluginStderr?: boolean | undefined;
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
   * when it is older than its refresh period. In between, each read lists the server-side Table
   * of Nodes (node-table.ts: Ready and cordon per node, a few hundred bytes each), and reads
   * afresh, one GET each, the nodes the leases or the Table single out (silent, unreadable, new,
   * gone, not Ready, changed). Default: list whole Nodes on every read.
   */
  readonly nodeCache?: NodeCache | undefined;
  /** Where a Table of Nodes that could not be used (whole Nodes listed instead) is noted. */
  readonly logger?: Pick<StructuredLogger, 'warn'> | undefined;
  /**
   * With a node cache: a lease older than this on the API server's clock has its Node read afresh
   * (see suspectNodes), so that a node going silent is judged on fresh Node facts. Set it from
   * the grace period with suspectAgeFor(gracePeriodSeconds): min(20 s, grace / 2). Default 20 s
   * (SUSPECT_AGE_MS), right for a grace period of 40 s or more.
   */
  readonly suspectAfterMs?: number | undefined;
  /**
   * Check only the Nodes this label selector matches (the CLI's -l): Nodes are listed with it as
   * `labelSelector` (and matched again here, as are Nodes read one by one), and only the leases of
   * the selected Nodes are kept, matched by name: a lease has no node labels, and the lease of a
   * node that is not selected is not an orphan. Needs the Nodes: forbidden Nodes fail the read.
   * With a node cache, a node that starts to match is seen at the next full list.
   */
  readonly nodeSelector?: LabelSelector | undefined;
  /**
   * Every request of a read over one connection, one after another (the Nodes' list waits for
   * the leases' pages, or they for it): one TLS handshake instead of one per request in flight.
   * For a one-off read (the CLI's check), where the handshakes cost more than the lists of a
   * small cluster. Default false: the lists side by side, each on a connection of its own.
   */
  readonly oneConnection?: boolean | undefined;
  /**
   * Nodes (the list and GETs) read in JSON, never asked for in protobuf (node-protobuf.ts): for
   * the bench's floor, `JSON.parse` of the very pages a JSON reader gets. Default false.
   */
  readonly nodesAsJson?: boolean | undefined;
}

export class KubeClusterReader implements ClusterReader {
  /** What each read's session is opened with. */
  private readonly session: SessionOptions;
  /** The Nodes' side of each read: whole lists, the Table, GETs of suspects. */
  private readonly nodes: NodeReads;
  /** The names of the last read, kept so that every read holds one string per name (NameTable). */
  private readonly names = new NameTable();
  /** Where the node Leases are listed. */
  private readonly leasePath: string;

  constructor(private readonly options: KubeReaderOptions) {
    const selectorKeys = options.nodeSelector?.requirements.map((r) => r.key) ?? [];
    const labelKeys = options.labelKeys
      ? new Set([...options.labelKeys, ...selectorKeys])
      : undefined;
    if (options.nodeSelector && options.readNodes === false) {
      throw new ClusterReadError(
        'config',
        'a node selector needs the Nodes: not in leases-only mode',
      );
    }
    const suspectAfterMs = options.suspectAfterMs ?? SUSPECT_AGE_MS;
    if (!(suspectAfterMs >= 0)) {
      throw new RangeError(
        `suspectAfterMs must be a number of milliseconds, 0 or more (got ${String(options.suspectAfterMs)})`,
      );
    }
    const timeoutMs = options.requestTimeoutMs ?? 15_000;
    const bounds = { ...READ_BOUNDS, ...options.bounds };
    const server = options.kubeConfig.getCurrentCluster()?.server;
    if (!server) {
      throw new ClusterReadError(
        'config',
        'the kubeconfig has no current cluster with a server URL: pass --context NAME or fix current-context',
      );
    }
    if (hasUserInfo(server)) {
      // undici would quote the URL, password and all, in its errors.
      throw new ClusterReadError(
        'config',
        `the server URL of cluster ${options.cluster} has a user name or password in it (https://user:pass@host): remove them and give credentials as a token or certificate`,
      );
    }
    this.session = {
      server: server.replace(/\/+$/, ''),
      namespace: options.namespace,
      pageSize: options.pageSize ?? 500,
      timeoutMs,
      bounds: { ...bounds, budgetMs: Math.max(bounds.budgetMs, timeoutMs) },
      showPluginStderr: options.showPluginStderr,
      oneConnection: options.oneConnection,
    };
    this.leasePath = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(options.namespace)}/leases`;
    this.nodes = new NodeReads({
      labelKeys,
      suspectAfterMs,
      nodeCache: options.nodeCache,
      nodeSelector: options.nodeSelector,
      protobuf: options.nodesAsJson !== true,
    });
  }

  /** The name the cluster is reported under. */
  get cluster(): string {
    return this.options.cluster;
  }

  /**
   * `look`, with a warm node cache: the Leases alone, and a GET of each node that may page now
   * (suspectNodes); the other nodes as cached. Without one (a cold container), a whole check.
   */
  async read(signal?: AbortSignal, mode?: ReadMode): Promise<Snapshot> {
    const session = await ApiSession.open(this.options.kubeConfig, this.session);
    try {
      return await this.readWith({ session, interner: new Interner(this.names), signal }, mode);
    } finally {
      session.close();
      // After a failed read too: what it saw is bounded, and the next read starts afresh.
      this.names.turn();
    }
  }

  /**
   * On a look, the nodes the leases single out (old enough to page, unreadable, new or gone:
   * suspectNodes) are read afresh, so a silent node is judged on fresh taints, cordon and
   * deletion; every other node as the cache holds it (Ready as of the last check's Table).
   */
  private async readWith(read: OneRead, mode: ReadMode | undefined): Promise<Snapshot> {
    const { nodeCache: cache } = this.options;
    const readNodes = this.options.readNodes !== false;
    const cached = readNodes ? cache?.current() : undefined;
    const look = cached !== undefined && mode === 'look';
    const byTable = cached !== undefined && !look && cache?.tableUsable() === true;
    // Whole Nodes (a cold start, a relist) are listed beside the leases, not after them: one
    // round trip less for every `lease-watchdog check`. The leases' error still wins: it is
    // awaited first, and a failure of the Nodes' list meanwhile is read only after it.
    const whole = readNodes && !byTable && !look ? this.nodes.listNodesOrDegraded(read) : undefined;
    whole?.catch(() => undefined);
    const { session, interner, signal } = read;
    const [leases, table] = await Promise.all([
      session.list('leases', this.leasePath, (item) => projectLease(item, interner), signal),
      byTable ? this.nodes.listTable(read) : undefined,
    ]);
    if (cached && (look || table instanceof Map)) {
      const rows = table instanceof Map ? table : undefined;
      const refreshed = await this.nodes.refreshSuspects(read, leases, cached, rows);
      return this.snapshot(leases, refreshed, undefined, session.stats);
    }
    if (table instanceof ClusterReadError) {
      const fields = { cluster: this.options.cluster, error: table.message };
      this.options.logger?.warn(
        'the Table of Nodes could not be used: whole Nodes listed instead',
        fields,
      );
    }
    const nodes = !readNodes
      ? new ClusterReadError('config', 'Nodes not read (leases-only mode)')
      : await (whole ?? this.nodes.listNodesOrDegraded(read));
    return this.snapshot(
      leases,
      nodes instanceof ClusterReadError || nodes === undefined ? null : nodes.items,
      nodes instanceof ClusterReadError ? `${nodes.message}; checked leases alone` : undefined,
      session.stats,
    );
  }

  private snapshot(
    leases: Listed<LeaseInfo>,
    nodes: NodeInfo[] | null,
    degraded: string | undefined,
    stats: ReadStats,
  ): Snapshot {
    const { namespace, cluster } = this.options;
    if (leases.items.length === 0 && nodes && nodes.length > 0) {
      // Every kubelet renews a Lease: none at all beside live Nodes is the wrong namespace, not
      // every node missing its lease at once (which would page each of them).
      throw new ClusterReadError(
        'config',
        `no Leases in namespace ${namespace} but ${nodes.length} Node${nodes.length === 1 ? '' : 's'} exist: check --namespace (kubelets renew their leases in kube-node-lease)`,
      );
    }
    // With a node selector, the leases of the selected nodes only (nodes is not null here).
    const selected = this.options.nodeSelector && nodes ? new Set(nodes.map((n) => n.name)) : null;
    return {
      cluster,
      namespace,
      leases: selected ? leases.items.filter((lease) => selected.has(lease.name)) : leases.items,
      nodes,
      // Paginated lists are one consistent read as of the first page: its Date is the server's time.
      serverTime: leases.date ?? Date.now(),
      degraded,
      stats,
    };
  }
}
