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
 */
import type { NodeInfo } from '../../core/model.js';
import { ClusterReadError } from '../../ports/index.js';
import { record } from './projection.js';
import type { Listed, ListFormat } from './transport.js';

/**
 * What kubectl asks for first: the meta.k8s.io/v1 Table. Four times the page size (2,000 rows by
 * default): a row is ~230 bytes, so a page is ~450 KB, over the 128 KiB from which kube-apiserver
 * gzips an answer (500 rows, ~113 KB, would go uncompressed: 3× the bytes on the wire).
 */
export const NODE_TABLE: ListFormat = {
  accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
  kind: 'Table',
  items: 'rows',
  pageScale: 4,
};
/** Rows without their object: the cells are all the reader uses. */
export const NODE_TABLE_PARAMS: Readonly<Record<string, string>> = { includeObject: 'None' };

export type TableStatus = 'Ready' | 'NotReady' | 'Unknown';

/** One row of the Table of Nodes. */
export interface NodeRow {
  readonly name: string;
  readonly status: TableStatus;
  readonly unschedulable: boolean;
}

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

/** One row of a Table page; throws TableUnusableError on a row that cannot be read. */
export function projectNodeRow(row: unknown, page: Record<string, unknown>): NodeRow {
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
  return {
    name,
    status: match[1] as TableStatus,
    unschedulable: match[2] !== undefined,
  };
}

/** The rows by name; throws TableUnusableError when the list is not whole. */
export function rowsByName(listed: Listed<NodeRow>): Map<string, NodeRow> {
  if (listed.announced !== undefined && listed.announced !== listed.received) {
    throw new TableUnusableError(
      `its first page announced ${listed.announced} rows but ${listed.received} came`,
    );
  }
  const rows = new Map<string, NodeRow>();
  for (const row of listed.items) {
    if (rows.has(row.name)) throw new TableUnusableError(`node ${row.name} has two rows`);
    rows.set(row.name, row);
  }
  return rows;
}

/** The Status cell kube-apiserver would print for a Node as projected. */
export function tableStatusOf(node: NodeInfo): TableStatus {
  if (node.ready === undefined) return 'Unknown';
  return node.ready === 'True' ? 'Ready' : 'NotReady';
}

/**
 * The nodes the Table singles out for a fresh read: new in it, gone from it, not `Ready` (a
 * node that may page), or whose Ready or cordon differs from the cached Node.
 */
export function tableSuspects(
  rows: ReadonlyMap<string, NodeRow>,
  cached: ReadonlyMap<string, NodeInfo>,
): Set<string> {
  const suspects = new Set<string>();
  for (const row of rows.values()) {
    const node = cached.get(row.name);
    if (
      !node ||
      row.status !== 'Ready' ||
      tableStatusOf(node) !== row.status ||
      node.unschedulable !== row.unschedulable
    ) {
      suspects.add(row.name);
    }
  }
  for (const name of cached.keys()) if (!rows.has(name)) suspects.add(name);
  return suspects;
}
