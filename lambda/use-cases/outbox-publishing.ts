/**
 * Step 2 of the check cycle (check-cycle.ts): publishing the outbox it claimed. A notification
 * leaves the outbox only once the notifier accepted it, or once the notifier refused it for good on
 * MAX_REFUSALS checks (then it is given up, reported as `abandoned`, so that it never blocks the
 * notifications behind it). What this returns is what the cycle records (step 3).
 */

import type { Notification } from '../core/notification.js';
import type { Notifier } from '../ports/index.js';

/** What a check did with the outbox. */
export interface Delivery {
  /** Notifications the notifier accepted in this run. */
  readonly published: readonly Notification[];
  /** Notifications still in the outbox (retried by the next check). */
  readonly pending: readonly Notification[];
  /**
   * Notifications given up in this run: the notifier refused each for good (`retryable: false`)
   * on MAX_REFUSALS checks. They left the outbox unsent.
   */
  readonly abandoned: readonly Abandoned[];
  /** Why a publish failed (the last failure), when one did. */
  readonly publishError?: unknown;
}

export interface Abandoned {
  readonly notification: Notification;
  /** The last refusal. */
  readonly error: unknown;
}

/**
 * How many checks may try a notification that the notifier refuses for good (InvalidParameter, a
 * disabled KMS key, a topic that is gone) before it is given up: a key re-enabled or a topic
 * restored within these checks still gets it out; after them it no longer blocks anything.
 */
export const MAX_REFUSALS = 5;

/**
 * Whether a publish failure says the message will never be accepted as it is: the notifier said
 * so (`retryable: false`), or the failure is not a delivery failure at all (no `retryable`: a
 * rendering exception, a bug that this message triggers) and would happen again on every try.
 * Only a failure marked `retryable: true`, or the caller's deadline, is the notifier's trouble.
 */
function refusedForGood(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) return false;
  const retryable =
    typeof error === 'object' && error !== null
      ? (error as { retryable?: unknown }).retryable
      : undefined;
  return retryable !== true;
}

/**
 * Publishes the outbox oldest first. A notification refused for good does not stop the others: it
 * is counted, and given up at MAX_REFUSALS. A transient failure (throttling, 5xx, no answer) is
 * the notifier's trouble, not the message's: the rest waits with it, so notifications keep their
 * order (a RESOLVED never overtakes its FIRING). The deadline stops publishing.
 */
export async function publishOutbox(
  outbox: readonly Notification[],
  refused: Readonly<Record<string, number>>,
  notifier: Notifier,
  signal: AbortSignal | undefined,
): Promise<Delivery & { refusals: Record<string, number> }> {
  const published: Notification[] = [];
  const pending: Notification[] = [];
  const abandoned: Abandoned[] = [];
  const refusals: Record<string, number> = {};
  let publishError: unknown;
  let stopped = false;
  for (const notification of outbox) {
    const before = refused[notification.id] ?? 0;
    if (stopped || signal?.aborted) {
      if (!stopped && signal?.aborted) publishError = signal.reason;
      stopped = true;
      pending.push(notification);
      if (before > 0) refusals[notification.id] = before;
      continue;
    }
    try {
      await notifier.publish(notification, signal);
      published.push(notification);
    } catch (error) {
      publishError = error;
      const forGood = refusedForGood(error, signal);
      const count = forGood ? before + 1 : before;
      if (count >= MAX_REFUSALS) {
        abandoned.push({ notification, error });
        continue;
      }
      pending.push(notification);
      if (count > 0) refusals[notification.id] = count;
      if (!forGood) stopped = true;
    }
  }
  return {
    published,
    pending,
    abandoned,
    refusals,
    ...(publishError !== undefined ? { publishError } : {}),
  };
}
