/**
 * The events queued messages carry (SQS bodies): a dispatched check of one cluster, or a look of
 * the watchdog's own; each body read with one line of error when it is neither.
 */
import type { InvocationEvent } from '../use-cases/invocation.js';

/**
 * What a queued message asks for: a dispatched check (`{ "cluster": "<name>" }`, a scheduled
 * check of that cluster), or a look (lookOf); throws with one line when the body is neither.
 */
export function queuedEventOf(body: string): InvocationEvent {
  const value = jsonOf(body);
  const keys = typeof value === 'object' && value !== null ? Object.keys(value) : [];
  const cluster = (value as { cluster?: unknown } | null)?.cluster;
  if (keys.length === 1 && typeof cluster === 'string') return { cluster };
  return lookIn(value);
}

function jsonOf(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new Error('the message body is not JSON');
  }
}

/** The look a queued message asks for; throws with one line when the body is not one. */
export function lookOf(body: string): InvocationEvent {
  return lookIn(jsonOf(body));
}

function lookIn(value: unknown): InvocationEvent {
  const look = value as { cluster?: unknown; look?: { suspects?: unknown }; recheck?: unknown };
  // `recheck`: the body of looks queued by a version before `look` (they wait up to 15 minutes).
  const names = look?.look === undefined ? look?.recheck : look.look?.suspects;
  if (
    typeof look?.cluster !== 'string' ||
    !Array.isArray(names) ||
    !names.every((n) => typeof n === 'string')
  ) {
    throw new Error(
      'the message body is not { "cluster": "<name>", "look": { "suspects": ["<lease>", ...] } }',
    );
  }
  return { cluster: look.cluster, look: { suspects: names as string[] } };
}
