/**
 * docs/RELIABILITY.md, rendered from what the tests measure: the fault matrix
 * (testkit/reliability-matrix.ts, through the real handler and parts) and the simulated week
 * (testkit/reliability-soak.ts). `npm run docs:reliability` runs both and rewrites the file;
 * test/reliability.test.ts runs both, asserts the guarantees, and checks the file is current. No
 * timings: every number comes from the fake clock and seeded randomness.
 */
import { writeFile } from 'node:fs/promises';
import { runMatrix, type ScenarioResult } from '../testkit/reliability-matrix.js';
import { runSoak, type SoakResult } from '../testkit/reliability-soak.js';

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function runsText(runs: Readonly<Record<string, number>>): string {
  const order = ['checked', 'unreadable', 'busy', 'failed', 'not-run'];
  const known = order.filter((status) => runs[status]);
  const rest = Object.keys(runs)
    .filter((status) => !order.includes(status))
    .sort();
  return [...known, ...rest].map((status) => `${runs[status]} ${status}`).join(', ');
}

/**
 * A row that waits on real time (a request's timeout, an invocation's deadline) shows how many
 * invocations ran, not how each ended: on a loaded machine a read that waited may end on the
 * other side of its timeout (3 checked and 3 unreadable where an idle machine has 2 and 4). The
 * guarantees (lost, duplicated, false alarms, silent) are the same either way, and are asserted.
 */
function invocationsText(r: ScenarioResult): string {
  if (!r.waitsOnRealTime) return runsText(r.runs);
  const total = Object.values(r.runs).reduce((sum, n) => sum + n, 0);
  return String(total);
}

/** At most this many sent keys in a row's cell; a longer chain ends in "… N more". */
const SHOWN_KEYS = 4;

function sentText(sent: readonly string[]): string {
  if (sent.length === 0) return 'nothing';
  const shown = sent.length > SHOWN_KEYS + 1 ? sent.slice(0, SHOWN_KEYS) : sent;
  // A NOTICE's key quotes its subject, `[cluster] NOTICE: …`: the kind is said once.
  const chain = shown
    .map((key) => `\`${key.replace(/^NOTICE\(\[([^\]]+)\] NOTICE: /, 'NOTICE($1: ')}\``)
    .join(' → ');
  return shown.length < sent.length ? `${chain} → … ${sent.length - shown.length} more` : chain;
}

