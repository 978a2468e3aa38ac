/**
 * Notification events: after the notification topic accepted a notification, the same versioned
 * JSON document that SNS's machine protocols get (document.ts) is put on an EventBridge event bus
 * (`eventBus`) as one event, for rules that route to PagerDuty, Opsgenie or any HTTP API through
 * API destinations.
 *
 * The event: `Source` "lease-watchdog", `DetailType` "Lease Watchdog Notification" (one
 * detail-type, because every kind has the same detail structure: rules choose by `detail.kind`,
 * `detail.cluster`, `detail.nodeGroups`...), `Time` the check's time, `Detail` the document, no
 * `Resources` (the nodes' names and instance ids are in the detail; the function does not know
 * every cluster's ARN).
 *
 * Bounded: the document is at most DOCUMENT_MAX_BYTES (32,000) bytes, the nodes listed while they
 * fit and `nodesOmitted` counting the rest, so an entry stays far below PutEvents' 256 KB (one
 * EventBridge refused is a failure like any other). One attempt lasts at most EVENT_TIMEOUT_MS.
 *
 * The notification topic stays the record: `publish` resolves once it accepted the notification,
 * as before. The event is then put once; when that fails (an error, or PutEvents answering 200
 * with `FailedEntryCount` > 0 and the entry's error code), the failure is logged
 * (`notification event not put`) and counted (`NotificationEventsFailed`), and the notification is
 * not sent again: an EventBridge outage neither delays for long nor duplicates the emails.
 */
import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { Notification } from '../../../core/notification.js';
import type { MetricsRecorder, Notifier } from '../../../ports/index.js';
import { renderDocument } from '../render/document.js';
import { CopyAfterAccept, type CopyLogger, failureFields, oneLine } from './copy-after-accept.js';

export const EVENT_SOURCE = 'lease-watchdog';
export const EVENT_DETAIL_TYPE = 'Lease Watchdog Notification';
/** How long putting one event may take (the SDK's retries included). */
export const EVENT_TIMEOUT_MS = 5_000;

export interface EventNotifierOptions {
  readonly client: EventBridgeClient;
  /** The event bus: its name or ARN (`eventBus`). */
  readonly eventBus: string;
  readonly logger?: CopyLogger | undefined;
  readonly metrics?: Pick<MetricsRecorder, 'record'> | undefined;
}

/** The PutEvents entry of a notification. */
export function notificationEvent(notification: Notification, eventBus: string) {
  return {
    EventBusName: eventBus,
    Source: EVENT_SOURCE,
    DetailType: EVENT_DETAIL_TYPE,
    Time: new Date(notification.at),
    Detail: JSON.stringify(renderDocument(notification)),
  };
}

/** Publishes to `primary`, then the notification as an EventBridge event (best effort, counted). */
export class WithEventCopy extends CopyAfterAccept {
  constructor(primary: Notifier, options: EventNotifierOptions) {
    super(primary, (notification, signal) => putEvent(notification, options, signal));
  }
}

/** Puts the event once: logs `notification event put`, or logs and counts the failure. */
async function putEvent(
  notification: Notification,
  { client, eventBus, logger, metrics }: EventNotifierOptions,
  signal: AbortSignal | undefined,
): Promise<void> {
  const entry = notificationEvent(notification, eventBus);
  const fields = { notificationId: notification.id, kind: notification.kind, eventBus };
  const failed = (error: string, detail: string) => {
    metrics?.record(notification.cluster, 'NotificationEventsFailed', 1);
    logger?.warn('notification event not put', { ...fields, error, detail });
  };
  const timeout = AbortSignal.timeout(EVENT_TIMEOUT_MS);
  try {
    const output = await client.send(new PutEventsCommand({ Entries: [entry] }), {
      abortSignal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    const result = output.Entries?.[0];
    if ((output.FailedEntryCount ?? 0) > 0 || result?.EventId === undefined) {
      failed(oneLine(result?.ErrorCode) || 'FailedEntry', oneLine(result?.ErrorMessage));
      return;
    }
    logger?.info('notification event put', { ...fields, eventId: result.EventId });
  } catch (error) {
    const { error: name, detail } = failureFields(error);
    failed(name, detail);
  }
}
