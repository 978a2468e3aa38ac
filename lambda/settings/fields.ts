/**
 * Field schemas with the house's messages. Each message is the text after the field's path
 * (errors.ts puts the path in front): `must be a whole number from 1 to 86400 (got 0)`,
 * `is required: the EKS cluster name`, `is not a known setting; remove it or use one of: …`.
 */
import * as z from 'zod';
import { type CliFlag, type FlagRule, oneOfMessage } from './cli-flags.js';
import { shown } from './errors.js';
import {
  isDeployTimeValue,
  notTextMessage,
  positiveSecondsProblem,
  type TextRules,
  textProblem,
  type WholeNumberRule,
  wholeNumberMessage,
} from './field-checks.js';
import { PATTERNS } from './patterns.js';
import { setting } from './registry.js';

type Issue = { readonly code?: string; readonly input?: unknown };

/** Runs a check only on a value known at synth. */
export const knownAtSynth = {
  when: (payload: { value: unknown }) => !isDeployTimeValue(payload.value),
};

/** A whole number in [min, max]; `hint` follows the value in the message. */
export function wholeNumber(rule: WholeNumberRule) {
  const error = (issue: Issue) => wholeNumberMessage(rule, issue.input);
  return z.int({ error }).min(rule.min, { error }).max(rule.max, { error });
}

/** A number of seconds greater than 0 and at most `max`, fractions allowed. */
export function positiveSeconds(max: number) {
  const error = (issue: Issue) => positiveSecondsProblem(max, issue.input) ?? 'is not valid';
  return z.number({ error }).positive({ error }).max(max, { error });
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

/** The schema of a flag's rule (cli-flags.ts), with the messages `flagProblem` gives. */
function flagSchema(rule: FlagRule): z.ZodType {
  if ('whole' in rule) return wholeNumber(rule.whole);
  if ('positiveSecondsUpTo' in rule) return positiveSeconds(rule.positiveSecondsUpTo);
  if ('oneOf' in rule) {
    return z.enum(rule.oneOf, { error: (issue) => oneOfMessage(rule.oneOf, issue.input) });
  }
  return 'switch' in rule ? flag() : text(rule.text);
}

/** Never shown: superRefine in `text` reports a pattern mismatch first. */
const invalidPattern = () => 'does not match its pattern';

/**
 * A required string without leading or trailing spaces, checked against `pattern`; a CDK token
 * passes (it is a name or ARN CloudFormation resolves at deploy time).
 */
export function text(rules: TextRules) {
  return z
    .string({ error: (issue) => notTextMessage(rules, issue.input) })
    .superRefine((value, ctx) => {
      const problem = textProblem(rules, value);
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
 * Settings the watchdog no longer has, and what does their work now: a file that still names one
 * is told so, not that the key is unknown.
 */
const REMOVED_SETTINGS: ReadonlyMap<string, string> = new Map([
  [
    'fastMode',
    'was removed: the looks queue (SQS) checks between scheduled runs and re-checks each suspect at its deadline, so a dead node pages 50-60 s after its last renewal; delete fastMode',
  ],
]);

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
        const removed = REMOVED_SETTINGS.get(issue.keys[0] ?? '');
        return removed ?? `is not a known setting; remove it or use one of: ${known}`;
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
  const idError = (issue: Issue) => `must be an id like ${example} (got ${shown(issue.input)})`;
  return z
    .array(z.string({ error: idError }).regex(pattern, { error: idError }), { error: listError })
    .min(1, { error: listError });
}

/** An AWS region; `hint` says whose. */
export function awsRegion(hint = 'an AWS region') {
  return text({
    hint,
    pattern: PATTERNS.REGION,
    invalid: (value) => `must be an AWS region like eu-west-1 (got ${shown(value)})`,
  });
}

/** An IAM role ARN; `hint` says which role, `role` is the example's role name in the error. */
export function roleArn(hint: string, role: string) {
  return text({
    hint,
    pattern: PATTERNS.ROLE_ARN,
    invalid: (value) =>
      `must be an IAM role ARN like arn:aws:iam::210987654321:role/${role} (got ${shown(value)})`,
  });
}

/** A command-line option: its key, schema, default and meaning come from its flag (cli-flags.ts). */
export function cliOption(cli: CliFlag) {
  const meaning = cli.meaning ?? cli.help;
  return setting({
    key: `--${cli.flag}`,
    places: ['cli'],
    cli,
    schema: flagSchema(cli.rule),
    meaning,
  });
}
