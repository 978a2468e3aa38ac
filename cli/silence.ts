/**
 * `lease-watchdog silence add|list|query|update|expire`: silences kept beside the state (the state file's
 * `<file>.silences`, or the deployed watchdog's DynamoDB table), honoured by `watch` and the Lambda
 * at their next check. Every text from the store is sanitised before it reaches the terminal.
 */
import { randomBytes } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { endedAt } from '../lambda/adapters/state/silence-document.js';
import { formatAge } from '../lambda/core/duration.js';
import type { NodeInfo } from '../lambda/core/model.js';
import { matchesSelector, parseSelector } from '../lambda/core/selector.js';
import {
  describeTarget,
  hasEnded,
  matchingNodes,
  type Silence,
  silenceId,
  utcMinute,
} from '../lambda/core/silences.js';
import { ClusterReadError, SilenceError } from '../lambda/ports/index.js';
import { composeSilences, readNodesForSilence, type SilenceParts } from './compose.js';
import { EXIT_ERROR, EXIT_OK, type Io } from './io.js';
import { printableJson, sanitize } from './sanitize.js';
import { parseSilence, SILENCE_USAGE, type SilenceCommand } from './silence-args.js';
import { ends, querySilences, silenceJson, silenceTable, starts } from './silence-query.js';
import { addWindow, newEnd } from './silence-window.js';

/** Who is adding or ending a silence: the OS user and host (no AWS call is made for it). */
function author(io: Io): string {
  let user: string | undefined;
  try {
    user = userInfo().username;
  } catch {
    user = io.env.USER ?? io.env.USERNAME;
  }
  return `${user || 'unknown'}@${hostname()}`;
}

/** Who added a silence, and who ended it early. */
const byWhom = (s: Silence) =>
  s.expiredBy === undefined ? s.author : `${s.author} (ended by ${s.expiredBy})`;

/** How many names `add` shows of what a silence matches; the rest are counted. */
const SHOWN_MATCHES = 10;

/**
 * What a new silence matches now, as one line; a silence that matches nothing (a mistyped name or
 * zone) or that cannot be checked is refused, unless --allow-empty; one that matches every node,
 * or whose selector matches a node without labels (as amtool refuses matchers that all match the
 * empty string), unless --all: the watchdog would page nothing for the cluster.
 */
async function matchesNow(
  command: Extract<SilenceCommand, { verb: 'add' }>,
  shown: string,
  io: Io,
): Promise<string> {
  const refuse = (why: string) => new SilenceError(`silence add: ${why}`);
  const { target } = command;
  const what = 'nodes' in target ? `--node ${target.nodes.join(', ')}` : describeTarget(target);
  const all = `, or pass --all to silence the whole cluster`;
  if (!command.all && 'selector' in target && matchesSelector(parseSelector(target.selector), {})) {
    throw refuse(
      `${what} matches every node, even one without these labels: name a value (zone=eu-west-1a)${all}`,
    );
  }
  let nodes: readonly NodeInfo[];
  try {
    nodes = await readNodesForSilence(command, io);
  } catch (error) {
    if (!(error instanceof ClusterReadError)) throw error;
    if (command.allowEmpty) return 'matches: not known (the cluster cannot be read)';
    throw refuse(
      `cannot read the cluster to see what the silence matches (${error.message}): fix the kubeconfig or --context, or pass --allow-empty to add it unseen`,
    );
  }
  const names = matchingNodes(target, nodes);
  if (!command.all && names.length > 0 && names.length === nodes.length) {
    const every = `matches all ${names.length} ${names.length === 1 ? 'node' : 'nodes'} of cluster ${shown}`;
    throw refuse(`${what} ${every}: name fewer (a zone, a node group)${all}`);
  }
  if (names.length === 0) {
    if (command.allowEmpty) return 'matches no node now (--allow-empty)';
    throw refuse(
      `${what} matches no node of cluster ${shown} now: check it (kubectl get nodes --show-labels), or pass --allow-empty for nodes not created yet`,
    );
  }
  const more = names.length - SHOWN_MATCHES;
  const list = names.slice(0, SHOWN_MATCHES).join(', ');
  return `matches ${names.length} ${names.length === 1 ? 'node' : 'nodes'} now: ${list}${more > 0 ? `, and ${more} more` : ''}`;
}

