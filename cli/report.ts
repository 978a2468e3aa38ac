/**
 * How the CLI shows an evaluation: a table like `kubectl get` (`wide` adds where each node runs),
 * or one document as JSON or YAML. Pure.
 */
import { formatAge } from '../lambda/core/duration.js';
import { type Evaluation, isAlerting, type NodeVerdict, VERDICTS } from '../lambda/core/model.js';
import { columns } from './columns.js';
import { sanitize, shownName } from './sanitize.js';

/** Keeps a cell on one line and printable, whatever a kubelet wrote (see sanitize.ts). */
const cell = sanitize;

function renewed(n: NodeVerdict): string {
  if (n.silentForSeconds === null) return '<none>';
  return n.renewTime === null ? 'never' : `${formatAge(n.silentForSeconds)} ago`;
}

/** A fact of a node for a table cell: `<none>` when unknown, as kubectl shows it. */
function fact(value: string | null | undefined): string {
  return value === null || value === undefined || value === '' ? '<none>' : cell(value);
}

export interface TableOptions {
  /** `-o wide`: also INSTANCE, NODE-GROUP, INSTANCE-TYPE and CAPACITY-TYPE, before REASON. */
  readonly wide?: boolean | undefined;
  /** `--no-headers`: the rows alone. */
  readonly noHeaders?: boolean | undefined;
}

export function renderTable(evaluation: Evaluation, options: TableOptions = {}): string {
  const wide = options.wide === true;
  const header = [
    'NAME',
    'VERDICT',
    'RENEWED',
    'DURATION',
    'ZONE',
    ...(wide ? ['INSTANCE', 'NODE-GROUP', 'INSTANCE-TYPE', 'CAPACITY-TYPE'] : []),
    'REASON',
  ];
  const rows = evaluation.nodes.map((n) => [
    shownName(n.name),
    n.verdict,
    renewed(n),
    n.leaseDurationSeconds === null ? '<none>' : `${n.leaseDurationSeconds}s`,
    fact(n.zone),
    ...(wide
      ? [fact(n.instance), fact(n.nodeGroup), fact(n.instanceType), fact(n.capacityType)]
      : []),
    cell(n.reason),
  ]);
  return columns(header, rows, options.noHeaders);
}

/** One line: "12 nodes: 9 healthy, 2 expired, 1 suppressed (1 out-of-service)". */
export function renderSummary(evaluation: Evaluation): string {
  const causes = Object.entries(evaluation.suppressedBy ?? {}).map(([c, n]) => `${n} ${c}`);
  const parts = VERDICTS.filter((v) => evaluation.summary[v] > 0).map(
    (v) => `${evaluation.summary[v]} ${v}${v === 'suppressed' ? ` (${causes.join(', ')})` : ''}`,
  );
  const nodes = evaluation.nodes.filter((n) => n.verdict !== 'orphaned-lease').length;
  return `${sanitize(evaluation.cluster)}: ${nodes} node${nodes === 1 ? '' : 's'}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

export function toJson(evaluation: Evaluation): object {
  return {
    cluster: evaluation.cluster,
    checkedAt: new Date(evaluation.checkedAt).toISOString(),
    serverTime: new Date(evaluation.serverTime).toISOString(),
    ...(evaluation.degraded ? { degraded: evaluation.degraded } : {}),
    ...(evaluation.suspect ? { suspect: evaluation.suspect } : {}),
    nodes: evaluation.nodes.map((n) => ({
      name: n.name,
      verdict: n.verdict,
      renewTime: n.renewTime,
      leaseDurationSeconds: n.leaseDurationSeconds,
      silentForSeconds: n.silentForSeconds,
      reason: n.reason,
      zone: n.zone,
      instance: n.instance,
      nodeGroup: n.nodeGroup ?? null,
      instanceType: n.instanceType ?? null,
      capacityType: n.capacityType ?? null,
      ...(n.suppressedBy ? { suppressedBy: n.suppressedBy } : {}),
    })),
    summary: evaluation.summary,
    // Only when some node is suppressed, as `degraded` only when Nodes could not be read.
    ...(evaluation.summary.suppressed > 0 ? { suppressedBy: evaluation.suppressedBy } : {}),
  };
}

export function anyAlerting(evaluation: Evaluation): boolean {
  return evaluation.nodes.some((n) => isAlerting(n.verdict));
}
