/**
 * A notifier that passes each notification on elsewhere once the notification topic accepted it
 * (the chat copy, chat-notifier.ts; the EventBridge event, event-notifier.ts). The topic stays the
 * record: `publish` resolves or fails with `primary`; the copy is made once, best effort, and a
 * failed copy is logged (and counted where it says) but never fails, delays for long, or repeats
 * the notification.
 */
import { PublishCommand, type PublishCommandInput, type SNSClient } from '@aws-sdk/client-sns';
import type { Notification } from '../../../core/notification.js';
import type { Notifier, StructuredLogger } from '../../../ports/index.js';
import { bodyText } from '../render/format.js';

/** The part of a logger a copy uses (Powertools Logger fits). */
export type CopyLogger = Pick<StructuredLogger, 'info' | 'warn'>;

/** A copy to another SNS topic: where, and `contextFor`, how each cluster is set up. */
export interface TopicCopyOptions<Context> {
  readonly client: SNSClient;
  readonly topicArn: string;
  readonly logger?: CopyLogger | undefined;
  readonly contextFor?: ((cluster: string) => Context) | undefined;
}

/** Publishes a copy to an SNS topic once: logs `<what> published`, or `<what> not published`. */
export async function publishCopy(
  input: PublishCommandInput,
  notification: Notification,
  to: {
    client: SNSClient;
    logger?: CopyLogger | undefined;
    what: string;
    signal: AbortSignal | undefined;
  },
): Promise<void> {
  const { client, logger, what, signal } = to;
  const fields = { notificationId: notification.id, kind: notification.kind };
  try {
    const output = await client.send(new PublishCommand(input), { abortSignal: signal });
    logger?.info(`${what} published`, { ...fields, messageId: output.MessageId });
  } catch (error) {
    logger?.warn(`${what} not published`, { ...fields, ...failureFields(error) });
  }
}

/** Passes on a notification the topic accepted; resolves whether or not that worked. */
export type Copy = (notification: Notification, signal: AbortSignal | undefined) => Promise<void>;

/** Publishes to `primary`, then makes the copy. */
export class CopyAfterAccept implements Notifier {
  constructor(
    private readonly primary: Notifier,
    private readonly copy: Copy,
  ) {}

  subjectOf(notification: Notification): string {
    return this.primary.subjectOf?.(notification) ?? notification.kind;
  }

  async publish(notification: Notification, signal?: AbortSignal): Promise<void> {
    await this.primary.publish(notification, signal);
    await this.copy(notification, signal);
  }
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
  return typeof text === 'string' ? bodyText(text.split('\n', 1)[0] ?? '', 160) : '';
}
