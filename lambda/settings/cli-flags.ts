/**
 * The command line's flags, each declared once: its name, value, help line, default, the rule its
 * value must meet, and what docs/CLI.md says of an option the command line alone has. The settings
 * they set (catalogue.ts, clusters.ts) take their `cli` from here and build their schemas from the
 * same rules; the command reads its flags from here alone, without the schema library, so that
 * `lease-watchdog check` starts in a fraction of a second.
 */
import { DEFAULTS } from './defaults.js';
import { shown } from './errors.js';
import {
  labelSelectorRules,
  notTextMessage,
  positiveSecondsProblem,
  type TextRules,
  textProblem,
  topicArnRules,
  type WholeNumberRule,
  wholeNumberProblem,
} from './field-checks.js';
import { PATTERNS } from './patterns.js';

export const DAY = 86_400;

export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What a flag's value must be (once a duration or a count is read as a number). */
export type FlagRule =
  | { readonly whole: WholeNumberRule }
  | { readonly positiveSecondsUpTo: number }
  | { readonly text: TextRules }
  | { readonly oneOf: readonly string[] }
  | { readonly switch: true };

export interface CliFlag {
  /** The long option, without dashes: `grace-period`. */
  readonly flag: string;
  readonly short?: string;
  /** Other long names it answers to (kubectl's): `request-timeout`. */
  readonly aliases?: readonly string[];
  /** The value's placeholder in the usage text: `S`, `PATH`. Absent for a boolean switch. */
  readonly value?: string;
  /** The commands that take it; default both. */
  readonly commands?: readonly ('check' | 'watch')[];
  /** One line of `--help`. */
  readonly help: string;
  /** docs/CLI.md's "meaning" column: a command-line-only option's, or where the setting's differs. */
  readonly meaning?: string;
  /** How the default reads in the option table, when it differs from the value as written. */
  readonly shownDefault?: string;
  /** The value it takes when not given. */
  readonly defaultValue?: unknown;
  /** What its value must be; the setting's schema is built from the same rule. */
  readonly rule: FlagRule;
}

/** The message for a value that is none of `values`: "must be table, wide, json or yaml (…)". */
export function oneOfMessage(values: readonly string[], input: unknown): string {
  return `must be ${values.slice(0, -1).join(', ')} or ${values.at(-1)} (got ${shown(input)})`;
}

/** What is wrong with a flag's value by its rule (the schema's message), or undefined. */
export function flagProblem(rule: FlagRule, value: unknown): string | undefined {
  if ('whole' in rule) return wholeNumberProblem(rule.whole, value);
  if ('positiveSecondsUpTo' in rule) return positiveSecondsProblem(rule.positiveSecondsUpTo, value);
  if ('oneOf' in rule) {
    return rule.oneOf.includes(value as string) ? undefined : oneOfMessage(rule.oneOf, value);
  }
  if ('switch' in rule) {
    return typeof value === 'boolean' ? undefined : `must be true or false (got ${shown(value)})`;
  }
  return typeof value === 'string'
    ? textProblem(rule.text, value)
    : notTextMessage(rule.text, value);
}

const aSwitch = { switch: true } as const;

/**
 * Every flag, under the name of the option it sets in the parsed command line (cli/args.ts), in
 * the order of `--help`'s lines (common ones first).
 */
