/**
 * Field schemas with the house's messages. Each message is the text after the field's path
 * (errors.ts puts the path in front): `must be a whole number from 1 to 86400 (got 0)`,
 * `is required: the EKS cluster name`, `is not a known setting; remove it or use one of: …`.
 */
import * as z from 'zod';
import { parseSelector } from '../core/selector.js';
import { shown } from './errors.js';
import { PATTERNS } from './patterns.js';

type Issue = { readonly code?: string; readonly input?: unknown };

/**
 * A value CloudFormation fills in at deploy time: a CDK token (`topic.topicArn`, a parameter's
 * `valueAsString`), recognised by CDK's string encoding (`${Token[…]}`) so that the settings need
 * no aws-cdk-lib (test/infra-tokens.test.ts checks that it agrees with
 * `Token.isUnresolved`). Such a value is checked where it is resolved, not at synth.
 */
export function isDeployTimeValue(value: unknown): boolean {
  return typeof value === 'string' && /\$\{Token\[[a-zA-Z0-9:._-]+\]\}/.test(value);
}

/** Runs a check only on a value known at synth. */
export const knownAtSynth = {
  when: (payload: { value: unknown }) => !isDeployTimeValue(payload.value),
};

function missing(input: unknown): boolean {
  return input === undefined || input === null || input === '';
}

/** A whole number in [min, max]; `hint` follows the value in the message. */
export function wholeNumber(min: number, max: number, hint?: string) {
  const error = (issue: Issue) =>
    `must be a whole number from ${min} to ${max} (got ${shown(issue.input)})${hint ? `; ${hint}` : ''}`;
  return z.int({ error }).min(min, { error }).max(max, { error });
}

/** A fraction in (0, 1]. */
export function fraction() {
  const error = (issue: Issue) =>
    `must be a fraction greater than 0 and at most 1, e.g. 0.55 (got ${shown(issue.input)})`;
  return z.number({ error }).gt(0, { error }).lte(1, { error });
}

export function flag() {
  return z.boolean({ error: (issue) => `must be true or false (got ${shown(issue.input)})` });
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

/** Never shown: superRefine in `text` reports a pattern mismatch first. */
const invalidPattern = () => 'does not match its pattern';

/**
 * A required string without leading or trailing spaces, checked against `pattern`; a CDK token
 * passes (it is a name or ARN CloudFormation resolves at deploy time).
 */
export function text(rules: TextRules) {
  const invalid =
    rules.invalid ?? ((value: string) => `must match ${rules.pattern} (got ${shown(value)})`);
  return z
    .string({
      error: (issue) =>
        missing(issue.input)
          ? `is required: ${rules.hint}`
          : `must be a string (${rules.hint}), got ${shown(issue.input)}`,
    })
    .superRefine((value, ctx) => {
      if (isDeployTimeValue(value)) return;
      const problem =
        value === ''
          ? `is required: ${rules.hint}`
          : value.trim() !== value
            ? `must not start or end with spaces (got ${shown(value)})`
            : rules.pattern !== undefined && !rules.pattern.test(value)
              ? invalid(value)
              : rules.check?.(value);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, input: value });
    })
    .check(
      // For the JSON Schema (editors): the checks above already reported the problem.
      ...(rules.pattern
        ? [z.regex(rules.pattern, { error: invalidPattern, ...knownAtSynth })]
        : []),
    );
}

/**
 * An object that rejects keys it does not know (a typo must not silently fall back to a
 * default). `what` describes it for "must be an object (…)"; `required` for "is required: …".
 */
export function strictObject<Shape extends z.ZodRawShape>(
  shape: Shape,
  what: string,
  required = what,
) {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') {
        return `is not a known setting; remove it or use one of: ${known}`;
      }
      if (issue.input === undefined) return `is required: ${required}`;
      return `must be an object (${what}), got ${shown(issue.input)}`;
    },
  });
}

/** A non-empty list of ids like `example` (subnets, security groups). */
export function idList(pattern: RegExp, example: string) {
  const listError = (issue: Issue) =>
    `must be a non-empty list, e.g. ["${example}"] (got ${shown(issue.input)})`;
  return z
    .array(
      z
        .string({ error: (issue) => `must be an id like ${example} (got ${shown(issue.input)})` })
        .regex(pattern, {
          error: (issue) => `must be an id like ${example} (got ${shown(issue.input)})`,
        }),
      { error: listError },
    )
    .min(1, { error: listError });
}

const topicArnProblem = (value: string) =>
  `must be an SNS topic ARN like arn:aws:sns:eu-west-1:123456789012:alerts (got ${shown(value)})`;

/** An SNS topic ARN, standard or FIFO (the CLI's --sns-topic-arn and the Lambda's TOPIC_ARN too). */
export function topicArn(hint: string) {
  return text({ hint, pattern: PATTERNS.TOPIC_ARN, invalid: topicArnProblem });
}

/** A Kubernetes label selector (`kubectl -l` syntax); `example` shows a valid one in the error. */
export function labelSelector(example: string) {
  return text({
    hint: 'a label selector',
    check: (value) => {
      try {
        parseSelector(value);
        return undefined;
      } catch (error) {
        return `must be a label selector like "${example}": ${(error as Error).message}`;
      }
    },
  });
}
