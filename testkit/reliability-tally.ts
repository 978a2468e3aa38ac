/**
 * The one tally of the reliability figures (docs/RELIABILITY.md): what SNS accepted, against what
 * the scenario's ground truth says should have been sent. A notification is known by its key:
 * its kind and the nodes it names (`FIRING(a,b)`, `RESOLVED(a)`; a STORM with its scope first,
 * `STORM(node group gpu: a,b,c)`), or for the watchdog's own page
 * the failure class (`WATCHDOG(timeout)`, `WATCHDOG RESOLVED`), for a NOTICE what it is about.
 *
 * - lost: a notification of the ground truth that never arrived;
 * - duplicated: arrivals of a ground-truth notification beyond the one expected;
 * - false FIRING/STORM: a FIRING or STORM the ground truth does not have;
 * - unexpected: any other notification the ground truth does not have (a RESOLVED for a node
 *   that is still down, a REMINDER too early...);
 * - silent: the cluster could not be read long enough to page, and no WATCHDOG paged;
 * - resent: arrivals a state reset sends again (the scenario's `resent` keys): the stated cost of a
 *   reset (docs/STATE.md: open incidents are forgotten, nodes still down are paged again), counted
 *   apart from duplicates, which are bounded by lost responses.
 */

export interface Counts {
  readonly lost: number;
  readonly duplicated: number;
  readonly falseAlarms: number;
  readonly unexpected: number;
  readonly silent: number;
  readonly resent: number;
}

export const NO_COUNTS: Counts = Object.freeze({
  lost: 0,
  duplicated: 0,
  falseAlarms: 0,
  unexpected: 0,
  silent: 0,
  resent: 0,
});

/** What one accepted message says, as a key (see above). `nodes`: letter → node name. */
export function keyOfMessage(
  kind: string | undefined,
  subject: string | undefined,
  body: string,
  nodes: ReadonlyMap<string, string>,
): string {
  if (kind === 'WATCHDOG') {
    const failing = /WATCHDOG: cannot read cluster \(([^)]+)\)/.exec(subject ?? '');
    return failing ? `WATCHDOG(${failing[1]})` : 'WATCHDOG RESOLVED';
  }
  if (kind === 'NOTICE') {
    // The notice's own headline names what it is about: `NOTICE(degraded checks)`, `NOTICE(state reset)`.
    if (/state was unreadable/.test(subject ?? '')) return 'NOTICE(state reset)';
    if (/silence was unreadable/.test(subject ?? '')) return 'NOTICE(silence set aside)';
    if (/degraded checks/.test(subject ?? '')) return 'NOTICE(degraded checks)';
    if (/complete again/.test(subject ?? '')) return 'NOTICE(complete again)';
    return `NOTICE(${subject ?? '?'})`;
  }
  // By its full name, or by its first label alone: a message listing several nodes states the
  // common suffix once (`every name below ends in .eu-west-1.compute.internal`).
  // A FIRING given up earlier is named apart ("Never sent:" and the line after): not a page of its own.
  const listed = body.replace(/^Never sent:.*\n.*\n/m, '');
  const named = [...nodes]
    .filter(([, name]) => listed.includes(name) || namesHost(listed, name))
    .map(([letter]) => letter);
  // A STORM names its scope as its subject does: `STORM(node group gpu: a,b,c)`, `STORM(zone ...)`.
  const scope = /^\[[^\]]*\] STORM: .* silent (?:in (.+?)|(cluster-wide))(?:;|$)/.exec(
    subject ?? '',
  );
  if (kind === 'STORM' && scope) return `STORM(${scope[1] ?? scope[2]}: ${named.sort().join(',')})`;
  return `${kind ?? '?'}(${named.sort().join(',')})`;
}

function namesHost(body: string, name: string): boolean {
  const host = name.split('.')[0] ?? name;
  const escaped = host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w.-])${escaped}(?![\\w-])`).test(body);
}

function multiset(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/** Counts what was sent (`sent`, keys in order) against the ground truth (`truth`). */
export function tally(
  truth: readonly string[],
  sent: readonly string[],
  options: { unreadable?: boolean; resent?: readonly string[] } = {},
): Counts {
  const expected = multiset(truth);
  const got = multiset(sent);
  const again = multiset(options.resent ?? []);
  let lost = 0;
  let duplicated = 0;
  let resent = 0;
  let falseAlarms = 0;
  let unexpected = 0;
  for (const [key, count] of expected) {
    const arrived = got.get(key) ?? 0;
    const beyond = Math.max(0, arrived - count);
    const reset = Math.min(beyond, again.get(key) ?? 0);
    lost += Math.max(0, count - arrived);
    resent += reset;
    duplicated += beyond - reset;
  }
  for (const [key, count] of got) {
    if (expected.has(key)) continue;
    if (key.startsWith('FIRING') || key.startsWith('STORM')) falseAlarms += count;
    else unexpected += count;
  }
  const paged = sent.some((key) => key.startsWith('WATCHDOG('));
  const silent = options.unreadable === true && !paged ? 1 : 0;
  return { lost, duplicated, falseAlarms, unexpected, silent, resent };
}
