/**
 * The one tally of the reliability figures (docs/RELIABILITY.md): what SNS accepted, against what
 * the scenario's ground truth says should have been sent. A notification is known by its key:
 * its kind and the nodes it names (`FIRING(a,b)`, `RESOLVED(a)`), or for the watchdog's own page
 * the failure class (`WATCHDOG(timeout)`, `WATCHDOG RESOLVED`), for a NOTICE what it is about.
 *
 * - lost: a notification of the ground truth that never arrived;
 * - duplicated: arrivals of a ground-truth notification beyond the one expected;
 * - false FIRING/STORM: a FIRING or STORM the ground truth does not have;
 * - unexpected: any other notification the ground truth does not have (a RESOLVED for a node
 *   that is still down, a REMINDER too early...);
 * - silent: the cluster could not be read long enough to page, and no WATCHDOG paged.
 */

export interface Counts {
  readonly lost: number;
  readonly duplicated: number;
  readonly falseAlarms: number;
  readonly unexpected: number;
  readonly silent: number;
}

export const NO_COUNTS: Counts = Object.freeze({
  lost: 0,
  duplicated: 0,
  falseAlarms: 0,
  unexpected: 0,
  silent: 0,
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
    if (/degraded checks/.test(subject ?? '')) return 'NOTICE(degraded checks)';
    if (/complete again/.test(subject ?? '')) return 'NOTICE(complete again)';
    return `NOTICE(${subject ?? '?'})`;
  }
  const named = [...nodes].filter(([, name]) => body.includes(name)).map(([letter]) => letter);
  return `${kind ?? '?'}(${named.sort().join(',')})`;
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
  options: { unreadable?: boolean } = {},
): Counts {
  const expected = multiset(truth);
  const got = multiset(sent);
  let lost = 0;
  let duplicated = 0;
  let falseAlarms = 0;
  let unexpected = 0;
  for (const [key, count] of expected) {
    const arrived = got.get(key) ?? 0;
    lost += Math.max(0, count - arrived);
    duplicated += Math.max(0, arrived - count);
  }
  for (const [key, count] of got) {
    if (expected.has(key)) continue;
    if (key.startsWith('FIRING') || key.startsWith('STORM')) falseAlarms += count;
    else unexpected += count;
  }
  const paged = sent.some((key) => key.startsWith('WATCHDOG('));
  const silent = options.unreadable === true && !paged ? 1 : 0;
  return { lost, duplicated, falseAlarms, unexpected, silent };
}