async function add(
  command: Extract<SilenceCommand, { verb: 'add' }>,
  { cluster, shown, where, store }: SilenceParts,
  io: Io,
): Promise<number> {
  const now = io.now();
  const window = addWindow(command, now);
  const matches = await matchesNow(command, shown, io);
  const silence: Silence = {
    id: silenceId(randomBytes(3).toString('hex')),
    target: command.target,
    comment: command.comment,
    author: author(io),
    createdAt: now,
    ...window,
  };
  await store.add(cluster, silence, io.signal);
  const from = window.startsAt ?? now;
  const planned = window.startsAt === undefined ? '' : ` from ${starts(silence, now)}`;
  io.stdout(
    sanitize(
      `silence ${silence.id} added for ${describeTarget(silence.target)} of cluster ${shown} in ${where}${planned} until ${utcMinute(silence.endsAt)} (${formatAge((silence.endsAt - from) / 1000)}): ${silence.comment}`,
    ),
  );
  io.stdout(sanitize(matches));
  return EXIT_OK;
}

/** `silence update ID`: a new end (--for from now, or --ends-at) or comment for an active silence. */
async function update(
  command: Extract<SilenceCommand, { verb: 'update' }>,
  { cluster, shown, store }: SilenceParts,
  io: Io,
): Promise<number> {
  const now = io.now();
  const changed = await store.update(
    cluster,
    command.id,
    (s) => {
      if (hasEnded(s, now))
        throw new SilenceError(`silence ${s.id} has already ended: add a new one`);
      const endsAt = newEnd(command, s.startsAt, now) ?? s.endsAt;
      return { ...s, endsAt, comment: command.comment ?? s.comment };
    },
    io.signal,
  );
  io.stdout(
    sanitize(
      `silence ${changed.id} of cluster ${shown} now ends ${ends(changed, now)}: ${changed.comment}`,
    ),
  );
  return EXIT_OK;
}

/** Runs `silence …` (the words after it); a SilenceError or UsageError is the caller's to print. */
export async function silence(argv: readonly string[], io: Io): Promise<number> {
  const command = parseSilence(argv);
  if (command === 'help') {
    io.stdout(SILENCE_USAGE);
    return EXIT_OK;
  }
  const parts = await composeSilences(command, io);
  try {
    await parts.requireCluster(io.signal);
    return await run(command, parts, io);
  } catch (error) {
    throw storeError(error, command);
  }
}

/**
 * What the store's own failures (a table that does not exist, credentials refused, no region)
 * become: one line naming the store, as a SilenceError; the silences' own errors pass as they are.
 */
function storeError(error: unknown, command: SilenceCommand): unknown {
  if (!(error instanceof Error) || error instanceof SilenceError) return error;
  if (command.store.kind !== 'table' || !('$metadata' in error || /Region/i.test(error.message))) {
    return error;
  }
  const first = error.message.split('\n')[0] ?? '';
  return new SilenceError(
    `cannot use the silences in DynamoDB table ${command.store.table}: ${error.name}: ${first} (check --table, --region or AWS_REGION, and your AWS credentials)`,
    { cause: error },
  );
}

async function run(command: SilenceCommand, parts: SilenceParts, io: Io): Promise<number> {
  const { cluster, shown, store } = parts;
  switch (command.verb) {
    case 'add':
      return add(command, parts, io);
    case 'list': {
      const silences = await store.list(cluster, io.signal);
      const now = io.now();
      if (command.output === 'json') {
        const json = { cluster, silences: silences.map((s) => silenceJson(s, now)) };
        io.stdout(printableJson(JSON.stringify(json, null, 2)));
      } else if (silences.length === 0) {
        io.stderr(`no silences for cluster ${sanitize(shown)}`);
      } else {
        const rows = silences.map((s) => ({ silence: s, cell: byWhom(s) }));
        io.stdout(silenceTable('AUTHOR', rows, now));
      }
      return EXIT_OK;
    }
    case 'query':
      return querySilences(command, parts, io);
    case 'update':
      return update(command, parts, io);
    case 'expire': {
      // Each in turn: one that cannot be ended (unknown, ended already) is said; the others end.
      let status = EXIT_OK;
      for (const id of command.ids) {
        try {
          const ended = await store.update(cluster, id, endedAt(io.now(), author(io)), io.signal);
          io.stdout(
            sanitize(`silence ${ended.id} of cluster ${shown} ended at ${utcMinute(ended.endsAt)}`),
          );
        } catch (error) {
          if (!(error instanceof SilenceError)) throw error;
          io.stderr(`lease-watchdog: ${sanitize(error.message)}`);
          status = EXIT_ERROR;
        }
      }
      return status;
    }
  }
}
