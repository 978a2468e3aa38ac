/**
 * When a silence holds, as `silence add` and `silence update` ask for it, checked on the CLI's
 * clock: a start (`--starts-at`) not in the past and at most 30d ahead, an end (`--for` from the
 * start, or `--ends-at`) in the future and after the start, and at most 30d of silence. The
 * stores check the same bounds again (core/silences.ts `silenceProblem`) on their own clock.
 */
import { MAX_SILENCE_SECONDS, utcMinute } from '../lambda/core/silences.js';
import { UsageError } from './args.js';
import type { SilenceCommand } from './silence-args.js';

const MAX_MS = MAX_SILENCE_SECONDS * 1000;

const refuse = (verb: string, line: string) => new UsageError(`silence ${verb}: ${line}`);

/** An end in the future, after `from`, at most 30d after it. */
function checkedEnd(verb: string, endsAt: number, from: number, now: number): number {
  if (endsAt <= now) {
    throw refuse(
      verb,
      `--ends-at must be in the future (it is ${utcMinute(endsAt)}, now is ${utcMinute(now)})${verb === 'update' ? ': to end it now, use silence expire' : ''}`,
    );
  }
  if (endsAt <= from) throw refuse(verb, '--ends-at must be after --starts-at');
  if (endsAt - from > MAX_MS) {
    throw refuse(
      verb,
      `a silence lasts at most 30d (${utcMinute(from)} to ${utcMinute(endsAt)}): longer is an exclusion (excludeSelector), not a silence`,
    );
  }
  return endsAt;
}

/** The window `add` asks for: `startsAt` only for a planned one. */
export function addWindow(
  command: Extract<SilenceCommand, { verb: 'add' }>,
  now: number,
): { readonly startsAt?: number; readonly endsAt: number } {
  const start = command.startsAt;
  if (start !== undefined && start < now) {
    throw refuse('add', '--starts-at must not be in the past (leave it out to start now)');
  }
  if (start !== undefined && start - now > MAX_MS) {
    throw refuse('add', `--starts-at must be at most 30d from now (it is ${utcMinute(start)})`);
  }
  const from = start ?? now;
  const endsAt = command.endsAt ?? from + Math.round((command.forSeconds ?? 0) * 1000);
  return {
    ...(start === undefined ? {} : { startsAt: start }),
    endsAt: checkedEnd('add', endsAt, from, now),
  };
}

/** The new end an update asks for (--for counts from now), or undefined when it keeps its end. */
export function newEnd(
  command: Extract<SilenceCommand, { verb: 'update' }>,
  startsAt: number | undefined,
  now: number,
): number | undefined {
  const from = Math.max(now, startsAt ?? now);
  if (command.forSeconds !== undefined) {
    return checkedEnd('update', now + Math.round(command.forSeconds * 1000), from, now);
  }
  return command.endsAt === undefined ? undefined : checkedEnd('update', command.endsAt, from, now);
}
