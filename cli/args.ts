/**
 * The `lease-watchdog` command line, parsed once into a frozen, typed object. The flags, their
 * defaults, their checks and the `--help` text come from the settings' flags
 * (lambda/settings/cli-flags.ts), where each is declared once, and which need no schema library:
 * the command starts without it. Every mistake is a UsageError with one line naming the option
 * and the fix.
 */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { parseDuration } from '../lambda/core/duration.js';
import type { OutputFormat } from '../lambda/settings/cli-flags.js';
import { CLI_FLAGS, type CliFlag, flagProblem } from '../lambda/settings/cli-flags.js';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface CommonOptions {
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
  readonly namespace: string;
  readonly gracePeriodSeconds: number;
  readonly startupGraceSeconds: number;
  /** Label selector of nodes never to alert on (checked; parsed by the composer). */
  readonly exclude?: string | undefined;
  /** Label selector of the nodes to check (checked; parsed by the composer); absent: every node. */
  readonly selector?: string | undefined;
  readonly output: OutputFormat;
  /** Table and wide output without the header row. */
  readonly noHeaders: boolean;
  readonly timeoutSeconds: number;
  /** Do not verify the API server's certificate (and allow NODE_TLS_REJECT_UNAUTHORIZED=0). */
  readonly insecureSkipTlsVerify: boolean;
  /** Show an exec credential plugin's stderr. */
  readonly verbose: boolean;
}

export interface WatchOptions extends CommonOptions {
  readonly intervalSeconds: number;
  /** Stop after this many checks; undefined runs until interrupted. */
  readonly checks?: number | undefined;
  readonly stateFile?: string | undefined;
  readonly snsTopicArn?: string | undefined;
  readonly reminderIntervalSeconds: number;
  /** List whole Nodes at most this often; 0: every check. */
  readonly nodeRefreshSeconds: number;
}

export type Command =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'version' }
  | { readonly kind: 'check'; readonly options: CommonOptions }
  | { readonly kind: 'watch'; readonly options: WatchOptions };

type Option = readonly [key: string, flag: CliFlag];
// Each option is the key of its flag in CLI_FLAGS, and each flag's key an option: else no build.
type FlagKey = keyof typeof CLI_FLAGS;
true satisfies [FlagKey, keyof WatchOptions] extends [keyof WatchOptions, FlagKey] ? true : never;

/** Taken by both commands; the others by `watch` only. */
const common = ([, s]: Option) => s.commands === undefined;
const DECLARED = Object.entries(CLI_FLAGS) as Option[];
/** The options of the command line, common ones first, in the order they are declared. */
const OPTIONS = [...DECLARED.filter(common), ...DECLARED.filter((o) => !common(o))];

function usageLine([, s]: Option): string {
  const short = s.short ? `-${s.short}, ` : '';
  const name = `${short}--${s.flag}${s.value ? ` ${s.value}` : ''}`;
  const fallback =
    s.defaultValue === undefined || s.value === undefined || /default/.test(s.help)
      ? ''
      : ` (default: ${s.defaultValue})`;
  return `  ${name.padEnd(24)} ${s.help}${fallback}`;
}

const COMMAND_LINES = {
  check:
    '  lease-watchdog check [options]     check once; exit 0 healthy, 1 nodes alerting, 2 error',
  watch:
    '  lease-watchdog watch [options]     check repeatedly, print each change and notification',
} as const;
const COMMON_OPTIONS = OPTIONS.filter(common).map(usageLine);
const WATCH_OPTIONS = OPTIONS.filter((o) => !common(o)).map(usageLine);
const LAST_LINES = [
  '  -h, --help               show this help',
  '  --version                print the version',
];

export const USAGE = [
  'Usage:',
  COMMAND_LINES.check,
  COMMAND_LINES.watch,
  '  lease-watchdog silence add|list|query|update|expire   silence nodes for a while (see silence --help)',
  '  lease-watchdog config init|validate FILE write a deployment file; check one before deploying it',
  '',
  'Options:',
  ...COMMON_OPTIONS,
  'watch only:',
  ...WATCH_OPTIONS,
  ...LAST_LINES,
].join('\n');

