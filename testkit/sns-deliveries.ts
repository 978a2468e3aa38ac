/**
 * What the local SNS endpoint (sns-server.ts) accepted, decoded, in order, and what each kind of
 * subscription gets of it. On a FIFO topic a deduplication id repeated within 5 minutes is
 * accepted but not delivered again (the same MessageId comes back, with a new sequence number).
 */
import { randomUUID } from 'node:crypto';
import type { Publication } from './sns-publish-rules.js';

export const FIFO_DEDUP_WINDOW_MS = 5 * 60 * 1000;

export interface ReceivedMessage extends Omit<Publication, 'fifo' | 'rawMessage'> {
  readonly messageId: string;
  /** The Message parameter exactly as published. */
  readonly rawMessage?: string | undefined;
  /** Server clock (epoch ms) at which it was accepted. */
  readonly receivedAt: number;
}

/** The messages accepted, and the FIFO deduplication memory. */
export class Deliveries {
  readonly messages: ReceivedMessage[] = [];
  /** Publishes accepted as duplicates of an earlier FIFO deduplication id. */
  duplicates = 0;
  readonly #seen = new Map<string, { messageId: string; at: number }>();
  #sequence = 10_000_000_000_000_000n;

  /** Accepts `publication` at `at` (server clock): its MessageId, and on a FIFO topic its sequence number. */
  accept(publication: Publication, at: number): { messageId: string; sequenceNumber?: string } {
    const { fifo, ...received } = publication;
    const key = `${publication.topicArn}\n${publication.messageDeduplicationId}`;
    if (fifo) {
      const earlier = this.#seen.get(key);
      this.#sequence += 1n;
      if (earlier && at - earlier.at < FIFO_DEDUP_WINDOW_MS) {
        this.duplicates += 1;
        return { messageId: earlier.messageId, sequenceNumber: String(this.#sequence) };
      }
    }
    const messageId = randomUUID();
    if (fifo) this.#seen.set(key, { messageId, at });
    this.messages.push({ messageId, ...received, receivedAt: at });
    return fifo ? { messageId, sequenceNumber: String(this.#sequence) } : { messageId };
  }

  reset(): void {
    this.messages.length = 0;
    this.duplicates = 0;
    this.#seen.clear();
  }
}

/** What a subscription of `protocol` receives of a message: its entry, else `default`. */
export function deliveredAs(message: ReceivedMessage, protocol: string): string {
  if (!message.structure) return message.message;
  return message.structure[protocol] ?? message.structure.default ?? message.message;
}
