/**
 * The dispatcher's fan-out (the `CheckDispatch` port) on SQS: each cluster's check one message,
 * `{ "cluster": "<name>" }` (the event of a scheduled check), with its own DelaySeconds, sent
 * `MAX_BATCH` to a SendMessageBatch and `IN_FLIGHT` requests at a time: 1,000 clusters are 100
 * requests, ten at once. A batch SQS refuses as a whole, or entries it reports failed, are tried
 * once more; what is still refused is returned (the dispatcher logs it and fails the invocation).
 *
 * The client is built by the composition root and passed in (tests point it at a local endpoint).
 */
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { CheckDispatch, DispatchedCheck } from '../../ports/index.js';
import { MAX_BATCH, MAX_DELAY_SECONDS, type SqsLooksOptions } from '../looks/sqs-looks.js';

/** SendMessageBatch requests in flight at once. */
export const IN_FLIGHT = 10;

export class SqsChecks implements CheckDispatch {
  constructor(private readonly options: Omit<SqsLooksOptions, 'clock'>) {}

  async send(checks: readonly DispatchedCheck[], signal?: AbortSignal): Promise<readonly string[]> {
    const batches: DispatchedCheck[][] = [];
    for (let first = 0; first < checks.length; first += MAX_BATCH) {
      batches.push(checks.slice(first, first + MAX_BATCH));
    }
    const refused: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const batch = batches[next++] ?? [];
        const left = await this.sendBatch(batch, signal);
        refused.push(
          ...(left.length > 0 ? await this.sendBatch(left, signal) : []).map((c) => c.cluster),
        );
      }
    };
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, batches.length) }, worker));
    return refused;
  }

  /** One SendMessageBatch; the checks SQS did not take (all of them when the request failed). */
  private async sendBatch(
    batch: readonly DispatchedCheck[],
    signal: AbortSignal | undefined,
  ): Promise<DispatchedCheck[]> {
    const entries = batch.map((check, i) => ({
      Id: `check-${i}`,
      MessageBody: JSON.stringify({ cluster: check.cluster }),
      DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.round(check.delaySeconds))),
    }));
    try {
      const answer = await this.options.client.send(
        new SendMessageBatchCommand({ QueueUrl: this.options.queueUrl, Entries: entries }),
        signal ? { abortSignal: signal } : {},
      );
      const failed = new Set((answer.Failed ?? []).map((f) => f.Id));
      return batch.filter((_, i) => failed.has(`check-${i}`));
    } catch {
      return [...batch];
    }
  }
}