function matrixRow(r: ScenarioResult): string {
  const did = [invocationsText(r), ...r.notes].join('; ');
  const sent = sentText(r.sent);
  const duplicated =
    r.lostResponses > 0
      ? `${r.counts.duplicated} (≤ ${r.lostResponses} lost response${r.lostResponses > 1 ? 's' : ''})`
      : String(r.counts.duplicated);
  const resent =
    r.resentAfterReset.length > 0
      ? ` (${r.counts.resent} re-sent after reset: ${r.resentAfterReset.map((key) => `\`${key}\``).join(', ')})`
      : '';
  const tally = [
    r.counts.lost,
    `${duplicated}${resent}`,
    r.counts.falseAlarms,
    r.counts.silent,
  ].join(', ');
  return `| ${[r.name, r.inject, did, sent, tally].map(cell).join(' | ')} |`;
}

function counted(record: Readonly<Record<string, number>>): string {
  return Object.entries(record)
    .map(([key, value]) => `${value} ${key}`)
    .join(', ');
}

/** docs/RELIABILITY.md: what is counted, the fault matrix, then the simulated week. */
export function reliabilityMarkdown(matrix: readonly ScenarioResult[], soak: SoakResult): string {
  return [...countsSection(), ...matrixSection(matrix), ...weekSection(soak)].join('\n');
}

/** The title, and what each column of the tallies counts. */
function countsSection(): string[] {
  return [
    '# Reliability: the fault matrix and a simulated week',
    '',
    '<!-- Rendered by `npm run docs:reliability` from testkit/reliability-matrix.ts and',
    'testkit/reliability-soak.ts; test/reliability.test.ts fails when the guarantees or this',
    'file no longer hold. Do not edit by hand. -->',
    '',
    'Each row below is a test: the fault is injected, the watchdog runs, and one tally compares what',
    "SNS accepted with the scenario's ground truth (the notifications that must arrive, once each).",
    '',
    '- **lost**: a notification of the ground truth that never arrived.',
    '- **duplicated**: arrivals beyond the one expected. The bound: at most one duplicate per lost',
    '  response (a call that was applied but whose answer never came back; see docs/STATE.md).',
    '- **re-sent after reset**: shown apart in the duplicated count: a node still down, paged again',
    "  after its state could not be read and was reset (a reset's stated cost, docs/STATE.md). The",
    '  row asserts it arrives, once: not a duplicate.',
    '- **false FIRING/STORM**: a page the ground truth does not have.',
    '- **silent**: the cluster could not be read long enough to page, and no WATCHDOG was paged.',
    '',
    'Any other notification the ground truth does not have fails the test too.',
    '',
  ];
}

/** One row per fault, through the real parts. */
function matrixSection(matrix: readonly ScenarioResult[]): string[] {
  return [
    '## The fault matrix',
    '',
    'Through the real parts: the middy handler `createHandler` builds, the simulated cluster over',
    'HTTPS (with a hostile HTTPS front for answers the simulator never gives), DynamoDB (dynalite,',
    'with a proxy that loses answers), the local SNS server and its failure modes. Six nodes, a–f,',
    'one check a minute on a fake clock; the first check (healthy) is counted in the invocations.',
    'Sent keys: the kind and the nodes it names (a STORM its scope first), or the failure class of a',
    "WATCHDOG. The paging tools' rows count what the tool took instead: `trigger(a)`, `resolve(a)`",
    "by the node of the incident key, `group N` for an incident that is not one node's.",
    '',
    '| fault | injected | invocations; what the watchdog did | sent (accepted by SNS) | lost, duplicated, false FIRING/STORM, silent |',
    '|---|---|---|---|---|',
    ...matrix.map(matrixRow),
    '',
  ];
}

/** A week of checks at the check-cycle level: its tallies and the state's size by day. */
function weekSection(soak: SoakResult): string[] {
  const bytes = soak.stateBytesPerDay;
  return [
    '## A simulated week',
    '',
    `${soak.checks.toLocaleString('en-US')} checks, one a minute for ${soak.days} days, of a cluster of ${soak.nodes} nodes in three zones,`,
    'through `runCheckCycle` (the use case the Lambda and `watch` both run) on in-process parts, so',
    "that a week takes seconds: the simulator's cluster model read through the reader port without",
    "HTTP, the memory state store (the DynamoDB store's gzipped JSON document, reloaded on every",
    'check), and a notifier that records what it is handed. Restarts are new readers and notifiers;',
    'overlapping runs are two cycles started at once.',
    '',
    '| | |',
    '|---|---|',
    `| injected | ${counted(soak.injected)} |`,
    `| check cycles | ${runsText(soak.runs)} |`,
    `| checks inside a 45-s stall | ${soak.stallChecks} (read failed, not paged) |`,
    `| FIRING/STORM from stalls | ${soak.stallAlarms} |`,
    `| sent | ${counted(soak.sent)} |`,
    `| lost | ${soak.counts.lost} |`,
    `| duplicated | ${soak.counts.duplicated} |`,
    `| false FIRING/STORM | ${soak.counts.falseAlarms} |`,
    `| other unexpected | ${soak.counts.unexpected} |`,
    `| silent (the 5-min API outage not paged) | ${soak.counts.silent} |`,
    `| reminders | ${soak.reminders.count}; gaps between notices of one outage ${soak.reminders.minGapSeconds} s to ${soak.reminders.maxGapSeconds} s (interval ${soak.reminders.intervalSeconds} s) |`,
    `| state when quiet | ${soak.quietStateBytes.first} bytes after the first check, ${soak.quietStateBytes.last} bytes at the end of the week |`,
    '',
    'The largest state document of each day (JSON; gzip, as the DynamoDB item holds it):',
    '',
    `| day | ${bytes.map((_, i) => String(i + 1)).join(' | ')} |`,
    `|---|${bytes.map(() => '---|').join('')}`,
    `| JSON bytes | ${bytes.map((b) => String(b.json)).join(' | ')} |`,
    `| gzip bytes | ${bytes.map((b) => String(b.gzip)).join(' | ')} |`,
    '',
    'A lost or false count, or a state or reminder gap out of its bound, fails',
    '`test/reliability.test.ts`.',
    '',
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const matrix = await runMatrix();
  const soak = await runSoak();
  await writeFile(new URL('./RELIABILITY.md', import.meta.url), reliabilityMarkdown(matrix, soak));
  process.stdout.write('wrote docs/RELIABILITY.md\n');
}
