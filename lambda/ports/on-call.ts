/** Paging tools (PagerDuty, Opsgenie, …): a sender per receiver, one event at a time. */
import type { OnCallEvent } from '../core/on-call-events.js';

/** A receiver's name (lambda/adapters/on-call/receivers.ts): `pagerduty`, `opsgenie`, … */
export type OnCallTool = string;

/** One event waiting for one tool, in the on-call outbox (ClusterState `onCall`). */
export interface PendingOnCall {
  readonly tool: OnCallTool;
  readonly event: OnCallEvent;
  /** Attempts that failed so far. */
  readonly attempts: number;
  /** When it was last attempted (watchdog clock, epoch ms); absent: not yet. */
  readonly lastTriedAt?: number | undefined;
  /** How long it has been tried, each attempt counting at most STEP_MAX_MS (use-cases/outbox-publishing.ts). */
  readonly triedForMs?: number | undefined;
  /** The tool rate-limited it: nothing goes to the tool before then (watchdog clock, epoch ms). */
  readonly notBefore?: number | undefined;
}

/**
 * An incident a receiver was sent that the lane remembers until its resolve is done with
 * (ClusterState `onCallOpen`): the key version its trigger went under, and for a group incident
 * the node incident keys still open under it.
 */
export interface OpenOnCall {
  readonly tool: OnCallTool;
  readonly key: string;
  readonly version?: string | undefined;
  readonly members?: readonly string[] | undefined;
  /** A receiver that `refresh`es: the trigger it took, sent again at each check until the resolve. */
  readonly event?: OnCallEvent | undefined;
}

export interface OnCallSender {
  readonly tool: OnCallTool;
  readonly send: SendOnCall;
  /** Its open incidents' triggers are sent again at each check (Alertmanager: on-call-delivery.ts). */
  readonly refresh?: boolean | undefined;
}

/**
 * Resolves once the tool accepted the event, with the version of the key it went under (the
 * secret's VersionId); throws OnCallSendError otherwise. `version`: send under that version of
 * the key (its trigger's), or the current one when absent or no longer kept. `trigger`: the
 * trigger of the event's incident, when the lane keeps it (a receiver that refreshes).
 */
export type SendOnCall = (
  event: OnCallEvent,
  signal: AbortSignal,
  version?: string,
  trigger?: OnCallEvent,
) => Promise<string | undefined>;

/**
 * The deployment's share of a tool's rate limit: every container and every cluster's lane takes
 * a slot of the key's current window before sending under it.
 */
export interface SendSlots {
  /** Takes one of the `limit` slots of `window` (a key's window, named by the sender); false when none is left. */
  take(window: string, limit: number, signal: AbortSignal): Promise<boolean>;
}

/**
 * A tool did not take an event, and whether to try again: the one retry rule of every receiver.
 * `retryable`: a fault that passes (429, 5xx, the network, a timeout, the secret unreadable) or
 * that a person can fix (a key refused: 401, 403, 404, a 400 that blames the key), tried again by
 * the next checks until the time-based give-up; otherwise poison (a request the tool calls
 * malformed), given up at once. Any other error a sender throws (a rendering failure) is poison
 * too. The message is one line and never holds the routing or API key.
 */
export class OnCallSendError extends Error {
  override readonly name = 'OnCallSendError';
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The HTTP status, when the tool answered (429: rate-limited, by the tool or by us). */
    readonly status?: number,
    /** How long the tool asked to wait (`Retry-After`), ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}
