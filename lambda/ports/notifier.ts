/** Notifying: where notifications leave. */
import type { Notification } from '../core/notification.js';

/**
 * Where notifications leave. `publish` resolves only once the message was accepted; it rejects
 * with an error whose `retryable` is `false` when the message will never be accepted as it is
 * (e.g. SNS's InvalidParameter, a disabled KMS key, a topic that is gone), and `true` when trying
 * again later may succeed (throttling, 5xx, no answer). An error without `retryable` (a rendering
 * exception) is taken as the message's own: refused for good.
 */
export interface Notifier {
  publish(notification: Notification, signal?: AbortSignal): Promise<void>;
  /** A one-line description of a notification for logs (the email subject). */
  subjectOf?(notification: Notification): string;
}
