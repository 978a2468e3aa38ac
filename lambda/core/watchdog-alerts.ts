/**
 * The read-failure lifecycle: what a failed read of a cluster does to the alert state. Pure: no
 * I/O, no clock (`now` is an argument, epoch ms on the watchdog's clock). Re-exported from
 * `incidents.ts`.
 *
 * - The first failed read opens a watchdog incident: WATCHDOG, critical, `watchdog.state` 'failing'.
 * - While reads keep failing: silent, except at the reminder interval (0 = off) and once when the
 *   failure class changes (`since` stays the first failure; the latest message is kept).
 * - A failed read never touches node incidents, flap records or the storm, and sends no node
 *   reminders (those that fell due go out with the next successful check): a cluster that cannot
 *   be read must not look healthy, nor be guessed at.
 * - The next successful check resolves the watchdog incident (`alertsForEvaluation`: 'resolved'
 *   with the failure, last message and since, grouped with that check's node changes).
 * - State: the same object comes back when nothing in it changed.
 */
import { type AlertOutcome, type AlertPolicy, reminderDue } from './alert-policy.js';
import type { AlertState } from './alert-state.js';
import { composeNotification } from './grouping.js';
import type { ClusterReadFailure } from './model.js';

/** After a failed read of a cluster. Node incidents, flap records and the storm stay as they are. */
export function alertsForReadFailure(
  cluster: string,
  failure: ClusterReadFailure | 'unknown',
  message: string,
  state: AlertState,
  policy: AlertPolicy,
  now: number,
): AlertOutcome {
  const previous = state.watchdog;
  const notify =
    previous === null ||
    previous.failure !== failure ||
    reminderDue(previous.lastNotifiedAt, policy, now);
  const since = previous?.since ?? now;
  const lastNotifiedAt = notify ? now : (previous?.lastNotifiedAt ?? now);
  const unchanged =
    previous !== null &&
    previous.failure === failure &&
    previous.message === message &&
    previous.lastNotifiedAt === lastNotifiedAt;
  const next: AlertState = unchanged
    ? state
    : { ...state, watchdog: { failure, message, since, lastNotifiedAt } };
  const notification = notify
    ? composeNotification({
        cluster,
        at: now,
        firing: [],
        resolved: [],
        reminders: [],
        flapping: [],
        watchdog: { state: 'failing', failure, message, since },
      })
    : null;
  return { notification, state: next };
}
