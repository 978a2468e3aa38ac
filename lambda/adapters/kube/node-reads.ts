/**
 * The Nodes of one read (kube-reader.ts), in the three ways it may read them: the whole list
 * (kept in the node cache; a 403 makes the read degraded, not failed, unless a node selector
 * needs them), the server-side Table of Nodes (node-table.ts), and a GET of each node that the
 * leases or the Table single out (suspectNodes), the rest as the cache holds them.
 */
import type { LeaseInfo, NodeInfo } from '../../core/model.js';
import { type LabelSelector, matchesSelector } from '../../core/selector.js';
import { ClusterReadError } from '../../ports/index.js';
import { LIST_FIELDS } from './decode/answer-shapes.js';
import { decodeNode, decodeNodeList, PROTOBUF_FIRST } from './decode/node-protobuf.js';
import {
  NODE_TABLE,
  NODE_TABLE_PARAMS,
  type RowStatus,
  TableRows,
  TableUnusableError,
  tableSuspects,
} from './decode/node-table.js';
import { type Interner, projectNode } from './decode/projection.js';
import type { ApiSession, Listed, ListFormat, NodeFormat } from './http/transport.js';
import { MAX_NODE_GETS, type NodeCache, suspectNodes } from './node-cache.js';

interface NodeReadOptions {
  /** The Node labels to keep; undefined: all of them. */
  readonly labelKeys: ReadonlySet<string> | undefined;
  /** A lease older than this on the server's clock has its Node read afresh (suspectNodes). */
  readonly suspectAfterMs: number;
  readonly nodeCache?: NodeCache | undefined;
  readonly nodeSelector?: LabelSelector | undefined;
  /** Nodes (the list and GETs) asked for in protobuf first (node-protobuf.ts); JSON when answered so. */
  readonly protobuf?: boolean | undefined;
}

/** One read, as each way of reading its Nodes takes it: its session, interner and signal. */
export interface OneRead {
  readonly session: ApiSession;
  readonly interner: Interner;
  readonly signal: AbortSignal | undefined;
}

/** The Nodes of a read, for one reader: its label keys, suspect age, cache and selector. */
export class NodeReads {
  /** How the whole list is asked for and read. */
  private readonly listFormat: ListFormat | undefined;
  /** How one Node is asked for and read (a GET). */
  private readonly nodeFormat: NodeFormat | undefined;

  constructor(private readonly options: NodeReadOptions) {
    const { labelKeys } = options;
    this.listFormat = options.protobuf
      ? {
          accept: PROTOBUF_FIRST,
          kind: 'NodeList',
          items: 'items',
          keep: LIST_FIELDS.nodes,
          protobuf: (body) => decodeNodeList(body, labelKeys),
        }
      : undefined;
    this.nodeFormat = options.protobuf
      ? { accept: PROTOBUF_FIRST, protobuf: (body) => decodeNode(body, labelKeys) }
      : undefined;
  }

  /** Lists every Node; a 403 (without a node selector) is a degraded read, not a failure. */
  listNodesOrDegraded(read: OneRead): Promise<Listed<NodeInfo> | ClusterReadError> {
    return this.listNodes(read).catch((error: unknown) => {
      // Without Nodes the check still runs on leases alone: degraded, and it says so.
      // Not with a node selector: which leases it selects is known only from the Nodes.
      if (error instanceof ClusterReadError && error.failure === 'forbidden') {
        if (!this.options.nodeSelector) return error;
        throw new ClusterReadError(
          'forbidden',
          `${error.message}; the node selector "${this.options.nodeSelector.source}" needs them`,
          error.statusCode,
          { cause: error },
        );
      }
      throw error;
    });
  }

  /**
   * The Table of Nodes by name; the error instead when it cannot stand in for them (the caller
   * lists whole Nodes): an answer that is no usable Table keeps the cache off Tables for one
   * refresh period, any other failure is met by the whole list (which fails, or degrades, alike).
   */
  async listTable({
    session,
    signal,
  }: OneRead): Promise<Map<string, RowStatus> | ClusterReadError> {
    const selector = this.options.nodeSelector;
    try {
      const rows = new TableRows();
      const listed = await session.list(
        'nodes',
        '/api/v1/nodes',
        rows.add,
        signal,
        selector
          ? { ...NODE_TABLE_PARAMS, labelSelector: selector.source.trim() }
          : NODE_TABLE_PARAMS,
        NODE_TABLE,
      );
      return rows.whole(listed);
    } catch (error) {
      if (!(error instanceof ClusterReadError) || error.failure === 'aborted') throw error;
      if (
        error instanceof TableUnusableError ||
        error.failure === 'invalid-response' ||
        error.statusCode === 406
      ) {
        this.options.nodeCache?.refuseTable();
      }
      return error;
    }
  }

  /** Lists every Node, and keeps them in the cache when there is one. */
  private async listNodes({ session, interner, signal }: OneRead): Promise<Listed<NodeInfo>> {
    const { nodeSelector: selector, nodeCache: cache, labelKeys } = this.options;
    const listed = await session.list(
      'nodes',
      '/api/v1/nodes',
      (item) => {
        const node = projectNode(item, labelKeys, interner);
        // Straight to the cache's row: the snapshot and the cache share one object per node.
        return cache && node ? cache.row(node) : node;
      },
      signal,
      selector ? { labelSelector: selector.source.trim() } : {},
      this.listFormat,
    );
    // Matched again: a proxy or server that ignored the labelSelector must not widen the check.
    const items = selector ? listed.items.filter((n) => this.selects(n)) : listed.items;
    cache?.replaceRows(items);
    return { ...listed, items };
  }

  /** Whether the node selector (if any) selects the node. */
  private selects(node: NodeInfo): boolean {
    const selector = this.options.nodeSelector;
    return selector === undefined || matchesSelector(selector, node.labels);
  }

  /**
   * The cached Nodes, with those the leases or the Table single out read afresh (one GET each),
   * or all of them listed again when there are too many suspects.
   */
  async refreshSuspects(
    read: OneRead,
    leases: Listed<LeaseInfo>,
    cached: ReadonlyMap<string, NodeInfo>,
    rows: ReadonlyMap<string, RowStatus> | undefined,
  ): Promise<NodeInfo[]> {
    const serverTime = leases.date ?? Date.now();
    // With a node selector, a lease whose node is not among the selected ones is not a suspect:
    // it belongs to a node that is not selected (or to none), not to a node that needs a GET.
    const considered = this.options.nodeSelector
      ? leases.items.filter((lease) => cached.has(lease.name) || rows?.has(lease.name))
      : leases.items;
    const suspects = new Set([
      // On a look (no Table), a lease with no cached Node stays the orphan the last check saw.
      ...suspectNodes(considered, cached, serverTime, {
        suspectAfterMs: this.options.suspectAfterMs,
        named: rows ?? cached,
      }),
      ...(rows ? tableSuspects(rows, cached) : []),
    ]);
    if (suspects.size > MAX_NODE_GETS) {
      return (await this.listNodes(read)).items;
    }
    const cache = this.options.nodeCache;
    await Promise.all(
      [...suspects].map(async (name) => {
        const body = await read.session.getNode(name, read.signal, this.nodeFormat);
        const node = body ? projectNode(body, this.options.labelKeys, read.interner) : undefined;
        // A node relabelled out of the selection leaves it, as a deleted one does.
        cache?.update(name, node && this.selects(node) ? node : undefined);
      }),
    );
    return [...(cache?.current() ?? cached).values()];
  }
}
