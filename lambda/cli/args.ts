/**
 * The `lease-watchdog` command line, parsed once into a frozen, typed object. Every mistake is a
 * UsageError with one line naming the option and what it must be.
 */
import { parseArgs } from 'node:util';
import {
  DEFAULT_GRACE_PERIOD_SECONDS,
  DEFAULT_NAMESPACE,
  DEFAULT_STARTUP_GRACE_SECONDS,
} from '../core/policy.js';
import { type LabelSelector, parseSelector, SelectorSyntaxError } from '../core/selector.js';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type OutputFormat = 'table' | 'json';

export interface CommonOptions {
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
  readonly namespace: string;
  readonly gracePeriodSeconds: number;
  readonly startupGraceSeconds: number;
  readonly exclude?: LabelSelector | undefined;
  readonly output: OutputFormat;
  readonly timeoutSeconds: number;
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

export const USAGE = `Usage:
  lease-watchdog check [options]     check once; exit 0 healthy, 1 nodes alerting, 2 error
  lease-watchdog watch [options]     check repeatedly, print each change and notification

Options:
  --kubeconfig PATH        kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)
  --context NAME           kubeconfig context (default: current-context)
  --namespace NS           namespace of the node leases (default: ${DEFAULT_NAMESPACE})
  --grace-period S         silence that makes a lease expired, seconds (default: ${DEFAULT_GRACE_PERIOD_SECONDS})
  --startup-grace S        age before a node without a renewed lease alerts (default: ${DEFAULT_STARTUP_GRACE_SECONDS})
  --exclude SELECTOR       label selector of nodes never to alert on, e.g. 'pool in (spot)'
  --output table|json      output format (default: table)
  --timeout S              timeout of each API request, seconds (default: 15)
watch only:
  --interval S             seconds between checks (default: 10)
  --checks N               stop after N checks (default: run until interrupted)
  --state-file PATH        keep observations and incidents in this JSON file across runs
  --sns-topic-arn ARN      publish notifications to this SNS topic (AWS credentials from the
                           default chain; AWS_ENDPOINT_URL_SNS is respected)
  --reminder-interval S    re-notify open incidents every S seconds (default: 14400; 0 = off)
  --node-refresh S         list whole Nodes at most every S seconds, re-reading only nodes whose
                           leases look silent in between (default: 0, every check; for big clusters)
  -h, --help               show this help
  --version                print the version`;

function positiveNumber(
  name: string,
  value: string | undefined,
  fallback: number,
  allowZero = false,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || (!allowZero && n === 0)) {
    throw new UsageError(
      `--${name} must be a ${allowZero ? 'non-negative' : 'positive'} number of seconds (got "${value}")`,
    );
  }
  return n;
}

function wholeNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--${name} must be a whole number ≥ 1 (got "${value}")`);
  return n;
}

export function parseCli(argv: readonly string[]): Command {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new UsageError(`${message} (see lease-watchdog --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help', text: USAGE };
  if (values.version) return { kind: 'version' };
  const [verb, ...extra] = positionals;
  if (verb === undefined) return { kind: 'help', text: USAGE };
  if (verb !== 'check' && verb !== 'watch') {
    throw new UsageError(
      `unknown command "${verb}": use "check" or "watch" (see lease-watchdog --help)`,
    );
  }
  if (extra.length > 0)
    throw new UsageError(`unexpected argument "${extra[0]}" (see lease-watchdog --help)`);

  const output = values.output ?? 'table';
  if (output !== 'table' && output !== 'json') {
    throw new UsageError(`--output must be table or json (got "${output}")`);
  }
  if (values.namespace !== undefined && values.namespace.trim() === '') {
    throw new UsageError('--namespace must not be empty');
  }
  let exclude: LabelSelector | undefined;
  if (values.exclude !== undefined) {
    try {
      exclude = parseSelector(values.exclude);
    } catch (error) {
      if (error instanceof SelectorSyntaxError) throw new UsageError(`--exclude: ${error.message}`);
      throw error;
    }
  }
  const common: CommonOptions = {
    kubeconfig: values.kubeconfig,
    context: values.context,
    namespace: values.namespace ?? DEFAULT_NAMESPACE,
    gracePeriodSeconds: positiveNumber(
      'grace-period',
      values['grace-period'],
      DEFAULT_GRACE_PERIOD_SECONDS,
    ),
    startupGraceSeconds: positiveNumber(
      'startup-grace',
      values['startup-grace'],
      DEFAULT_STARTUP_GRACE_SECONDS,
      true,
    ),
    exclude,
    output,
    timeoutSeconds: positiveNumber('timeout', values.timeout, 15),
  };
  if (verb === 'check') {
    for (const watchOnly of [
      'interval',
      'checks',
      'state-file',
      'sns-topic-arn',
      'reminder-interval',
      'node-refresh',
    ] as const) {
      if (values[watchOnly] !== undefined)
        throw new UsageError(`--${watchOnly} goes with "watch", not "check"`);
    }
    return { kind: 'check', options: Object.freeze(common) };
  }
  const snsTopicArn = values['sns-topic-arn'];
  if (
    snsTopicArn !== undefined &&
    !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/.test(snsTopicArn)
  ) {
    throw new UsageError(
      `--sns-topic-arn must be an SNS topic ARN like arn:aws:sns:eu-west-1:123456789012:alerts (got "${snsTopicArn}")`,
    );
  }
  return {
    kind: 'watch',
    options: Object.freeze({
      ...common,
      intervalSeconds: positiveNumber('interval', values.interval, 10),
      checks: wholeNumber('checks', values.checks),
      stateFile: values['state-file'],
      snsTopicArn,
      reminderIntervalSeconds: positiveNumber(
        'reminder-interval',
        values['reminder-interval'],
        14_400,
        true,
      ),
      nodeRefreshSeconds: positiveNumber('node-refresh', values['node-refresh'], 0, true),
    }),
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      namespace: { type: 'string', short: 'n' },
      'grace-period': { type: 'string' },
      'startup-grace': { type: 'string' },
      exclude: { type: 'string' },
      output: { type: 'string', short: 'o' },
      timeout: { type: 'string' },
      interval: { type: 'string' },
      checks: { type: 'string' },
      'state-file': { type: 'string' },
      'sns-topic-arn': { type: 'string' },
      'reminder-interval': { type: 'string' },
      'node-refresh': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
    },
  });
}
