/**
 * Re-checks by SQS message timers: one `SendMessage` per suspect's re-check, and the routine looks
 * of a scheduled run in one `SendMessageBatch` (up to 10 a request, each with its own delay; SQS
 * bills a batch as one request per 64 KB), delayed by whole seconds (SQS
 * allows 0–900 s per message), on the queue whose event source mapping invokes the function. The
 * body is the event of that invocation: `{ "cluster": "prod", "look": { "suspects": ["node-a", ...] } }`
 * (the suspects' names, at most MAX_NAMED; they are for the logs: a re-check reads the lease list);
 * a routine look names none and carries the start of the scheduled run that asked for it
 * (`"run": <epoch ms>`: a later run supersedes it, use-cases/look-requests.ts).
 *
 * The client is built by the composition root and passed in (tests point it at a local endpoint).
 */
import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Looks } from '../../ports/index.js';

/** Messages in one SendMessageBatch at most (SQS's limit). */
export const MAX_BATCH = 10;
/** SQS's longest per-message delay. */
export const MAX_DELAY_SECONDS = 900;
/** Suspects named in one message body (a frozen cluster has thousands; the look reads them all). */
export const MAX_NAMED = 20;

export interface SqsLooksOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  /** The watchdog's clock, epoch ms. */
  readonly clock: () => number;
}

/** SQS did not take a re-check. */
export class LookRequestError extends Error {
  override readonly name = 'LookRequestError';
}

export class SqsLooks implements Looks {
  constructor(private readonly options: SqsLooksOptions) {}

  async schedule(
    cluster: string,
    leases: readonly string[],
    at: number,
    signal?: AbortSignal,
  ): Promise<void> {
    const { client, queueUrl } = this.options;
    const body = { cluster, look: { suspects: leases.slice(0, MAX_NAMED) } };
    try {
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(body),
          DelaySeconds: this.delayOf(at),
        }),
        signal ? { abortSignal: signal } : {},
      );
    } catch (error) {
      const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new LookRequestError(`SQS did not take a re-check of cluster ${cluster}: ${what}`, {
        cause: error,
      });
    }
  }

  async scheduleLooks(
    cluster: string,
    at: readonly number[],
    run: number,
    signal?: AbortSignal,
  ): Promise<void> {
    const { client, queueUrl } = this.options;
    const body = JSON.stringify({ cluster, look: { suspects: [], run } });
    for (let first = 0; first < at.length; first += MAX_BATCH) {
      const entries = at.slice(first, first + MAX_BATCH).map((when, i) => ({
        Id: `look-${first + i}`,
        MessageBody: body,
        DelaySeconds: this.delayOf(when),
      }));
      let failed: readonly { Code?: string | undefined; Message?: string | undefined }[];
      try {
        const answer = await client.send(
          new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }),
          signal ? { abortSignal: signal } : {},
        );
        failed = answer.Failed ?? [];
      } catch (error) {
        const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        throw new LookRequestError(`SQS did not take the looks at cluster ${cluster}: ${what}`, {
          cause: error,
        });
      }
      if (failed.length > 0) {
        const why = failed.map((f) => `${f.Code ?? '?'}: ${f.Message ?? ''}`).join('; ');
        throw new LookRequestError(
          `SQS did not take ${failed.length} of ${entries.length} looks at cluster ${cluster}: ${why}`,
        );
      }
    }
  }

  /** Whole seconds until `at`, rounded up (a look never comes before the moment asked for). */
  private delayOf(at: number): number {
    const delay = Math.ceil((at - this.options.clock()) / 1000);
    return Math.min(MAX_DELAY_SECONDS, Math.max(0, delay));
  }
}
