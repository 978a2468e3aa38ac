/** Notifying: where notifications leave. */
import type { Notification } from '../core/notification.js';

/**
 * Where notifications leave. `publish` resolves only once the message was accepted; it rejects
 * with an error whose `retryable` is `false` when the message will never be accepted as it is
 * (e.g. SNS's InvalidParameter, a disabled KMS key, a topic that is gone).
 */
export interface Notifier {
  publish(notification: Notification, signal?: AbortSignal): Promise<void>;
  /** A one-line description of a notification for logs (the email subject). */
  subjectOf?(notification: Notification): string;
}
