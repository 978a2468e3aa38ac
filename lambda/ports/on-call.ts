/** Paging tools (PagerDuty, Opsgenie): a sender per tool, one event at a time. */
import type { OnCallEvent } from '../core/on-call-events.js';

export type OnCallTool = 'pagerduty' | 'opsgenie';

/** One event waiting for one tool, in the on-call outbox (ClusterState `onCall`). */
export interface PendingOnCall {
  readonly tool: OnCallTool;
  readonly event: OnCallEvent;
  /** Attempts that failed so far. */
  readonly attempts: number;
  /** When it was first attempted (watchdog clock, epoch ms); absent: not yet. */
  readonly firstTriedAt?: number;
}

/**
 * An incident a receiver was sent that the lane must remember until it resolves (ClusterState
 * `onCallOpen`): a group incident and the node incident keys still open under it.
 */
export interface OpenOnCall {
  readonly tool: OnCallTool;
  readonly key: string;
  readonly members?: readonly string[] | undefined;
}

export interface OnCallSender {
  readonly tool: OnCallTool;
  /** Resolves once the tool accepted the event; throws OnCallSendError otherwise. */
  send(event: OnCallEvent, signal: AbortSignal): Promise<void>;
}

/**
 * A tool did not take an event. `retryable`: try again on a later check (429, 5xx, the network, a
 * timeout); otherwise the tool refused it for good (400: the event is wrong) and it is dropped.
 * The message is one line and never holds the routing or API key.
 */
export class OnCallSendError extends Error {
  override readonly name = 'OnCallSendError';
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The HTTP status, when the tool answered. */
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
