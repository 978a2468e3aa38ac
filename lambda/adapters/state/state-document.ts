/**
 * The JSON document a ClusterState is stored as, by every store (memory, file, DynamoDB), so that
 * all three keep exactly the same things (e.g. `undefined` fields vanish in all of them).
 *
 * Observations are stored column by column (names, renewTimes, changedAt): at 100,000 nodes this
 * is smaller than one object per node, and compresses better, because similar values sit together.
 * `alerts` and `outbox` are JSON values owned by the alert lifecycle; `alerts` is checked on read
 * (alert-state-document.ts), so that a malformed record is reset rather than thrown on by every check.
 */

import type { Observation } from '../../core/model.js';
import type { MissedFiring, Notification } from '../../core/notification.js';
import type { ClusterState, OpenOnCall, OutboxLock, PendingOnCall } from '../../ports/index.js';
import {
  type Check,
  fields,
  isRecord,
  list,
  nullable,
  optional,
  readAlertState,
  text,
  time,
  whole,
} from './alert-state-document.js';
import { jsonParts } from './json-parts.js';

export const STATE_DOCUMENT_FORMAT = 1;

/**
 * The stored document: the state's own records as they are (lock, refusals, given-up FIRINGs, the
 * on-call outbox and open incidents; absent when empty), the observations column by column.
 */
export type StateDocument = Omit<ClusterState, 'observations' | 'alerts' | 'outbox'> & {
  readonly format: typeof STATE_DOCUMENT_FORMAT;
  readonly observations: {
    readonly names: readonly string[];
    readonly renewTimes: readonly (string | null)[];
    readonly changedAt: readonly number[];
    /** Indexes of the observations whose changedAt is still a first-sight estimate. */
    readonly estimated?: readonly number[];
    /** The renewal on the watchdog's clock and the learned clock offset (null: none yet). */
    readonly renewedAt?: readonly (number | null)[];
    readonly offsetMs?: readonly (number | null)[];
    /** [index, suspectSince] of the observations that are suspects. */
    readonly suspects?: readonly (readonly [number, number])[];
    /** [index, expiredSince] of the observations whose silence was judged expired. */
    readonly expired?: readonly (readonly [number, number])[];
  };
  readonly alerts: unknown;
  readonly outbox: unknown;
};

export function toStateDocument(state: ClusterState): StateDocument {
  const names: string[] = [];
  const renewTimes: (string | null)[] = [];
  const changedAt: number[] = [];
  const estimated: number[] = [];
  const renewedAt: (number | null)[] = [];
  const offsetMs: (number | null)[] = [];
  const suspects: [number, number][] = [];
  const expired: [number, number][] = [];
  const refusedSince = outboxRefusals(state);
  for (const [name, observation] of state.observations) {
    if (observation.estimated) estimated.push(names.length);
    if (observation.expiredSince !== undefined) {
      expired.push([names.length, observation.expiredSince]);
    }
    if (observation.suspectSince !== undefined) {
      suspects.push([names.length, observation.suspectSince]);
    }
    renewedAt.push(observation.renewedAt ?? null);
    offsetMs.push(observation.offsetMs ?? null);
    names.push(name);
    renewTimes.push(observation.renewTime);
    changedAt.push(observation.changedAt);
  }
  return {
    format: STATE_DOCUMENT_FORMAT,
    observations: {
      names,
      renewTimes,
      changedAt,
      estimated,
      renewedAt,
      offsetMs,
      suspects,
      // Only when some silence was judged expired: a quiet cluster's state stays as small as it was.
      ...(expired.length === 0 ? {} : { expired }),
    },
    alerts: state.alerts,
    outbox: state.outbox,
    lock: state.lock ?? null,
    refusedSince,
    // Only while some notification is refused: what a clock's jump is measured from.
    ...(Object.keys(refusedSince).length && state.refusedAt ? { refusedAt: state.refusedAt } : {}),
    ...(state.givenUp ? { givenUp: state.givenUp } : {}),
    ...(state.onCall?.length ? { onCall: state.onCall } : {}),
    ...(state.onCallOpen?.length ? { onCallOpen: state.onCallOpen } : {}),
  };
}