/** `check --help`, `watch --help`: that command and its own options only, as kubectl's. */
export function commandUsage(verb: 'check' | 'watch'): string {
  return [
    'Usage:',
    COMMAND_LINES[verb],
    '',
    'Options:',
    ...COMMON_OPTIONS,
    ...(verb === 'watch' ? WATCH_OPTIONS : []),
    ...LAST_LINES,
  ].join('\n');
}

/** A flag's value checked against its rule: durations (`90s`, `10m`) and counts as numbers. */
function checked(s: CliFlag, raw: string): unknown {
  let value: unknown = raw;
  if (s.value === 'S') {
    value = parseDuration(raw) ?? (/^-\d/.test(raw) ? Number(raw) : raw);
    if (typeof value === 'string') {
      throw new UsageError(
        `--${s.flag} must be a duration such as 90s, 2m or 1h30m (units h, m, s, ms), or whole seconds (got ${JSON.stringify(raw)})`,
      );
    }
  } else if (s.value === 'N' && /^-?\d+(\.\d+)?$/.test(raw.trim())) value = Number(raw);
  const problem = flagProblem(s.rule, value);
  if (problem !== undefined) throw new UsageError(`--${s.flag} ${problem}`);
  return value;
}

/**
 * `--grace-period -5`: Node's parser takes `-5` for an option; kubectl reads it as the value (and
 * then rejects it). Join such values to their option so the setting's own check answers.
 */
function joinNegativeValues(argv: readonly string[], valued: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    if (valued.has(arg) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/**
 * The words of a command line read by node:util's parseArgs, its errors in kubectl's words as a
 * UsageError that points at `help` (`lease-watchdog silence --help`).
 */
export function readArgs<O extends ParseArgsOptionsConfig>(
  args: readonly string[],
  options: O,
  help = 'lease-watchdog --help',
) {
  try {
    return parseArgs({ args: [...args], allowPositionals: true, strict: true, options });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
    const option = /'(-[^' ]+)/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) {
      throw new UsageError(`unknown flag: ${option} (see ${help})`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
      throw new UsageError(`flag needs an argument: ${option} (see ${help})`);
    }
    throw new UsageError(`${message} (see ${help})`);
  }
}

function parse(argv: readonly string[]) {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' },
  };
  for (const [, s] of OPTIONS) {
    const type = s.value === undefined ? 'boolean' : 'string'; // no value: a switch
    options[s.flag] = { type, ...(s.short ? { short: s.short } : {}) };
    for (const alias of s.aliases ?? []) options[alias] = { type };
  }
  const valued = Object.entries(options)
    .filter(([, o]) => o.type === 'string')
    .flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]);
  return readArgs(joinNegativeValues(argv, new Set(valued)), options);
}

/** `--help` after a command is that command's; alone, or after anything else, the whole help. */
function helpFor(verb: string | undefined): string {
  return verb === 'check' || verb === 'watch' ? commandUsage(verb) : USAGE;
}

export function parseCli(argv: readonly string[]): Command {
  const { values, positionals } = parse(argv);
  const [verb, ...extra] = positionals;
  if (values.help) return { kind: 'help', text: helpFor(verb) };
  // `version` too, as kubectl users type it.
  if (values.version || (verb === 'version' && extra.length === 0)) return { kind: 'version' };
  if (verb === undefined) return { kind: 'help', text: USAGE };
  if (verb !== 'check' && verb !== 'watch') {
    throw new UsageError(
      `unknown command "${verb}": use "check" or "watch" (see lease-watchdog --help)`,
    );
  }
  if (extra.length > 0)
    throw new UsageError(`unexpected argument "${extra[0]}" (see lease-watchdog --help)`);

  // Each option under its flag's name in CLI_FLAGS: given, else its default (watch's for watch only).
  const options: Record<string, unknown> = {};
  for (const [key, s] of OPTIONS) {
    const raw = [s.flag, ...(s.aliases ?? [])]
      .map((name) => values[name])
      .find((value) => value !== undefined);
    const applies = (s.commands ?? ['check', 'watch']).includes(verb);
    if (typeof raw !== 'string' && raw !== true) {
      if (applies) options[key] = s.defaultValue;
    } else if (!applies) {
      throw new UsageError(`--${s.flag} goes with "watch", not "${verb}"`);
    } else {
      options[key] = raw === true ? true : checked(s, raw);
    }
  }
  return { kind: verb, options: Object.freeze(options as unknown as WatchOptions) };
}
