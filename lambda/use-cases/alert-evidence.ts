/**
 * Evidence at alert time: before a FIRING is saved, its first few nodes are looked up in the
 * evidence sources of the cluster (EC2's word on the instance, the node's last Events), all at
 * once and within a small time budget. Whatever has not answered when the budget is spent is
 * given up with one line saying so: the page is never held longer than the budget, and a source
 * that fails says what could not be read and why instead of failing the check.
 */
import type { SuppressionCause } from '../core/model.js';
import type { Evidence, NodeEvidence, Notification } from '../core/notification.js';
import { evidencedExit } from '../core/suppression.js';
import { EvidenceReadError, type EvidenceReader } from '../ports/index.js';

/** Evidence is read for at most this many nodes of a FIRING (the first ones it lists). */
export const EVIDENCE_MAX_NODES = 5;
/** How long reading the evidence may hold a FIRING back, all sources together. */
export const EVIDENCE_BUDGET_MS = 2_000;

type Outcome = { readonly found: readonly NodeEvidence[] } | { readonly failed: string };

/**
 * `n` with the evidence of its first firing nodes, when it is a FIRING or a STORM (both page, and
 * a planned exit must not: plannedExits) and the cluster has evidence sources; otherwise `n`
 * itself. Never rejects; settles within `budgetMs`.
 */
export async function withEvidence(
  n: Notification,
  readers: readonly EvidenceReader[],
  budgetMs: number = EVIDENCE_BUDGET_MS,
  signal?: AbortSignal,
): Promise<Notification> {
  if (readers.length === 0 || !pages(n) || n.firing.length === 0 || signal?.aborted) return n;
  const nodes = n.firing.slice(0, EVIDENCE_MAX_NODES);
  const budget = AbortSignal.timeout(budgetMs);
  const stop = signal ? AbortSignal.any([signal, budget]) : budget;
  const late = () =>
    budget.aborted
      ? `no answer within ${budgetMs / 1000}s`
      : "the invocation's deadline came first";
  const spent = new Promise<Outcome>((resolve) => {
    stop.addEventListener('abort', () => resolve({ failed: late() }), { once: true });
  });
  const outcomes = await Promise.all(
    readers.map((reader) =>
      Promise.race([
        reader.read(nodes, stop).then(
          (found): Outcome => ({ found }),
          (error: unknown): Outcome => ({ failed: failureLine(error) }),
        ),
        spent,
      ]),
    ),
  );
  const byNode = new Map<string, NodeEvidence>(nodes.map((x) => [x.name, { node: x.name }]));
  const unread: string[] = [];
  outcomes.forEach((outcome, i) => {
    const what = readers[i]?.what ?? 'evidence';
    if ('failed' in outcome) {
      unread.push(`${what} not read: ${outcome.failed}`);
    } else {
      for (const found of outcome.found) {
        const known = byNode.get(found.node);
        if (known) byNode.set(found.node, { ...known, ...found });
      }
    }
  });
  const evidence: Evidence = {
    nodes: [...byNode.values()].filter((x) => x.instance !== undefined || x.events !== undefined),
    unread,
  };
  return { ...n, evidence };
}

function pages(n: Notification): boolean {
  return n.kind === 'FIRING' || n.kind === 'STORM';
}

/** The nodes a FIRING's evidence says are leaving as planned, with the cause (evidencedExit). */
export function plannedExits(n: Notification | null): Map<string, SuppressionCause> {
  const exits = new Map<string, SuppressionCause>();
  for (const x of n?.evidence?.nodes ?? []) {
    const cause = evidencedExit(x);
    if (cause !== undefined) exits.set(x.node, cause);
  }
  return exits;
}

/** `n` decided again without the planned exits, with the evidence read for its firing nodes. */
export function withEvidenceOf(
  n: Notification | null,
  read: Notification | null,
): Notification | null {
  if (n === null || !pages(n) || read?.evidence === undefined) return n;
  const firing = new Set(n.firing.map((x) => x.name));
  const nodes = read.evidence.nodes.filter((x) => firing.has(x.node));
  return { ...n, evidence: { ...read.evidence, nodes } };
}

/** An adapter's one line; anything else is a bug of the adapter, named but not quoted. */
function failureLine(error: unknown): string {
  if (error instanceof EvidenceReadError) return error.message;
  const name = error instanceof Error ? error.name : typeof error;
  return `unexpected error (${name})`;
}
