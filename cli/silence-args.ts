/**
 * `lease-watchdog silence add|list|query|update|expire`: its command line, parsed once into a frozen object.
 * Every mistake is a UsageError with one line naming the option and the fix.
 */
import { parseDuration } from '../lambda/core/duration.js';
import { parseSelector, SelectorSyntaxError } from '../lambda/core/selector.js';
import {
  commentProblem,
  isSilenceId,
  MAX_SILENCE_SECONDS,
  SILENCE_SELECTOR_KEYS,
  type SilenceTarget,
} from '../lambda/core/silences.js';
import { readArgs, UsageError } from './args.js';
import { isNodeName, sanitize } from './sanitize.js';

/** Where the silences are: the state file `watch` uses, or the deployed watchdog's table. */
export type SilenceStoreOption =
  | { readonly kind: 'file'; readonly stateFile: string }
  | { readonly kind: 'table'; readonly table: string; readonly region?: string | undefined };

export interface SilenceCommonOptions {
  readonly store: SilenceStoreOption;
  /** The cluster's name: --cluster, else (state file only) the kubeconfig context's. */
  readonly cluster?: string | undefined;
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
}

export type SilenceCommand =
  | ({
      readonly verb: 'add';
      readonly target: SilenceTarget;
      /** How long (--for), or until when (--ends-at, epoch ms): one of them. */
      readonly forSeconds?: number | undefined;
      readonly endsAt?: number | undefined;
      /** A planned window's start (--starts-at, epoch ms); absent: now. */
      readonly startsAt?: number | undefined;
      readonly comment: string;
      /** Add it even when it matches no node now (a node not created yet), or unseen. */
      readonly allowEmpty: boolean;
      /** Add it even when it matches every node (the watchdog would page nothing). */
      readonly all: boolean;
    } & SilenceCommonOptions)
  | ({ readonly verb: 'list'; readonly output: 'table' | 'json' } & SilenceCommonOptions)
  | ({ readonly verb: 'query'; readonly output: 'table' | 'json' } & SilenceCommonOptions)
  | ({ readonly verb: 'expire'; readonly ids: readonly string[] } & SilenceCommonOptions)
  | ({
      readonly verb: 'update';
      readonly id: string;
      /** The new end: this long from now (--for), or at this time (--ends-at, epoch ms). */
      readonly forSeconds?: number | undefined;
      readonly endsAt?: number | undefined;
      readonly comment?: string | undefined;
    } & SilenceCommonOptions);

export const SILENCE_USAGE = [
  'Usage:',
  '  lease-watchdog silence add (--node NAME [--node NAME ...] | --selector SELECTOR) (--for DURATION | --ends-at TIME) [--starts-at TIME] --comment TEXT [--allow-empty] [--all] [store]',
  '  lease-watchdog silence list [-o table|json] [store]       every silence kept, ended ones too',
  '  lease-watchdog silence query [-o table|json] [store]      the active ones, with the nodes each matches now',
  '  lease-watchdog silence update ID [--for DURATION | --ends-at TIME] [--comment TEXT] [store]',
  '  lease-watchdog silence expire ID [ID ...] [store]',
  'Store (one of):',
  '  --state-file PATH            the state file of `watch` (cluster: --cluster, else the kubeconfig context)',
  "  --table NAME --cluster NAME  the deployed watchdog's DynamoDB table and the cluster's name in its config",
  'Options:',
  '  --node NAME                  a node to silence (repeat for more)',
  `  -l, --selector SELECTOR      the nodes whose labels match (keys: ${SILENCE_SELECTOR_KEYS.join(', ')})`,
  '  --for DURATION               how long: 90s, 10m, 2h, 1d, 2d12h (at most 30d)',
  '  --comment TEXT               why (shown in every verdict and email it suppresses)',
  '  --allow-empty                add it even if it matches no node now (one not created yet)',
  '  --all                        add it even if it matches every node (the watchdog then pages nothing)',
  '  --starts-at TIME             a planned window: when it starts, RFC 3339 (2026-12-01T18:00:00Z; default now)',
  '  --ends-at TIME               when it ends, RFC 3339 (instead of --for; update: --for counts from now)',
  "  --kubeconfig PATH, --context NAME   the cluster's context: add reads its nodes to show what a silence matches (and, with --state-file, its server is the cluster's key)",
  "  --region REGION              the table's region (default: $AWS_REGION)",
  "  -o, --output table|json      the list's format",
].join('\n');

const usage = (line: string) =>
  new UsageError(`silence ${line} (see lease-watchdog silence --help)`);

