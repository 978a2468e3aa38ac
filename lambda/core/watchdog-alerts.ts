/**
 * The read-failure lifecycle: what a failed read of a cluster does to the alert state. Pure: no
 * I/O, no clock (`now` is an argument, epoch ms on the watchdog's clock).
 *
 * - The first failed read opens a watchdog incident, silently: the failing streak is remembered
 *   (`failures`, `since` the first failure) but nothing is paged yet.
 * - Once the cluster has been unreadable for `unreadableBeforePageSeconds` or longer (the grace
 *   period: from the first failed read of the streak to this one) and reads have failed on at
 *   least `readFailuresBeforePage` checks in a row (whatever failed in each), the WATCHDOG pages:
 *   critical, `watchdog.state` 'failing', `since` the first failure. Time, not the count, is what
 *   a watchdog that looks every 20 s needs: three failed looks inside a 45 s blip page nothing.
 * - While reads keep failing after the page: silent, except at the reminder interval (0 = off). A
 *   change in what fails (unreachable, then TLS) updates the record (the failure class and the
 *   latest message, shown by the next reminder and the resolution) but is not a second page.
 * - A failed read never touches node incidents, flap records or the storm, and sends no node
 *   reminders (those that fell due go out with the next successful check): a cluster that cannot
 *   be read must not look healthy, nor be guessed at.
 * - The next successful check ends the watchdog incident (`alertsForEvaluation`): 'resolved' with
 *   the failure, last message and since, grouped with that check's node changes, when it paged;
 *   silently when it had not paged yet.
 * - State: the same object comes back when nothing in it changed.
 *
 * Also here: the watchdog's notices about itself that are not read failures (kind NOTICE, sent on
 * their own): degraded checks (`alertsForDegraded`), and a reset of unreadable state or silences
 * set aside (`setAsideNotice`).
 */
import { type AlertOutcome, type AlertPolicy, reminderDue } from './alert-policy.js';
import type { AlertState, DegradedChecks, WatchdogIncident } from './alert-state.js';
import { composeNotification, notificationId } from './grouping.js';
import { incidentKey } from './incident-keys.js';
import type { ClusterReadFailure } from './model.js';
import { FLEET_CLUSTER, type NoticeInfo, type Notification } from './notification.js';

/** A failed read of a cluster: what alertsForReadFailure is told. */
interface ReadFailure {
  readonly cluster: string;
  readonly failure: ClusterReadFailure | 'unknown';
  readonly message: string;
}

/** After a failed read of a cluster. Node incidents, flap records and the storm stay as they are. */
export function alertsForReadFailure(
  { cluster, failure, message }: ReadFailure,
  state: AlertState,
  policy: AlertPolicy,
  now: number,
): AlertOutcome {
  const previous = state.watchdog;
  const paged = previous !== null && previous.lastNotifiedAt !== null;
  const threshold = Math.max(1, policy.readFailuresBeforePage);
  // Records from before the count were paged; a paged streak is not counted further.
  const failures = paged
    ? (previous.failures ?? threshold)
    : Math.min((previous?.failures ?? 0) + 1, threshold);
  const since = previous?.since ?? now;
  const confirmed =
    failures >= threshold && now - since >= policy.unreadableBeforePageSeconds * 1000;
  const notify = paged
    ? previous.lastNotifiedAt !== null && reminderDue(previous.lastNotifiedAt, policy, now)
    : confirmed;
  const lastNotifiedAt = notify ? now : (previous?.lastNotifiedAt ?? null);
  const record: WatchdogIncident = { failure, message, since, failures, lastNotifiedAt };
  const next: AlertState = sameRecord(previous, record) ? state : { ...state, watchdog: record };
  const key = incidentKey('watchdog', cluster, '', since);
  const notification = notify
    ? composeNotification({
        cluster,
        at: now,
        firing: [],
        resolved: [],
        reminders: [],
        flapping: [],
        watchdog: { state: 'failing', failure, message, since, key },
      })
    : null;
  return { notification, state: next };
}

