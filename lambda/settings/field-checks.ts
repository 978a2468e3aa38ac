/**
 * The house's field checks as plain functions, without the schema library: what is wrong with a
 * value, in the words fields.ts's schemas use (the text after the field's path), or undefined
 * when it is right. The command line checks its flags with these alone (cli-flags.ts), so that
 * `lease-watchdog check` starts without building the settings' schemas; fields.ts builds the
 * schemas of the deployment file with the same messages.
 */
import { matchesSelector, parseSelector } from '../core/selector.js';
import { shown } from './errors.js';
import { PATTERNS } from './patterns.js';

/**
 * A value CloudFormation fills in at deploy time: a CDK token (`topic.topicArn`, a parameter's
 * `valueAsString`), recognised by CDK's string encoding (`${Token[…]}`) so that the settings need
 * no aws-cdk-lib (test/infra-tokens.test.ts checks that it agrees with
 * `Token.isUnresolved`). Such a value is checked where it is resolved, not at synth.
 */
export function isDeployTimeValue(value: unknown): boolean {
  return typeof value === 'string' && /\$\{Token\[[a-zA-Z0-9:._-]+\]\}/.test(value);
}

/** A whole number in [min, max]; `hint` follows the value in the message. */
export interface WholeNumberRule {
  readonly min: number;
  readonly max: number;
  readonly hint?: string;
}

/** The message for a value that is not a whole number in the rule's range. */
export function wholeNumberMessage({ min, max, hint }: WholeNumberRule, input: unknown): string {
  return `must be a whole number from ${min} to ${max} (got ${shown(input)})${hint ? `; ${hint}` : ''}`;
}

export function wholeNumberProblem(rule: WholeNumberRule, value: unknown): string | undefined {
  const whole = typeof value === 'number' && Number.isSafeInteger(value);
  return whole && value >= rule.min && value <= rule.max
    ? undefined
    : wholeNumberMessage(rule, value);
}

/** A number of seconds greater than 0 and at most `max` (fractions allowed). */
export function positiveSecondsProblem(max: number, value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    return `must be a positive number of seconds (got ${shown(value)})`;
  }
  return value > max ? `must be at most ${max} seconds (got ${shown(value)})` : undefined;
}

export interface TextRules {
  /** What the value is, for "is required: …" and "must be a string (…)". */
  readonly hint: string;
  readonly pattern?: RegExp;
  /** The message when the pattern does not match (given the value). */
  readonly invalid?: (value: string) => string;
  /** Further checks: a message when the value is wrong, undefined when it is right. */
  readonly check?: (value: string) => string | undefined;
}

/** The message for a value that is not a string at all: missing, or of another type. */
export function notTextMessage(rules: TextRules, input: unknown): string {
  return input === undefined || input === null || input === ''
    ? `is required: ${rules.hint}`
    : `must be a string (${rules.hint}), got ${shown(input)}`;
}

/**
 * What is wrong with a string: empty, spaces around it, not matching the pattern, or the rules'
 * own check; a CDK token passes (it is a name or ARN CloudFormation resolves at deploy time).
 */
export function textProblem(rules: TextRules, value: string): string | undefined {
  if (isDeployTimeValue(value)) return undefined;
  const invalid =
    rules.invalid ?? ((text: string) => `must match ${rules.pattern} (got ${shown(text)})`);
  if (value === '') return `is required: ${rules.hint}`;
  if (value.trim() !== value) return `must not start or end with spaces (got ${shown(value)})`;
  if (rules.pattern !== undefined && !rules.pattern.test(value)) return invalid(value);
  return rules.check?.(value);
}

/** A Kubernetes label selector (`kubectl -l` syntax); `example` shows a valid one in the error. */
export function labelSelectorRules(example: string, excluding = false): TextRules {
  return {
    hint: 'a label selector',
    check: (value) => {
      try {
        const selector = parseSelector(value);
        if (!excluding || !ANY_NODE.some((labels) => matchesSelector(selector, labels))) return;
        return `excludes every node (it matches a Node with no labels but the kubelet's own), which turns paging off for the whole cluster: name the nodes to leave out, e.g. "${example}"`;
      } catch (error) {
        return `must be a label selector like "${example}": ${(error as Error).message}`;
      }
    },
  };
}

/**
 * Nodes any cluster has: one without labels, one with only those every kubelet sets, of values no
 * selector names. A selector of nodes to exclude that matches them excludes every node (a silence
 * matching everything is refused alike).
 */
const ANY_NODE: readonly Readonly<Record<string, string>>[] = [
  {},
  { 'kubernetes.io/hostname': '\0', 'kubernetes.io/os': '\0', 'kubernetes.io/arch': '\0' },
];

/**
 * An SNS topic ARN, standard or FIFO (the CLI's --sns-topic-arn and the Lambda's TOPIC_ARN too);
 * `example` is the topic's name in the error's example.
 */
export function topicArnRules(hint: string, example = 'alerts'): TextRules {
  return {
    hint,
    pattern: PATTERNS.TOPIC_ARN,
    invalid: (value) =>
      `must be an SNS topic ARN like arn:aws:sns:eu-west-1:123456789012:${example} (got ${shown(value)})`,
  };
}