function targetOf(nodes: readonly string[], selector: string | undefined): SilenceTarget {
  if (nodes.length === 0 && selector === undefined) {
    throw usage('add needs what to silence: --node NAME (repeat for more) or --selector SELECTOR');
  }
  if (nodes.length > 0 && selector !== undefined) {
    throw usage('add takes --node or --selector, not both');
  }
  if (selector !== undefined) {
    let keys: string[];
    try {
      keys = parseSelector(selector).requirements.map((r) => r.key);
    } catch (error) {
      if (!(error instanceof SelectorSyntaxError)) throw error;
      throw usage(
        `--selector must be a label selector like "topology.kubernetes.io/zone=eu-west-1a": ${error.message}`,
      );
    }
    if (keys.length === 0) throw usage('--selector must name at least one label (it is empty)');
    const unknown = keys.find((key) => !SILENCE_SELECTOR_KEYS.includes(key));
    if (unknown !== undefined) {
      throw usage(
        `--selector may name only the labels every check keeps (${SILENCE_SELECTOR_KEYS.join(', ')}), not "${sanitize(unknown)}": use --node for other nodes`,
      );
    }
    return { selector };
  }
  const bad = nodes.find((n) => !isNodeName(n));
  if (bad !== undefined) throw usage(`--node must be a node name (got "${sanitize(bad)}")`);
  return { nodes: [...new Set(nodes)] };
}

/** A duration as amtool takes one: days first (`1d`, `2d12h`), then what parseDuration reads. */
function silenceSeconds(text: string): number | undefined {
  const [, days, rest = ''] = /^(?:(\d+)d)?(.*)$/.exec(text.trim()) ?? [];
  if (days === undefined) return parseDuration(rest);
  if (rest === '') return Number(days) * 86_400;
  // After days, units only: `2d12h`, not `2d12`.
  const more = /^[\d.]+$/.test(rest) ? undefined : parseDuration(rest);
  return more === undefined ? undefined : Number(days) * 86_400 + more;
}

function forSecondsOf(text: string | undefined): number {
  if (text === undefined) {
    throw usage('add needs --for DURATION (how long, e.g. 2h) or --ends-at TIME');
  }
  const seconds = silenceSeconds(text);
  if (seconds === undefined || seconds < 1 || seconds > MAX_SILENCE_SECONDS) {
    throw usage(
      `--for must be a duration from 1s to 30d, like 90s, 10m, 2h or 1d (got "${sanitize(text)}")`,
    );
  }
  return seconds;
}

function commentOf(text: string | undefined): string {
  if (text === undefined) throw usage('add needs --comment TEXT: why the nodes are silenced');
  const problem = commentProblem(text);
  if (problem !== undefined) throw usage(`--comment ${problem}`);
  return text.trim();
}

function storeOf(values: Values): SilenceStoreOption {
  const { 'state-file': stateFile, table } = values;
  if (stateFile !== undefined && table !== undefined) {
    throw usage('takes --state-file or --table, not both');
  }
  if (table !== undefined) {
    if (values.cluster === undefined) {
      throw usage("--table needs --cluster NAME: the cluster's name in the deployment config");
    }
    return { kind: 'table', table, region: values.region };
  }
  if (stateFile !== undefined) return { kind: 'file', stateFile };
  throw usage(
    'needs where the silences are: --state-file PATH (as given to watch) or --table NAME --cluster NAME (the deployed watchdog)',
  );
}

/** The words after `silence`. */
function words(argv: readonly string[]) {
  return readArgs(
    argv,
    {
      help: { type: 'boolean', short: 'h' },
      node: { type: 'string', multiple: true },
      selector: { type: 'string', short: 'l' },
      for: { type: 'string' },
      comment: { type: 'string' },
      'state-file': { type: 'string' },
      table: { type: 'string' },
      cluster: { type: 'string' },
      region: { type: 'string' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      output: { type: 'string', short: 'o' },
      'allow-empty': { type: 'boolean' },
      all: { type: 'boolean' },
      'ends-at': { type: 'string' },
      'starts-at': { type: 'string' },
    },
    'lease-watchdog silence --help',
  );
}

type Values = ReturnType<typeof words>['values'];

/** The flags that say where the silences are: every verb takes them; the others, one verb or another. */
const STORE_FLAGS = ['help', 'state-file', 'table', 'cluster', 'region', 'kubeconfig', 'context'];

/** Refuses a flag of another verb (`--for` with `list`, …): one the verb `takes` not. */
function onlyFlags(values: Values, verb: string, takes: (flag: string) => boolean): void {
  const extra = Object.keys(values).find((flag) => !STORE_FLAGS.includes(flag) && !takes(flag));
  if (extra !== undefined) throw usage(`${verb} does not take --${extra}`);
}

/** The IDs after the verb: one (update) or more (expire). */
function idsOf(verb: string, rest: readonly string[], several: boolean): string[] {
  const [id, ...more] = rest;
  if (id === undefined) throw usage(`${verb} needs the ID of the silence (see silence list)`);
  if (!several && more.length > 0) {
    throw usage(`${verb} takes one ID (got also "${sanitize(more[0] ?? '')}")`);
  }
  const bad = rest.find((x) => !isSilenceId(x));
  if (bad !== undefined) {
    throw usage(`${verb}: "${sanitize(bad)}" is not a silence id like s-3f9a2c`);
  }
  return [...new Set(rest)];
}

/** RFC 3339 with seconds and a zone (`2026-12-01T18:00:00Z`, `...+01:00`): epoch ms. */
const RFC_3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i;

function timeOf(flag: string, text: string): number {
  const ms = RFC_3339.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw usage(
      `${flag} must be an RFC 3339 time like 2026-12-01T18:00:00Z (got "${sanitize(text)}")`,
    );
  }
  return ms;
}

