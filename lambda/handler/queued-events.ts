/**
 * A batch of queued messages (SQS bodies: a dispatched check of one cluster, or a look of the
 * watchdog's own), run with no cluster waiting on another; each body is read by queued-body.ts.
 */
import type { InvocationEvent } from '../use-cases/invocation.js';

/** One message of an SQS batch, as the event source mapping hands it over (what is used). */
export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
}

/** What a batch came to: each message's clusters checked, and the messages to deliver again. */
export interface QueuedBatchResult<Report> {
  readonly clusters: Report[];
  readonly batchItemFailures: { itemIdentifier: string }[];
}

/** Every message of a batch failed: the invocation fails (the error alarm), SQS delivers them again. */
export class QueuedBatchError extends Error {
  override readonly name = 'QueuedBatchError';
}

/**
 * Runs a batch of queued messages (looks, dispatched checks): the clusters side by side, so that
 * one whose read hangs until its timeout never holds up another's; one cluster's messages one
 * after the other, in the order SQS handed them over (two checks of one cluster at once would
 * find each other's outbox taken). `run` checks what one message asks for; a message whose body
 * is not one, or whose run throws, is told to `failed` and reported for SQS to deliver again
 * (`ReportBatchItemFailures`). The reports come back in the batch's order. When every message
 * failed, it throws QueuedBatchError instead, as Powertools' `processPartialResponse` does: a
 * batch that cannot succeed at all is the function's failure, not a quiet partial response.
 */
export async function runQueuedBatch<Report>(
  records: readonly QueuedMessage[],
  run: (event: InvocationEvent) => Promise<{ readonly clusters: readonly Report[] }>,
  failed: (messageId: string, error: unknown) => void,
): Promise<QueuedBatchResult<Report>> {
  // Loaded with the first batch, not at the cold start: zod and the schema cost ~30-40 ms
  // (bundled, this machine), which a scheduled check never pays (infra-bundle.test.ts).
  const { queuedEventOf } = await import('./queued-body.js');
  const outcomes: (readonly Report[] | undefined)[] = records.map(() => undefined);
  let firstError: unknown;
  const failure = (messageId: string, error: unknown) => {
    firstError ??= error;
    failed(messageId, error);
  };
  const parsed = records.flatMap((record, index) => {
    try {
      return [{ index, event: queuedEventOf(record.body) }];
    } catch (error) {
      failure(record.messageId, error);
      return [];
    }
  });
  const lanes = Map.groupBy(parsed, ({ event }) => event.cluster ?? '');
  await Promise.all(
    [...lanes.values()].map(async (lane) => {
      for (const { index, event } of lane) {
        try {
          outcomes[index] = (await run(event)).clusters;
        } catch (error) {
          failure((records[index] as QueuedMessage).messageId, error);
        }
      }
    }),
  );
  if (records.length > 0 && outcomes.every((reports) => reports === undefined)) {
    const first = firstError instanceof Error ? firstError.message : String(firstError);
    throw new QueuedBatchError(
      `every message of the batch failed (${records.length}); SQS delivers them again. The first: ${first}`,
      { cause: firstError },
    );
  }
  return {
    clusters: outcomes.flatMap((reports) => reports ?? []),
    batchItemFailures: records.flatMap((record, i) =>
      outcomes[i] === undefined ? [{ itemIdentifier: record.messageId }] : [],
    ),
  };
}
