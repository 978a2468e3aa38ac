/**
 * Delivering on-call events (core/on-call-events.ts) to the paging tools: each tool a lane of its
 * own beside the topic, never behind it (SNS refusing never silences PagerDuty) nor in its way.
 *
 * - The events of the notifications a check makes join the on-call outbox in the claim that saves
 *   them in the topic's outbox (check-cycle.ts), one entry per tool, oldest first: made once,
 *   whatever the topic does with them. A receiver that refreshes (Alertmanager) also gets the
 *   trigger of each of its open incidents again at every check, until the resolve (refreshed),
 *   after the other receivers' events.
 * - The outbox is sent oldest first within ON_CALL_BUDGET_MS and the run's deadline. An event the
 *   tool took leaves it. One it did not take for a reason that may pass (429, 5xx, the network, a
 *   timeout, the secret unreadable) or that a person can fix (a key refused) stays, its
 *   `attempts` counted, and is sent again by the next checks; the later events of the same
 *   incident and tool wait behind it, so a resolve never overtakes its trigger. A 429 pauses the
 *   whole tool, every lane, for its `Retry-After` or a backoff (throttled), so a rate-limited key
 *   gets one request per pause, not one per incident.
 * - Given up, and dropped: poison (a request the tool calls malformed, an event that cannot be
 *   rendered: all but a retryable OnCallSendError), one still refused after ON_CALL_GIVE_UP_MS of
 *   attempts (counted on the checks' steps: outbox-publishing.ts, checkStep), and the oldest beyond
 *   ON_CALL_OUTBOX_MAX.
 * - Every failed attempt and every event given up is logged (`on-call event not delivered`, with
 *   the tool, the incident key, the error: never the routing or API key) and counted in the metric
 *   `OnCallEventsFailed`.
 */
import type { Notification } from '../core/notification.js';
import { groupResolved, type OnCallEvent, onCallEvents } from '../core/on-call-events.js';
import {
  type ClusterState,
  type MetricsRecorder,
  OnCallSendError,
  type OnCallSender,
  type OnCallTool,
  type OpenOnCall,
  type PendingOnCall,
  type StructuredLogger,
} from '../ports/index.js';
import { checkStep, GIVE_UP_AFTER_MS } from './outbox-publishing.js';

/** How long sending the on-call outbox may take in one run, at most. */
export const ON_CALL_BUDGET_MS = 4_000;
/**
 * An event still refused after this much time of attempts is given up: SNS's own give-up
 * (GIVE_UP_AFTER_MS, 30 min), for the same reason: a refused key or integration is fixed by a
 * person in minutes once the `OnCallEventsFailed` alarm told them, and an outage of the tool longer
 * than that is the email's to cover (SNS is a lane of its own).
 */
export const ON_CALL_GIVE_UP_MS = GIVE_UP_AFTER_MS;
/** The first wait after a 429 without `Retry-After`, doubled at each further attempt. */
export const ON_CALL_BACKOFF_MS = 30_000;
/** The longest wait after a 429 without `Retry-After`. */
export const ON_CALL_BACKOFF_MAX_MS = 5 * 60_000;
/** The most open incidents the lanes remember (the oldest are forgotten first). */
export const ON_CALL_OPEN_MAX = 5_000;
/** The most events the on-call outbox keeps (the oldest are given up first). */
export const ON_CALL_OUTBOX_MAX = 500;

export interface OnCallDeps {
  readonly senders: readonly OnCallSender[];
  readonly clock: () => number;
  readonly logger?: StructuredLogger | undefined;
  readonly metrics?: Pick<MetricsRecorder, 'record'> | undefined;
}

/** A cluster's on-call lanes as its state keeps them. */
export type OnCallLanes = Pick<ClusterState, 'onCall' | 'onCallOpen'>;

/**
 * The lanes with the events of the check's `notifications` added, for every tool (capped, oldest
 * dropped); without paging tools, the lanes as they were.
 */