function updateOf(
  rest: readonly string[],
  values: Values,
  common: SilenceCommonOptions,
): SilenceCommand {
  onlyFlags(values, 'update', (flag) => ['for', 'comment', 'ends-at'].includes(flag));
  const [id] = idsOf('update', rest, false) as [string];
  const { for: forText, 'ends-at': endsText, comment } = values;
  if (forText === undefined && endsText === undefined && comment === undefined) {
    throw usage('update needs what to change: --for DURATION, --ends-at TIME or --comment TEXT');
  }
  if (forText !== undefined && endsText !== undefined) {
    throw usage('update takes --for or --ends-at, not both');
  }
  return Object.freeze({
    verb: 'update',
    id,
    forSeconds: forText === undefined ? undefined : forSecondsOf(forText),
    endsAt: endsText === undefined ? undefined : timeOf('--ends-at', endsText),
    comment: comment === undefined ? undefined : commentOf(comment),
    ...common,
  });
}

function listOf(
  verb: 'list' | 'query',
  values: Values,
  common: SilenceCommonOptions,
): SilenceCommand {
  onlyFlags(values, verb, (flag) => flag === 'output');
  const output = values.output ?? 'table';
  if (output !== 'table' && output !== 'json') {
    throw usage(`${verb} --output must be table or json (got "${sanitize(output)}")`);
  }
  return Object.freeze({ verb, output, ...common });
}

function addOf(values: Values, common: SilenceCommonOptions): SilenceCommand {
  // Every verb's flag but list's --output.
  onlyFlags(values, 'add', (flag) => flag !== 'output');
  const { for: forText, 'ends-at': endsText, 'starts-at': startsText } = values;
  if (forText !== undefined && endsText !== undefined) {
    throw usage('add takes --for or --ends-at, not both');
  }
  return Object.freeze({
    verb: 'add',
    target: targetOf(values.node ?? [], values.selector),
    forSeconds: endsText === undefined ? forSecondsOf(forText) : undefined,
    endsAt: endsText === undefined ? undefined : timeOf('--ends-at', endsText),
    startsAt: startsText === undefined ? undefined : timeOf('--starts-at', startsText),
    comment: commentOf(values.comment),
    allowEmpty: values['allow-empty'] === true,
    all: values.all === true,
    ...common,
  });
}

/** Parses the words after `silence`; `help` when asked for (or nothing given). */
export function parseSilence(argv: readonly string[]): SilenceCommand | 'help' {
  const { values, positionals } = words(argv);
  const [verb, ...rest] = positionals;
  if (values.help || verb === undefined) return 'help';
  if (!['add', 'list', 'query', 'expire', 'update'].includes(verb)) {
    throw usage(`has no command "${sanitize(verb)}": use add, list, query, update or expire`);
  }
  const common: SilenceCommonOptions = {
    store: storeOf(values),
    cluster: values.cluster,
    kubeconfig: values.kubeconfig,
    context: values.context,
  };
  if (verb === 'expire') {
    onlyFlags(values, 'expire', () => false);
    return Object.freeze({ verb: 'expire', ids: idsOf('expire', rest, true), ...common });
  }
  if (verb === 'update') return updateOf(rest, values, common);
  if (rest.length > 0) throw usage(`${verb}: unexpected argument "${sanitize(rest[0] ?? '')}"`);
  return verb === 'add' ? addOf(values, common) : listOf(verb as 'list' | 'query', values, common);
}