export const CLI_FLAGS = {
  kubeconfig: {
    flag: 'kubeconfig',
    value: 'PATH',
    help: 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)',
    shownDefault: '`$KUBECONFIG`, then `~/.kube/config`',
    meaning: 'which kubeconfig',
    rule: { text: { hint: 'a kubeconfig file' } },
  },
  context: {
    flag: 'context',
    value: 'NAME',
    help: 'kubeconfig context (default: current-context)',
    shownDefault: 'its current-context',
    meaning: "which context; its name is the cluster's name in output and emails",
    rule: { text: { hint: 'a kubeconfig context' } },
  },
  namespace: {
    flag: 'namespace',
    short: 'n',
    value: 'NS',
    help: 'namespace of the node leases',
    defaultValue: DEFAULTS.namespace,
    rule: {
      text: {
        hint: 'the namespace of the node Leases',
        pattern: PATTERNS.DNS_LABEL,
        invalid: (value: string) =>
          `must be a Kubernetes namespace name, e.g. ${DEFAULTS.namespace} (got ${shown(value)})`,
      },
    },
  },
  exclude: {
    flag: 'exclude',
    value: 'SELECTOR',
    help: "label selector of nodes never to alert on, e.g. 'pool in (spot)'",
    meaning: "label selector of nodes never to alert on, e.g. `'pool in (spot,batch)'`",
    rule: { text: labelSelectorRules('role=batch,!critical', true) },
  },
  selector: {
    flag: 'selector',
    short: 'l',
    value: 'SELECTOR',
    help: "check only the nodes this label selector matches, e.g. 'pool=gpu'",
    shownDefault: 'every node',
    meaning:
      "label selector of the nodes to check, as `kubectl get nodes -l` takes it (`'pool=gpu'`, `'pool in (gpu,batch)'`, `'!spot'`): other nodes are not shown, counted or paged, and their leases are not orphans (see [below](#choosing-nodes))",
    rule: { text: labelSelectorRules('pool=gpu,!spot') },
  },
  output: {
    flag: 'output',
    short: 'o',
    value: 'table|wide|json|yaml',
    help: 'output format',
    defaultValue: 'table',
    shownDefault: '`table`',
    meaning:
      '`wide` adds INSTANCE, NODE-GROUP, INSTANCE-TYPE and CAPACITY-TYPE columns; `json` is one object: `{ cluster, checkedAt, serverTime, nodes: [{ name, verdict, renewTime, leaseDurationSeconds, silentForSeconds, reason, zone, instance, nodeGroup, instanceType, capacityType, suppressedBy? }], summary: { <verdict>: count } }` (and `degraded` when Nodes could not be read, `suppressedBy: { <cause>: count }` when nodes are suppressed); `yaml` is the same document as YAML',
    rule: { oneOf: OUTPUT_FORMATS },
  },
  noHeaders: {
    flag: 'no-headers',
    help: 'table and wide: print no header row',
    defaultValue: false,
    meaning: '`table` and `wide`: print no header row',
    rule: aSwitch,
  },
  intervalSeconds: {
    flag: 'interval',
    value: 'S',
    commands: ['watch'],
    help: 'seconds between checks',
    defaultValue: DEFAULTS.intervalSeconds,
    meaning: '`watch`: seconds between checks',
    rule: { positiveSecondsUpTo: DAY },
  },
  checks: {
    flag: 'checks',
    value: 'N',
    commands: ['watch'],
    help: 'stop after N checks (default: run until interrupted)',
    shownDefault: 'forever',
    meaning: '`watch`: stop after N checks',
    rule: { whole: { min: 1, max: 1_000_000_000 } },
  },
  stateFile: {
    flag: 'state-file',
    value: 'PATH',
    commands: ['watch'],
    help: 'keep observations and incidents in this JSON file across runs',
    shownDefault: 'in memory',
    meaning: '`watch`: keep observations and incidents in a JSON file across runs',
    rule: { text: { hint: 'a file path' } },
  },
  snsTopicArn: {
    flag: 'sns-topic-arn',
    value: 'ARN',
    commands: ['watch'],
    help: 'publish notifications to this SNS topic (default AWS credentials)',
    shownDefault: 'print to the terminal',
    meaning:
      '`watch`: publish notifications to SNS (credentials from the default AWS chain; `AWS_ENDPOINT_URL_SNS` is respected); the topic is checked (GetTopicAttributes) before the first check: exit 2 when it is not there or the credentials do not reach it',
    rule: { text: topicArnRules('an SNS topic ARN') },
  },
  insecureSkipTlsVerify: {
    flag: 'insecure-skip-tls-verify',
    help: "do not verify the API server's certificate (insecure; warns)",
    defaultValue: false,
    meaning:
      "do not verify the API server's certificate (warns on stderr); without it the command refuses to run while `NODE_TLS_REJECT_UNAUTHORIZED=0` is set",
    rule: aSwitch,
  },
  verbose: {
    flag: 'verbose',
    short: 'v',
    help: "show the exec credential plugin's stderr",
    defaultValue: false,
    meaning:
      "show what a kubeconfig's exec credential plugin writes to stderr (it can echo credentials)",
    rule: aSwitch,
  },
  gracePeriodSeconds: {
    flag: 'grace-period',
    value: 'S',
    help: 'silence that makes a lease expired, seconds',
    defaultValue: DEFAULTS.gracePeriodSeconds,
    rule: { whole: { min: 1, max: DAY } },
  },
  startupGraceSeconds: {
    flag: 'startup-grace',
    value: 'S',
    help: 'age before a node without a renewed lease, or not ready, alerts',
    meaning:
      'how old a node without a renewed lease, or reporting Ready=False, must be before it alerts',
    defaultValue: DEFAULTS.startupGraceSeconds,
    rule: { whole: { min: 0, max: DAY } },
  },
  reminderIntervalSeconds: {
    flag: 'reminder-interval',
    value: 'S',
    commands: ['watch'],
    help: 're-notify open incidents every S seconds (0 = off)',
    meaning: '`watch`: re-notify open incidents this often; 0 turns reminders off',
    defaultValue: DEFAULTS.reminderIntervalSeconds,
    // The deployment file also refuses 1-59; the demo's compressed timings remind every 36 s.
    rule: { whole: { min: 0, max: 7 * DAY, hint: '0 turns reminders off' } },
  },
  nodeRefreshSeconds: {
    flag: 'node-refresh',
    value: 'S',
    commands: ['watch'],
    help: 'list whole Nodes at most every S seconds (0: on every check)',
    meaning:
      '`watch`: list whole Nodes at most every S seconds (see `nodeRefreshSeconds` in [the configuration](docs/CONFIGURATION.md))',
    defaultValue: DEFAULTS.nodeRefreshSeconds,
    rule: { whole: { min: 0, max: 3_600, hint: '0 lists whole Nodes on every check' } },
  },
  timeoutSeconds: {
    flag: 'timeout',
    aliases: ['request-timeout'],
    value: 'S',
    help: 'how long a read of the cluster may take, all its requests (also --request-timeout)',
    meaning: 'how long one read of the Kubernetes API server may take, all its requests together',
    defaultValue: DEFAULTS.requestTimeoutSeconds,
    rule: { whole: { min: 1, max: 300 } },
  },
} as const satisfies Record<string, CliFlag>;
