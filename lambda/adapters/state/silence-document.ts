/**
 * A silence as the stores keep it: JSON, read back with every field checked. A record that does
 * not read as a silence is skipped (the node it named then pages: the safe side), never trusted.
 */
import { isSilenceId, type Silence, type SilenceTarget } from '../../core/silences.js';
import { SilenceError } from '../../ports/index.js';

export function toSilenceDocument(silence: Silence): Record<string, unknown> {
  return {
    id: silence.id,
    target: silence.target,
    comment: silence.comment,
    author: silence.author,
    createdAt: silence.createdAt,
    endsAt: silence.endsAt,
    ...(silence.expiredBy === undefined ? {} : { expiredBy: silence.expiredBy }),
  };
}

function targetOf(value: unknown): SilenceTarget | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { nodes, selector } = value as { nodes?: unknown; selector?: unknown };
  if (typeof selector === 'string' && nodes === undefined) return { selector };
  if (
    Array.isArray(nodes) &&
    nodes.length > 0 &&
    nodes.every((n): n is string => typeof n === 'string') &&
    selector === undefined
  ) {
    return { nodes };
  }
  return undefined;
}

/** The silence a stored document holds, or undefined when it holds none. */
export function fromSilenceDocument(value: unknown): Silence | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const target = targetOf(v.target);
  if (
    typeof v.id !== 'string' ||
    !isSilenceId(v.id) ||
    target === undefined ||
    typeof v.comment !== 'string' ||
    typeof v.author !== 'string' ||
    !Number.isSafeInteger(v.createdAt) ||
    !Number.isSafeInteger(v.endsAt) ||
    (v.expiredBy !== undefined && typeof v.expiredBy !== 'string')
  ) {
    return undefined;
  }
  return {
    id: v.id,
    target,
    comment: v.comment,
    author: v.author,
    createdAt: v.createdAt as number,
    endsAt: v.endsAt as number,
    ...(typeof v.expiredBy === 'string' ? { expiredBy: v.expiredBy } : {}),
  };
}

export function unknownSilence(cluster: string, id: string): SilenceError {
  return new SilenceError(
    `no silence ${id} for cluster ${cluster}: see lease-watchdog silence list for the ids`,
  );
}

export function alreadyEnded(silence: Silence): SilenceError {
  return new SilenceError(
    `silence ${silence.id} has already ended (at ${new Date(silence.endsAt).toISOString()})`,
  );
}

export function idTaken(id: string): SilenceError {
  return new SilenceError(`silence id ${id} is taken: try again`);
}

/** By end, the latest last; then by id. */
export function byEnd(a: Silence, b: Silence): number {
  return a.endsAt - b.endsAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