function sameRecord(previous: WatchdogIncident | null, next: WatchdogIncident): boolean {
  return (
    previous !== null &&
    previous.failure === next.failure &&
    previous.message === next.message &&
    previous.since === next.since &&
    (previous.failures ?? next.failures) === next.failures &&
    previous.lastNotifiedAt === next.lastNotifiedAt
  );
}

/**
 * The degraded-check lifecycle (the Nodes cannot be read, the leases can): one NOTICE when checks
 * of the cluster become degraded ('started', warning), none while they stay so (whatever the
 * reader's line says meanwhile), one when a check is complete again ('ended', info). Called after
 * each successful check with its `evaluation.degraded`, on the state the node lifecycle returned
 * (`previous`: the record before the check; the node lifecycle does not carry it). A failed read
 * says nothing about it: the record stays.
 */
export function alertsForDegraded(
  cluster: string,
  { degraded, previous }: { degraded: string | undefined; previous: DegradedChecks | null },
  state: AlertState,
  now: number,
): AlertOutcome {
  const record: DegradedChecks | null =
    degraded === undefined ? null : (previous ?? { since: now, message: degraded });
  const next: AlertState =
    (state.degraded ?? null) === record ? state : { ...state, degraded: record };
  const notice: NoticeInfo | null =
    record !== null && previous === null
      ? { topic: 'degraded', state: 'started', message: record.message, since: record.since }
      : record === null && previous !== null
        ? { topic: 'degraded', state: 'ended', message: previous.message, since: previous.since }
        : null;
  return { notification: notice ? composeNotice(cluster, now, notice) : null, state: next };
}

/**
 * The NOTICE of what a check could not honour and set aside (sent once, by the store that did): a
 * stored state that could not be read and was reset, or stored silences.
 */
export function setAsideNotice(
  cluster: string,
  topic: 'state-reset' | 'silences-set-aside',
  aside: { readonly reason: string; readonly copy: string },
  now: number,
): Notification {
  return composeNotice(cluster, now, { topic, message: aside.reason, copy: aside.copy });
}

/**
 * The fleet's NOTICE that clusters' checks stopped (`started`), or succeed again (`ended`):
 * `clusters` are the ones that changed, `overdue` how many are overdue now, `afterMs` how long
 * without a successful check makes a cluster overdue.
 */
export function checksOverdueNotice(
  state: 'started' | 'ended',
  clusters: readonly string[],
  { overdue, afterMs }: { readonly overdue: number; readonly afterMs: number },
  now: number,
): Notification {
  const sorted = [...clusters].sort();
  const minutes = Math.round(afterMs / 60_000);
  const message =
    state === 'started'
      ? `no successful check for ${minutes} minutes or more: ${sorted.join(', ')}`
      : `checked successfully again: ${sorted.join(', ')}`;
  return composeNotice(FLEET_CLUSTER, now, {
    topic: 'checks-overdue',
    state,
    clusters: sorted,
    overdue,
    message,
  });
}

/**
 * A NOTICE on its own: no node lists; warning, or info when a degraded (or overdue) stretch ends
 * and for discovery's news but a tag ignored, a name taken twice or settings changed by tags.
 */
export function composeNotice(cluster: string, at: number, notice: NoticeInfo): Notification {
  const info =
    ((notice.topic === 'degraded' || notice.topic === 'checks-overdue') &&
      notice.state === 'ended') ||
    (notice.topic === 'discovery' &&
      notice.change !== 'tag-invalid' &&
      notice.change !== 'same-name' &&
      notice.change !== 'settings-changed');
  const severity = info ? 'info' : 'warning';
  const body = {
    cluster,
    kind: 'NOTICE' as const,
    severity,
    at,
    firing: [],
    resolved: [],
    reminders: [],
    flapping: [],
    notice,
  } satisfies Omit<Notification, 'id'>;
  return { id: notificationId(body), ...body };
}