/** When each notification still in the outbox was first refused (others are dropped). */
function outboxRefusals(state: ClusterState): Record<string, number> {
  const since: Record<string, number> = {};
  const refused = state.refusedSince ?? {};
  for (const n of state.outbox) {
    const first = refused[n.id];
    if (first !== undefined) since[n.id] = first;
  }
  return since;
}

const LOCK = nullable(fields({ owner: text, until: time }));
const GIVEN_UP = nullable(fields({ nodes: list(text), at: whole }));
const ON_CALL_EVENT = fields({
  action: (value, path) => {
    if (value !== 'trigger' && value !== 'resolve') throw new Error(`${path} is not an action`);
  },
  key: text,
  summary: text,
  source: text,
  details: fields({}),
});
/** The on-call outbox: entries with a tool, a count, and an event with its action and key. */
const ON_CALL = list(fields({ tool: text, attempts: whole, event: ON_CALL_EVENT }));
/** The paging tools' open incidents: a tool, a key, its key version, a group's member keys. */
const ON_CALL_OPEN = list(
  fields({
    tool: text,
    key: text,
    version: optional(text),
    members: optional(list(text)),
    event: optional(ON_CALL_EVENT),
  }),
);

function readRefusals(refusals: unknown): Record<string, number> {
  if (
    !isRecord(refusals) ||
    !Object.values(refusals).every((n) => typeof n === 'number' && Number.isSafeInteger(n))
  ) {
    throw new Error('refusedSince must be an object of whole numbers');
  }
  return refusals as Record<string, number>;
}

/** `value` once it passes `check` (an Error naming the first malformed field otherwise). */
function checked<T>(check: Check, value: unknown, path: string): T {
  check(value, path);
  return value as T;
}

/**
 * Reads a document back. Throws an Error whose message says what is wrong (one line, no
 * location: the caller says where the document came from).
 */
export function fromStateDocument(value: unknown): ClusterState {
  if (!isRecord(value)) throw new Error('expected a JSON object');
  if (value.format !== STATE_DOCUMENT_FORMAT) {
    throw new Error(
      `unknown format ${JSON.stringify(value.format)} (expected ${STATE_DOCUMENT_FORMAT})`,
    );
  }
  const observations = readObservations(value.observations);
  const lock = checked<OutboxLock | null>(LOCK, value.lock ?? null, 'lock');
  const refusedSince = readRefusals(value.refusedSince ?? {});
  const { refusedAt } = value;
  if (refusedAt !== undefined && !Number.isSafeInteger(refusedAt)) {
    throw new Error('refusedAt must be a whole number');
  }
  const givenUp = checked<MissedFiring | null>(GIVEN_UP, value.givenUp ?? null, 'givenUp');
  const onCall = checked<PendingOnCall[]>(ON_CALL, value.onCall ?? [], 'onCall');
  const onCallOpen = checked<OpenOnCall[]>(ON_CALL_OPEN, value.onCallOpen ?? [], 'onCallOpen');
  // Shaped by the alert lifecycle, which wrote them; checked, so that a malformed record resets.
  const alerts = readAlertState(value.alerts);
  if (!Array.isArray(value.outbox)) throw new Error('outbox must be an array');
  return {
    observations,
    alerts,
    outbox: value.outbox as Notification[],
    lock,
    refusedSince,
    ...(refusedAt === undefined ? {} : { refusedAt: refusedAt as number }),
    ...(givenUp ? { givenUp } : {}),
    ...(onCall.length > 0 ? { onCall } : {}),
    ...(onCallOpen.length > 0 ? { onCallOpen } : {}),
  };
}

