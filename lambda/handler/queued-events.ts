/**
 * The events queued messages carry (SQS bodies): a dispatched check of one cluster, or a look of
 * the watchdog's own; each body read with one line of error when it is neither; and a batch of
 * them run with no cluster waiting on another.
 */
import type { InvocationEvent } from '../use-cases/invocation.js';

/**
 * What a queued message asks for: a dispatched check (`{ "cluster": "<name>" }`, a scheduled
 * check of that cluster), or a look (lookOf); throws with one line when the body is neither.
 */
export function queuedEventOf(body: string): InvocationEvent {
  const value = jsonOf(body);
  const keys = typeof value === 'object' && value !== null ? Object.keys(value) : [];
  const cluster = (value as { cluster?: unknown } | null)?.cluster;
  if (keys.length === 1 && typeof cluster === 'string') return { cluster };
  return lookIn(value);
}

function jsonOf(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new Error('the message body is not JSON');
  }
}

/** The look a queued message asks for; throws with one line when the body is not one. */
export function lookOf(body: string): InvocationEvent {
  return lookIn(jsonOf(body));
}

function lookIn(value: unknown): InvocationEvent {
  const look = value as {
    cluster?: unknown;
    look?: { suspects?: unknown; run?: unknown };
    recheck?: unknown;
  };
  // `recheck`: the body of looks queued by a version before `look` (they wait up to 15 minutes).
  const names = look?.look === undefined ? look?.recheck : look.look?.suspects;
  if (
    typeof look?.cluster !== 'string' ||
    !Array.isArray(names) ||
    !names.every((n) => typeof n === 'string')
  ) {
    throw new Error(
      'the message body is not { "cluster": "<name>", "look": { "suspects": ["<lease>", ...] } }',
    );
  }
  // `run`: the scheduled run that asked for a routine look; any other value is ignored (the look
  // then runs, as every look did before it was carried).
  const run = look.look?.run;
  const suspects = names as string[];
  return {
    cluster: look.cluster,
    look: Number.isFinite(run) ? { suspects, run: run as number } : { suspects },
  };
}

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

/**
 * Runs a batch of queued messages (looks, dispatched checks): the clusters side by side, so that
 * one whose read hangs until its timeout never holds up another's; one cluster's messages one
 * after the other, in the order SQS handed them over (two checks of one cluster at once would
 * find each other's outbox taken). `run` checks what one message asks for; a message whose body
 * is not one, or whose run throws, is told to `failed` and reported for SQS to deliver again
 * (`ReportBatchItemFailures`). The reports come back in the batch's order.
 */
export async function runQueuedBatch<Report>(
  records: readonly QueuedMessage[],
  run: (event: InvocationEvent) => Promise<{ readonly clusters: readonly Report[] }>,
  failed: (messageId: string, error: unknown) => void,
): Promise<QueuedBatchResult<Report>> {
  const outcomes: (readonly Report[] | undefined)[] = records.map(() => undefined);
  const lanes = new Map<string, { index: number; event: InvocationEvent }[]>();
  records.forEach((record, index) => {
    try {
      const event = queuedEventOf(record.body);
      const lane = lanes.get(event.cluster ?? '') ?? [];
      lane.push({ index, event });
      lanes.set(event.cluster ?? '', lane);
    } catch (error) {
      failed(record.messageId, error);
    }
  });
  await Promise.all(
    [...lanes.values()].map(async (lane) => {
      for (const { index, event } of lane) {
        try {
          outcomes[index] = (await run(event)).clusters;
        } catch (error) {
          failed((records[index] as QueuedMessage).messageId, error);
        }
      }
    }),
  );
  return {
    clusters: outcomes.flatMap((reports) => reports ?? []),
    batchItemFailures: records.flatMap((record, i) =>
      outcomes[i] === undefined ? [{ itemIdentifier: record.messageId }] : [],
    ),
  };
}