export function withFresh(
  cluster: string,
  lanes: OnCallLanes,
  notifications: readonly Notification[],
  deps: OnCallDeps | undefined,
): OnCallLanes {
  const kept = { onCall: lanes.onCall, onCallOpen: lanes.onCallOpen };
  const events = notifications.flatMap(onCallEvents);
  const refreshing = deps?.senders.some((s) => s.refresh) ?? false;
  if (deps === undefined || (events.length === 0 && !refreshing)) return kept;
  let open = lanes.onCallOpen ?? [];
  const all = [...(lanes.onCall ?? [])];
  for (const { tool } of deps.senders) {
    for (const event of events) {
      const paired = pairedEvent(tool, event, open);
      open = paired.open;
      if (paired.event) all.push({ tool, event: paired.event, attempts: 0 });
    }
  }
  const over = all.length - ON_CALL_OUTBOX_MAX;
  for (const dropped of all.slice(0, Math.max(0, over))) {
    failed({ cluster, deps }, dropped, 'given up: the on-call outbox is full', true);
  }
  const fresh = over > 0 ? all.slice(over) : all;
  const onCall = [...fresh, ...refreshed(fresh, open, deps.senders)];
  return { ...(onCall.length ? { onCall } : {}), ...(open.length ? { onCallOpen: open } : {}) };
}

/**
 * The triggers of the open incidents of the receivers that refresh (Alertmanager resolves an
 * alert that is not posted again before its `endsAt`): each sent again, unless its lane already
 * has an event waiting, in the room the outbox has left (the others' events come first).
 */
function refreshed(
  outbox: readonly PendingOnCall[],
  open: readonly OpenOnCall[],
  senders: readonly OnCallSender[],
): PendingOnCall[] {
  const tools = new Set(senders.filter((s) => s.refresh).map((s) => s.tool));
  const busy = new Set(outbox.map((p) => `${p.tool} ${p.event.key}`));
  const again = open.flatMap(({ tool, key, event }) =>
    event && tools.has(tool) && !busy.has(`${tool} ${key}`) ? [{ tool, event, attempts: 0 }] : [],
  );
  return again.slice(0, Math.max(0, ON_CALL_OUTBOX_MAX - outbox.length));
}

/**
 * What `tool`'s lane sends for `event`, and the open group incidents after it: a group's trigger
 * opens the group; a member's resolve leaves it, and the last one's resolves the group instead.
 */
function pairedEvent(
  tool: OnCallTool,
  event: OnCallEvent,
  open: readonly OpenOnCall[],
): { event: OnCallEvent | null; open: readonly OpenOnCall[] } {
  if (event.members) {
    return { event, open: [...open, { tool, key: event.key, members: event.members }] };
  }
  const group =
    event.action === 'resolve'
      ? open.find((o) => o.tool === tool && o.members?.includes(event.key))
      : undefined;
  if (group === undefined) return { event, open };
  const members = group.members?.filter((key) => key !== event.key) ?? [];
  const left = open.map((o) => (o === group ? { ...group, members } : o));
  // The last member's resolve is the group's, sent under the group's key version (sendOnCall).
  return {
    event: members.length > 0 ? null : groupResolved(event.cluster, group.key, event.at),
    open: left,
  };
}

/**
 * Sends the outbox oldest first; returns the lanes left: what to send on the next checks, and the
 * incidents open (each trigger the tool took, with its key version, until its resolve is done
 * with).
 */
export async function sendOnCall(
  cluster: string,
  lanes: OnCallLanes,
  deps: OnCallDeps,
  signal: AbortSignal | undefined,
): Promise<OnCallLanes> {
  const outbox = lanes.onCall ?? [];
  const open = new Map((lanes.onCallOpen ?? []).map((o) => [`${o.tool} ${o.key}`, o]));
  const budget = AbortSignal.timeout(ON_CALL_BUDGET_MS);
  const limit = signal ? AbortSignal.any([signal, budget]) : budget;
  const senders = new Map(deps.senders.map((s) => [s.tool, s]));
  const waiting = new Set<string>();
  // A tool that rate-limited us gets nothing until it said (or our backoff says), on any lane.
  const now = deps.clock();
  const paused = new Set(outbox.filter((p) => (p.notBefore ?? 0) > now).map((p) => p.tool));
  const left: PendingOnCall[] = [];
  // A receiver that refreshes goes last, and gets nothing more in a run once it failed: its posts
  // of every open incident must never spend the budget the other receivers' events need.
  const last = (p: PendingOnCall) => senders.get(p.tool)?.refresh === true;
  for (const pending of [...outbox.filter((p) => !last(p)), ...outbox.filter(last)]) {
    const lane = `${pending.tool} ${pending.event.key}`;
    const sender = senders.get(pending.tool);
    if (sender === undefined) continue; // the tool was switched off: nothing to send it to
    if (limit.aborted || waiting.has(lane) || paused.has(pending.tool)) {
      left.push(pending);
      continue;
    }
    const kept = await attempt(pending, sender, { cluster, deps, signal: limit, open });
    if (kept !== null) {
      left.push(kept);
      waiting.add(lane);
      if (kept.notBefore !== undefined || sender.refresh) paused.add(pending.tool);
    }
  }
  const stillOpen = [...open.values()].slice(-ON_CALL_OPEN_MAX);
  return { onCall: left, ...(stillOpen.length ? { onCallOpen: stillOpen } : {}) };
}

