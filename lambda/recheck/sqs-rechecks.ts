/**
 * Re-checks by SQS message timers: one `SendMessage` per look, delayed by whole seconds (SQS
 * allows 0–900 s per message), on the queue whose event source mapping invokes the function. The
 * body is the event of that invocation: `{ "cluster": "prod", "recheck": ["node-a", ...] }` (the
 * suspects' names, at most MAX_NAMED; they are for the logs: a re-check reads the lease list).
 *
 * The client is built by the composition root and passed in (tests point it at a local endpoint).
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Rechecks } from '../ports.js';

/** SQS's longest per-message delay. */
export const MAX_DELAY_SECONDS = 900;
/** Suspects named in one message body (a frozen cluster has thousands; the look reads them all). */
export const MAX_NAMED = 20;

export interface SqsRechecksOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  /** The watchdog's clock, epoch ms. */
  readonly clock: () => number;
}

/** SQS did not take a re-check. */
export class RecheckError extends Error {
  override readonly name = 'RecheckError';
}

export class SqsRechecks implements Rechecks {
  constructor(private readonly options: SqsRechecksOptions) {}

  async schedule(
    cluster: string,
    leases: readonly string[],
    at: number,
    signal?: AbortSignal,
  ): Promise<void> {
    const { client, queueUrl, clock } = this.options;
    // Rounded up: a look never comes before the moment it was asked for.
    const delay = Math.ceil((at - clock()) / 1000);
    const body = { cluster, recheck: leases.slice(0, MAX_NAMED) };
    try {
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(body),
          DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, delay)),
        }),
        signal ? { abortSignal: signal } : {},
      );
    } catch (error) {
      const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new RecheckError(`SQS did not take a re-check of cluster ${cluster}: ${what}`, {
        cause: error,
      });
    }
  }
}