/** The observations, column by column: the three every document has, then the optional ones. */
function readObservations(columns: unknown): Map<string, Observation> {
  if (!isRecord(columns)) throw new Error('observations must be an object');
  const { names, renewTimes, changedAt } = columns;
  if (!Array.isArray(names) || !Array.isArray(renewTimes) || !Array.isArray(changedAt)) {
    throw new Error('observations must hold the arrays names, renewTimes and changedAt');
  }
  if (renewTimes.length !== names.length || changedAt.length !== names.length) {
    throw new Error('observations.names, renewTimes and changedAt differ in length');
  }
  const observations = new Map<string, Observation>();
  for (let i = 0; i < names.length; i++) {
    const name: unknown = names[i];
    const renewTime: unknown = renewTimes[i];
    const at: unknown = changedAt[i];
    if (typeof name !== 'string') throw new Error(`observations.names[${i}] is not a string`);
    if (renewTime !== null && typeof renewTime !== 'string') {
      throw new Error(`observations.renewTimes[${i}] is neither a string nor null`);
    }
    if (typeof at !== 'number' || !Number.isFinite(at)) {
      throw new Error(`observations.changedAt[${i}] is not a number`);
    }
    observations.set(name, { renewTime, changedAt: at });
  }
  readColumns(columns, names as string[], observations);
  return observations;
}

/** The state as one JSON text (what the memory and file stores keep, and DynamoDB compresses). */
export function serializeClusterState(state: ClusterState): string {
  return JSON.stringify(toStateDocument(state));
}

/** `serializeClusterState`'s text in parts, none of them the whole observations (json-parts.ts). */
export function serializeClusterStateParts(state: ClusterState): Iterable<string> {
  return jsonParts(toStateDocument(state));
}

export function parseClusterState(text: string): ClusterState {
  return fromStateDocument(JSON.parse(text));
}

/**
 * The optional columns, each setting fields of the observations it names (older documents lack
 * them): the first-sight estimates, what was learned per lease (renewal-clock.ts), the suspects
 * and the expired silences.
 */
function readColumns(
  columns: Record<string, unknown>,
  names: readonly string[],
  observations: Map<string, Observation>,
): void {
  const set = (name: string, fields: Partial<Observation>) => {
    observations.set(name, { ...(observations.get(name) as Observation), ...fields });
  };
  for (const index of column(columns, 'estimated')) {
    const name = typeof index === 'number' ? names[index] : undefined;
    if (name === undefined) {
      throw new Error(
        `observations.estimated holds ${JSON.stringify(index)}, not an observation index`,
      );
    }
    set(name, { estimated: true });
  }
  for (const key of ['renewedAt', 'offsetMs'] as const) {
    const values = column(columns, key);
    if (values.length !== 0 && values.length !== names.length) {
      throw new Error(`observations.${key} and names differ in length`);
    }
    values.forEach((value: unknown, i) => {
      if (value === null) return;
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        throw new Error(`observations.${key}[${i}] is neither a number nor null`);
      }
      set(names[i] as string, { [key]: value });
    });
  }
  const marks = [
    ['suspects', 'suspectSince'],
    ['expired', 'expiredSince'],
  ] as const;
  for (const [key, field] of marks) {
    for (const entry of column(columns, key)) {
      const [index, since] = Array.isArray(entry) ? (entry as unknown[]) : [];
      const name = typeof index === 'number' ? names[index] : undefined;
      if (name === undefined || typeof since !== 'number' || !Number.isFinite(since)) {
        throw new Error(`observations.${key} holds ${JSON.stringify(entry)}, not [index, time]`);
      }
      set(name, { [field]: since });
    }
  }
}

/** An optional column of the observations (absent: empty). */
function column(columns: Record<string, unknown>, key: string): unknown[] {
  const values: unknown = columns[key] ?? [];
  if (!Array.isArray(values)) throw new Error(`observations.${key} must be an array`);
  return values;
}