/** What one attempt works with: the run's cluster, parts and signal, and the open incidents. */
interface Attempt {
  readonly cluster: string;
  readonly deps: OnCallDeps;
  readonly signal: AbortSignal;
  readonly open: Map<string, OpenOnCall>;
}

/**
 * One attempt: null when it is done with (taken, or given up), else the entry to keep. A resolve
 * goes under its trigger's key version; a trigger taken is remembered with the version it went
 * under (and, for a receiver that refreshes, the incident's first trigger: its labels name the
 * alert), until its resolve is done with.
 */
async function attempt(
  pending: PendingOnCall,
  sender: OnCallSender,
  { cluster, deps, signal, open }: Attempt,
): Promise<PendingOnCall | null> {
  const now = deps.clock();
  const { tool, event } = pending;
  const id = `${tool} ${event.key}`;
  const opened = open.get(id);
  try {
    const resolve = event.action === 'resolve';
    const under = resolve ? opened?.version : undefined;
    const version = await sender.send(event, signal, under, opened?.event);
    const first = sender.refresh ? { event: opened?.event ?? event } : {};
    if (resolve) open.delete(id);
    else if (version !== undefined || sender.refresh)
      open.set(id, { ...opened, tool, key: event.key, version, ...first });
    return null;
  } catch (error) {
    // Only a refusal the sender classed as retryable is retried: anything else is poison.
    const retryable = error instanceof OnCallSendError && error.retryable;
    const message = error instanceof Error ? error.message : String(error);
    const triedForMs = (pending.triedForMs ?? 0) + checkStep(pending.lastTriedAt, now);
    const kept = {
      ...pending,
      ...{ attempts: pending.attempts + 1, lastTriedAt: now, triedForMs },
      notBefore: throttled(error, pending.attempts, now),
    };
    const givenUp = !retryable || triedForMs >= ON_CALL_GIVE_UP_MS;
    failed({ cluster, deps }, kept, message, givenUp);
    if (givenUp && event.action === 'resolve') open.delete(id);
    return givenUp ? null : kept;
  }
}

/**
 * Until when a tool that answered 429 gets nothing: its `Retry-After`, or else
 * ON_CALL_BACKOFF_MS doubled at each attempt up to ON_CALL_BACKOFF_MAX_MS (PagerDuty asks for
 * retries at least 30 s apart, or a backoff of minutes). Undefined for any other failure.
 */
function throttled(error: unknown, attempts: number, now: number): number | undefined {
  if (!(error instanceof OnCallSendError) || error.status !== 429) return undefined;
  const backoff = Math.min(
    ON_CALL_BACKOFF_MS * 2 ** Math.min(attempts, 10),
    ON_CALL_BACKOFF_MAX_MS,
  );
  return now + (error.retryAfterMs ?? backoff);
}

function failed(
  { cluster, deps }: Pick<Attempt, 'cluster' | 'deps'>,
  pending: PendingOnCall,
  error: string,
  givenUp: boolean,
): void {
  deps.metrics?.record(cluster, 'OnCallEventsFailed', 1, { extra: { receiver: pending.tool } });
  deps.logger?.warn('on-call event not delivered', {
    cluster,
    tool: pending.tool,
    action: pending.event.action,
    incidentKey: pending.event.key,
    attempts: pending.attempts,
    givenUp,
    error,
  });
}
