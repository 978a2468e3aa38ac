/**
 * A silence as the stores keep it: JSON, read back with every field checked, shape and range
 * (`silenceProblem`, on the reading store's clock). A record that does not read as a silence is
 * never trusted: `list` skips it, and a check's `listOrSetAside` moves it aside and says so (the
 * node it named then pages: the safe side).
 */
import {
  endSilence,
  isSilenceId,
  type Silence,
  type SilenceTarget,
  silenceProblem,
} from '../../core/silences.js';
import { SilenceError } from '../../ports/index.js';

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
    (v.startsAt !== undefined && !Number.isSafeInteger(v.startsAt)) ||
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
    ...(v.startsAt === undefined ? {} : { startsAt: v.startsAt as number }),
    endsAt: v.endsAt as number,
    ...(typeof v.expiredBy === 'string' ? { expiredBy: v.expiredBy } : {}),
  };
}

/** A stored document read on the store's clock: the silence, or why it cannot be honoured. */
export type ReadSilence =
  | { readonly silence: Silence; readonly problem?: undefined }
  | { readonly silence?: undefined; readonly problem: string };

/** Reads a stored document (`where` names it in the problem when it is no silence at all). */
export function readSilence(value: unknown, now: number, where: string): ReadSilence {
  const silence = fromSilenceDocument(value);
  if (silence === undefined) return { problem: `${where} does not hold a silence` };
  const problem = silenceProblem(silence, now);
  return problem === undefined ? { silence } : { problem };
}

/** The silence, when it can be written at `now`; a SilenceError (one line) when it cannot. */
export function writable(silence: Silence, now: number): Silence {
  const problem = silenceProblem(silence, now);
  if (problem !== undefined) throw new SilenceError(problem);
  return silence;
}

/** One line for what was set aside (its problems, its keys): the first three, and how many more. */
export function listedBriefly(problems: readonly string[]): string {
  const shown = problems.slice(0, 3).join('; ');
  return problems.length > 3 ? `${shown}; and ${problems.length - 3} more` : shown;
}

export function unknownSilence(cluster: string, id: string): SilenceError {
  return new SilenceError(
    `no silence ${id} for cluster ${cluster}: see lease-watchdog silence list for the ids`,
  );
}

/** `expire` as an `update`: the silence ended at `at` by `by`; a SilenceError when it already has. */
export function endedAt(at: number, by: string): (silence: Silence) => Silence {
  return (silence) => {
    const ended = endSilence(silence, at, by);
    if (ended !== undefined) return ended;
    const when = new Date(silence.endsAt).toISOString();
    throw new SilenceError(`silence ${silence.id} has already ended (at ${when})`);
  };
}

export function idTaken(id: string): SilenceError {
  return new SilenceError(`silence id ${id} is taken: try again`);
}

/** By end, the latest last; then by id. */
export function byEnd(a: Silence, b: Silence): number {
  return a.endsAt - b.endsAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
