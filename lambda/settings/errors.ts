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

/** The first issue of a failed parse, as a ConfigError. */
export function firstProblem(error: z.ZodError): ConfigError {
  const issue = error.issues[0];
  if (issue === undefined) return new ConfigError('the configuration is invalid');
  let at = pathText(issue.path);
  if (issue.code === 'unrecognized_keys') at = fieldPath(at, issue.keys[0] ?? '?');
  return new ConfigError(`${at || 'the configuration'} ${issue.message}`);
}

/** Runs `parse`, putting `where` (a file or variable name) in front of a ConfigError's message. */
export function within<T>(where: string | undefined, parse: () => T): T {
  if (where === undefined || where === '') return parse();
  try {
    return parse();
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new ConfigError(`${where}: ${error.message}`, { cause: error });
    }
    throw error;
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
