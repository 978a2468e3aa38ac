/**
 * `lease-watchdog silence query`: the silences that hold (or will: planned ones), each with the nodes it matches
 * now, as amtool's `silence query` shows what is silenced. The JSON (`-o json`) is a stable shape:
 *
 *   { cluster, store, nodesRead, silences: [{ id, target, comment, author, createdAt, startsAt,
 *     endsAt, active, matches: { count, nodes } | null }] }
 *
 * Silences that have not ended: holding (`active` true) or planned (`--starts-at`, not yet).
 *
 * `nodes` lists at most MAX_MATCHES_LISTED names (`count` counts them all); `matches` is null when
 * the cluster could not be read (`nodesRead` false; a warning line on stderr says why). Fields
 * are only ever added. Every text from the store or the cluster is sanitised for the terminal.
 */
import { formatAge } from '../lambda/core/duration.js';
import type { NodeInfo } from '../lambda/core/model.js';
import {
  describeTarget,
  hasEnded,
  isActive,
  matchingNodes,
  type Silence,
  utcMinute,
} from '../lambda/core/silences.js';
import { ClusterReadError } from '../lambda/ports/index.js';
import { columns } from './columns.js';
import { readNodesForSilence, type SilenceParts } from './compose.js';
import { EXIT_OK, type Io } from './io.js';
import { printableJson, sanitize } from './sanitize.js';
import type { SilenceCommand } from './silence-args.js';

/** A silence in `-o json` (list and query): times as RFC 3339, whether it is in force now. */
export function silenceJson(s: Silence, now: number) {
  return {
    id: s.id,
    target: s.target,
    comment: s.comment,
    author: s.author,
    createdAt: new Date(s.createdAt).toISOString(),
    startsAt: new Date(s.startsAt ?? s.createdAt).toISOString(),
    endsAt: new Date(s.endsAt).toISOString(),
    active: isActive(s, now),
    ...(s.expiredBy === undefined ? {} : { expiredBy: s.expiredBy }),
  };
}

/** When a silence starts: `2026-12-01 18:00 UTC (in 7h54m)` for a planned one not started yet. */
export function starts(silence: Silence, now: number): string {
  const from = silence.startsAt ?? silence.createdAt;
  if (silence.endsAt <= from) return 'never (ended before its start)';
  const age = formatAge(Math.abs(now - from) / 1000);
  return `${utcMinute(from)} (${from > now ? `in ${age}` : `${age} ago`})`;
}

export function ends(silence: Silence, now: number): string {
  const at = utcMinute(silence.endsAt);
  if (hasEnded(silence, now)) {
    return `ended ${at} (${formatAge((now - silence.endsAt) / 1000)} ago)`;
  }
  return `${at} (in ${formatAge((silence.endsAt - now) / 1000)})`;
}

/** The most node names one silence lists in `-o json` (a zone may hold thousands). */
export const MAX_MATCHES_LISTED = 100;
/** The names the table shows per silence. */
const TABLE_NAMES = 3;

type Matches = { readonly count: number; readonly nodes: readonly string[] } | null;

function matchesOf(silence: Silence, nodes: readonly NodeInfo[] | null): Matches {
  if (nodes === null) return null;
  const names = matchingNodes(silence.target, nodes);
  return { count: names.length, nodes: names.slice(0, MAX_MATCHES_LISTED) };
}

function matchesCell(matches: Matches): string {
  if (matches === null) return 'unknown';
  if (matches.count === 0) return '0';
  const shown = matches.nodes.slice(0, TABLE_NAMES).join(', ');
  return `${matches.count}: ${shown}${matches.count > TABLE_NAMES ? ', ...' : ''}`;
}

/** A table of silences (`list`, `query`): the fifth column is AUTHOR or MATCHES, its cell given. */
export function silenceTable(
  fifth: string,
  rows: readonly { silence: Silence; cell: string }[],
  now: number,
): string {
  const header = ['ID', 'TARGET', 'STARTS', 'ENDS', fifth, 'COMMENT'];
  const cells = rows.map(({ silence: s, cell }) => [
    s.id,
    sanitize(describeTarget(s.target)),
    starts(s, now),
    ends(s, now),
    sanitize(cell),
    sanitize(s.comment),
  ]);
  return columns(header, cells);
}

/** The cluster's nodes now, or null (said on stderr) when they cannot be read. */
async function nodesNow(command: SilenceCommand, io: Io): Promise<readonly NodeInfo[] | null> {
  try {
    return await readNodesForSilence(command, io);
  } catch (error) {
    if (!(error instanceof ClusterReadError)) throw error;
    io.stderr(
      `lease-watchdog: warning: cannot read the cluster, so what each silence matches is not known: ${sanitize(error.message)}`,
    );
    return null;
  }
}

/** Runs `silence query`. */
export async function querySilences(
  command: Extract<SilenceCommand, { verb: 'query' }>,
  { cluster, shown, where, store }: SilenceParts,
  io: Io,
): Promise<number> {
  const now = io.now();
  const silences = (await store.list(cluster, io.signal)).filter((s) => !hasEnded(s, now));
  if (silences.length === 0 && command.output === 'table') {
    io.stderr(`no active silences for cluster ${sanitize(shown)}`);
    return EXIT_OK;
  }
  const nodes = await nodesNow(command, io);
  const rows = silences.map((silence) => ({ silence, matches: matchesOf(silence, nodes) }));
  if (command.output === 'table') {
    const cells = rows.map(({ silence, matches }) => ({ silence, cell: matchesCell(matches) }));
    io.stdout(silenceTable('MATCHES', cells, now));
    return EXIT_OK;
  }
  const answer = {
    cluster,
    store: where,
    nodesRead: nodes !== null,
    silences: rows.map(({ silence, matches }) => ({ ...silenceJson(silence, now), matches })),
  };
  io.stdout(printableJson(JSON.stringify(answer, null, 2)));
  return EXIT_OK;
}
