/**
 * A configuration that cannot be used, as one line naming the field and the fix:
 * `clusters[1].auth.mode must be one of kubeconfig, token, eks (got "ekss")`.
 *
 * Field schemas (fields.ts) produce the text after the path (`must be one of …`); `firstProblem`
 * puts the path in front of the first zod issue.
 */
import type { z } from 'zod';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Renders a value for a message: short, one line. */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** `clusters[1].auth` from a parent path and a key. */
export function fieldPath(parent: string, key: PropertyKey): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent === '' ? String(key) : `${parent}.${String(key)}`;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>((at, key) => fieldPath(at, key), '');
}

/**
 * The first issue of a failed parse, as a ConfigError; before any, a secret given inline
 * (`pagerDuty.routingKey` where `routingKeySecret` names a secret), which no other fix must hide.
 */
export function firstProblem(error: z.ZodError): ConfigError {
  for (const found of error.issues) {
    const key = inlineSecret(found);
    if (key === undefined) continue;
    return new ConfigError(
      `${fieldPath(pathText(found.path), key)} is a secret given inline: put it in AWS Secrets Manager and name the secret in ${key}Secret (in the file, it would sit in the template and the function's environment)`,
    );
  }
  const issue = error.issues[0];
  if (issue === undefined) return new ConfigError('the configuration is invalid');
  let at = pathText(issue.path);
  if (issue.code === 'unrecognized_keys') at = fieldPath(at, issue.keys[0] ?? '?');
  return new ConfigError(`${at || 'the configuration'} ${issue.message}`);
}

/** Runs `parse`, putting `where` (a file or variable name) in front of a ConfigError's message. */
export function within<T>(where: string | undefined, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof ConfigError) || !where) throw error;
    throw new ConfigError(`${where}: ${error.message}`, { cause: error });
  }
}

/** Freezes an object graph (plain objects and arrays). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** The unknown key of `issue` whose setting takes a secret's name instead (`${key}Secret` is known). */
function inlineSecret(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== 'unrecognized_keys') return undefined;
  const known = issue.message.split(/[\s,:;]+/);
  return issue.keys.find((key) => known.includes(`${key}Secret`));
}
