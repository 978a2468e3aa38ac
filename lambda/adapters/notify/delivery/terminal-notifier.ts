/**
 * The terminal notifier: prints each notification as the email would read (subject, then body)
 * between separator lines. For the CLI and the demo. The text is already free of control
 * characters (the renderer strips them), so hostile names cannot send escape sequences to the
 * terminal.
 */

import type { Notification } from '../../../core/notification.js';
import type { Notifier } from '../../../ports/index.js';
import { type RenderContext, renderBody, renderSubject } from '../render/render.js';

export const SEPARATOR = '='.repeat(78);

export class TerminalNotifier implements Notifier {
  constructor(
    private readonly write: (text: string) => void,
    /** How each cluster is set up, for the email body (default: leases in kube-node-lease). */
    private readonly options: { contextFor?: (cluster: string) => RenderContext } = {},
  ) {}

  async publish(notification: Notification, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.write(renderTerminal(notification, this.options.contextFor?.(notification.cluster)));
  }
}

/** Subject and body as one block of text, ending with a newline. */
function renderTerminal(notification: Notification, context: RenderContext = {}): string {
  return [
    SEPARATOR,
    `Subject: ${renderSubject(notification)}`,
    SEPARATOR,
    renderBody(notification, context),
    SEPARATOR,
    '',
  ].join('\n');
}
