/**
 * The terminal notifier: prints each notification as the email would read (subject, then body)
 * between separator lines. For the CLI and the demo. The text is already free of control
 * characters (the renderer strips them), so hostile names cannot send escape sequences to the
 * terminal.
 */
import type { Notification, Notifier } from '../core/notification.js';
import { renderBody, renderSubject } from './render.js';

export const SEPARATOR = '='.repeat(78);

export class TerminalNotifier implements Notifier {
  readonly #write: (text: string) => void;

  constructor(write: (text: string) => void) {
    this.#write = write;
  }

  async publish(notification: Notification, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.#write(renderTerminal(notification));
  }
}

/** Subject and body as one block of text, ending with a newline. */
export function renderTerminal(notification: Notification): string {
  return [
    SEPARATOR,
    `Subject: ${renderSubject(notification)}`,
    SEPARATOR,
    renderBody(notification),
    SEPARATOR,
    '',
  ].join('\n');
}
