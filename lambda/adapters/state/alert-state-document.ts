/**
 * The `alerts` of a stored state document, read back with every field the alert lifecycle uses
 * checked (core/alert-state.ts). A document that parses but holds a malformed record (an incident
 * without its times, transitions that are not a list, a read failure that is no record) would
 * otherwise make every check throw, or page a WATCHDOG nobody caused: it is refused here, with the
 * path of what is wrong, so that the store resets it like any unreadable state (loadOrReset).
 * The document's other records (lock, on-call outbox) are checked with the same checks.
 */
import type { AlertState, NodeSnapshot } from '../../core/alert-state.js';

export type Check = (value: unknown, path: string) => void;

function fail(path: string, what: string): never {
  throw new Error(`${path} ${what}`);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const time: Check = (value, path) => {
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(path, 'is not a time');
};
export const text: Check = (value, path) => {
  if (typeof value !== 'string') fail(path, 'is not a string');
};
/** A safe integer (epoch ms, counts). */
export const whole: Check = (value, path) => {
  if (!Number.isSafeInteger(value)) fail(path, 'is not a whole number');
};
export const nullable =
  (check: Check): Check =>
  (value, path) => {
    if (value !== null) check(value, path);
  };
const textOrNull = nullable(text);
export const optional =
  (check: Check): Check =>
  (value, path) => {
    if (value !== undefined) check(value, path);
  };
export const list =
  (check: Check): Check =>
  (value, path) => {
    if (!Array.isArray(value)) fail(path, 'is not a list');
    value.forEach((item, i) => {
      check(item, `${path}[${i}]`);
    });
  };

/** An object whose named fields pass their checks (other fields are left as they are). */
export const fields =
  (checks: Record<string, Check>): Check =>
  (value, path) => {
    if (!isRecord(value)) fail(path, 'is not an object');
    for (const [key, check] of Object.entries(checks)) check(value[key], `${path}.${key}`);
  };

/** An object keyed by node name (or any key), each value passing `check`. */
const byNode =
  (check: Check): Check =>
  (value, path) => {
    if (!isRecord(value)) fail(path, 'is not an object');
    for (const [name, item] of Object.entries(value))
      check(item, `${path}[${JSON.stringify(name)}]`);
  };

/**
 * What a notification shows of a node: its verdict a string (a later version may know more
 * verdicts), the rest strings when present (older documents may lack them; the renderers cope).
 */
const SNAPSHOT: Record<keyof NodeSnapshot, Check> = {
  verdict: text,
  zone: optional(textOrNull),
  instance: optional(textOrNull),
  renewTime: optional(textOrNull),
  nodeGroup: optional(textOrNull),
  instanceType: optional(textOrNull),
  capacityType: optional(textOrNull),
};

const ALERTS = fields({
  // `key`: written since incident keys; older records have none (core/incident-keys.ts derives it).
  incidents: byNode(
    fields({ ...SNAPSHOT, openedAt: time, lastNotifiedAt: time, key: optional(text) }),
  ),
  flaps: byNode(
    fields({
      transitions: list(time),
      flapping: optional(
        fields({
          since: time,
          lastTransitionAt: time,
          node: fields(SNAPSHOT),
          resolution: optional(text),
          key: optional(text),
        }),
      ),
    }),
  ),
  watchdog: nullable(
    fields({
      failure: text,
      message: text,
      since: time,
      failures: optional(time),
      lastNotifiedAt: nullable(time),
    }),
  ),
  storm: nullable(
    fields({ scope: text, zones: list(text), nodeGroups: optional(list(text)), since: time }),
  ),
  degraded: optional(nullable(fields({ since: time, message: text }))),
  removals: optional(byNode(time)),
  gathering: optional(time),
});

/** The alert state a document holds; throws an Error naming the first malformed field. */
export function readAlertState(value: unknown): AlertState {
  ALERTS(value, 'alerts');
  return value as AlertState;
}
