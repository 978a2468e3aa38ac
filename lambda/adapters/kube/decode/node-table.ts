/**
 * The server-side Table of Nodes (what `kubectl get nodes` receives): per node its name and its
 * Status cell, `Ready` / `NotReady` / `Unknown`, with `,SchedulingDisabled` when cordoned — a
 * few hundred bytes a node where the whole Node is 5-40 KB. kube-apiserver builds the cell from
 * the Ready condition (True: `Ready`; False or Unknown: `NotReady`; none: `Unknown`) and
 * `spec.unschedulable`. Asked with `includeObject=None`: the rows carry no object at all.
 *
 * A Table the reader cannot use (another kind, no Name or Status column, odd cell text, a row
 * count that differs from what the first page announced) is a TableUnusableError: the caller lists
 * whole Nodes instead.
 *
 * At 100,000 nodes a check reads 100,000 rows: each page is read from its bytes keeping only the
 * column names and the cells (pruned-json.ts, no page string), and the rows are kept as one map
 * of name → status code (TableRows), not an object per row.
 */
import type { NodeInfo } from '../../../core/model.js';
import { ClusterReadError } from '../../../ports/index.js';
import type { Listed, ListFormat } from '../http/transport.js';
import { record } from './projection.js';
import { ALL, keepEach, keepFields } from './pruned-json.js';

/**
 * What kubectl asks for first: the meta.k8s.io/v1 Table. Four times the page size (2,000 rows by
 * default): a row is ~230 bytes, so a page is ~450 KB, over the 128 KiB from which kube-apiserver
 * gzips an answer (500 rows, ~113 KB, would go uncompressed: 3× the bytes on the wire). Of a page,
 * the reader keeps its kind, metadata, column names and each row's cells.
 */
export const NODE_TABLE: ListFormat = {
  accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
  kind: 'Table',
  items: 'rows',
  pageScale: 4,
  keep: keepFields({
    kind: ALL,
    metadata: ALL,
    columnDefinitions: keepEach(keepFields({ name: ALL })),
    rows: keepEach(keepFields({ cells: keepEach(ALL) })),
  }),
};
/** Rows without their object: the cells are all the reader uses. */
export const NODE_TABLE_PARAMS: Readonly<Record<string, string>> = { includeObject: 'None' };

/**
 * A row's Status cell as a number: its Ready part (READY, NOT_READY, UNKNOWN), plus CORDONED for
 * `,SchedulingDisabled`. One small integer per node where an object per row would be ~10 MB at
 * 100,000 nodes.
 */
export type RowStatus = number;
const READY = 0;
const NOT_READY = 1;
const UNKNOWN = 2;
const CORDONED = 4;
const READY_PARTS: Readonly<Record<string, number>> = {
  Ready: READY,
  NotReady: NOT_READY,
  Unknown: UNKNOWN,
};

/** The Table answer cannot stand in for the Nodes; `message` says why, in one line. */
export class TableUnusableError extends ClusterReadError {
  constructor(message: string) {
    super('invalid-response', `the Table of Nodes is not usable: ${message}`, 200);
  }
}

const STATUS_CELL = /^(Ready|NotReady|Unknown)(,SchedulingDisabled)?$/;
/** A Node name: a DNS subdomain (RFC 1123), at most 253 characters. */
const NODE_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

const columnsSeen = new WeakMap<Record<string, unknown>, { name: number; status: number }>();

/** The indexes of the Name and Status columns of a Table page. */
function columnsOf(page: Record<string, unknown>): { name: number; status: number } {
  const known = columnsSeen.get(page);
  if (known) return known;
  const definitions = Array.isArray(page.columnDefinitions) ? page.columnDefinitions : [];
  const index = (column: string) => definitions.findIndex((d) => record(d).name === column);
  const columns = { name: index('Name'), status: index('Status') };
  if (columns.name < 0 || columns.status < 0) {
    throw new TableUnusableError(
      `it has no ${columns.name < 0 ? 'Name' : 'Status'} column (${definitions.length} columns)`,
    );
  }
  columnsSeen.set(page, columns);
  return columns;
}

/**
 * The rows of one listing of the Table, by name, as they arrive: `add` is the list's projection
 * (it keeps nothing in the list itself), `whole` the rows once every page is in.
 */
export class TableRows {
  private readonly byName = new Map<string, RowStatus>();

  /** One row of a Table page; throws TableUnusableError on a row that cannot be read. */
  readonly add = (row: unknown, page: Record<string, unknown>): undefined => {
    const columns = columnsOf(page);
    const cells = record(row).cells;
    if (!Array.isArray(cells)) throw new TableUnusableError('a row has no cells');
    const name = cells[columns.name];
    const status = cells[columns.status];
    // Cell text is never quoted: it comes from the cluster and may be hostile.
    if (typeof name !== 'string' || !NODE_NAME.test(name)) {
      throw new TableUnusableError('a Name cell is not a node name');
    }
    const match = typeof status === 'string' ? STATUS_CELL.exec(status) : null;
    if (!match)
      throw new TableUnusableError(`the Status cell of node ${name} is not one it can read`);
    if (this.byName.has(name)) throw new TableUnusableError(`node ${name} has two rows`);
    this.byName.set(name, (READY_PARTS[match[1] as string] as number) | (match[2] ? CORDONED : 0));
    return undefined;
  };

  /** The rows by name; throws TableUnusableError when the list is not whole. */
  whole(listed: Listed<unknown>): Map<string, RowStatus> {
    if (listed.announced !== undefined && listed.announced !== listed.received) {
      throw new TableUnusableError(
        `its first page announced ${listed.announced} rows but ${listed.received} came`,
      );
    }
    return this.byName;
  }
}

/** The Status code kube-apiserver's cell would give for a Node as projected. */
function rowStatusOf(node: NodeInfo): RowStatus {
  const ready = node.ready === undefined ? UNKNOWN : node.ready === 'True' ? READY : NOT_READY;
  return ready | (node.unschedulable ? CORDONED : 0);
}

/**
 * The nodes the Table singles out for a fresh read: new in it, gone from it, not `Ready` (a
 * node that may page), or whose Ready or cordon differs from the cached Node.
 */
export function tableSuspects(
  rows: ReadonlyMap<string, RowStatus>,
  cached: ReadonlyMap<string, NodeInfo>,
): Set<string> {
  const suspects = new Set<string>();
  for (const [name, status] of rows) {
    const node = cached.get(name);
    if (!node || (status & ~CORDONED) !== READY || rowStatusOf(node) !== status) {
      suspects.add(name);
    }
  }
  for (const name of cached.keys()) if (!rows.has(name)) suspects.add(name);
  return suspects;
}
