/**
 * A notifier that passes each notification on elsewhere once the notification topic accepted it
 * (the chat copy, chat-notifier.ts; the EventBridge event, event-notifier.ts). The topic stays the
 * record: `publish` resolves or fails with `primary`; the copy is made once, best effort, and a
 * failed copy is logged (and counted where it says) but never fails, delays for long, or repeats
 * the notification.
 */
import type { Notification } from '../../../core/notification.js';
import type { Notifier } from '../../../ports/index.js';
import { cleanText, squeeze, truncate } from '../render/text.js';

export abstract class CopyAfterAccept implements Notifier {
  readonly #primary: Notifier;

  constructor(primary: Notifier) {
    this.#primary = primary;
  }

  subjectOf(notification: Notification): string {
    return this.#primary.subjectOf?.(notification) ?? notification.kind;
  }

  async publish(notification: Notification, signal?: AbortSignal): Promise<void> {
    await this.#primary.publish(notification, signal);
    await this.copy(notification, signal);
  }

  /** Passes on a notification the topic accepted; resolves whether or not that worked. */
  protected abstract copy(
    notification: Notification,
    signal: AbortSignal | undefined,
  ): Promise<void>;
}

/** What a failed copy's log line says of the error: its name and first line, cleaned and cut. */
export function failureFields(error: unknown): { error: string; detail: string } {
  const e = error as { name?: unknown; message?: unknown };
  return {
    error: typeof e.name === 'string' ? oneLine(e.name) : 'Error',
    detail: oneLine(e.message),
  };
}

/** The first line of a text an AWS service sent, cleaned and cut to 160 characters ('' if none). */
export function oneLine(text: unknown): string {
  return typeof text === 'string'
    ? truncate(squeeze(cleanText(text.split('\n', 1)[0] ?? '')), 160)
    : '';
}
