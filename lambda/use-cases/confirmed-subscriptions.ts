/**
 * The metric `ConfirmedSubscriptions`: how many confirmed subscriptions the notification topic
 * has, emitted once per invocation for the stack's `NoConfirmedSubscription` alarm (one unsubscribe
 * link must not end all alerting unnoticed).
 *
 * Cost: a deployment may watch hundreds of clusters, each invoked every schedule period, and SNS
 * allows 30 ListSubscriptionsByTopic calls a second per account. The count is therefore kept in
 * the container for COUNT_TTL_MS, shorter than the shortest schedule period (the alarm's period,
 * one minute), and every invocation emits the kept value: at most one listing per container per
 * TTL, whatever the number of clusters, and every period still has a datapoint.
 *
 * Never in the way of a check: it runs beside it, bounded by the invocation's deadline and by
 * COUNT_BUDGET_MS; a failure is a structured warning, emits nothing, and is not retried before the
 * TTL has passed (a missing permission must not cost a call per invocation).
 */

import type { MetricsRecorder, StructuredLogger, TopicSubscriptions } from '../ports/index.js';

/** How long a count is used before the topic is listed again (watchdog clock). */
export const COUNT_TTL_MS = 45_000;
/** How long one listing may take, at most. */
export const COUNT_BUDGET_MS = 3_000;

export interface ConfirmedSubscriptionsDeps {
  readonly subscriptions: TopicSubscriptions;
  readonly metrics: MetricsRecorder;
  readonly logger: StructuredLogger;
  /** The watchdog's clock, epoch ms. */
  readonly clock: () => number;
}

/** A listing of the topic: its count, or none when it failed. */
interface Listing {
  readonly at: number;
  readonly count: number | undefined;
}

export class ConfirmedSubscriptionsGauge {
  #last: Listing | undefined;
  #listing: Promise<Listing> | undefined;

  constructor(private readonly deps: ConfirmedSubscriptionsDeps) {}

  /** Emits the count (listing the topic when the kept one is older than the TTL). Never rejects. */
  async report(signal?: AbortSignal): Promise<void> {
    const { count } = await this.#current(signal);
    if (count !== undefined) {
      this.deps.metrics.recordForService('ConfirmedSubscriptions', count, 'Count');
    }
  }

  #current(signal: AbortSignal | undefined): Promise<Listing> | Listing {
    const last = this.#last;
    if (last && this.deps.clock() - last.at < COUNT_TTL_MS) return last;
    if (signal?.aborted) return { at: this.deps.clock(), count: undefined };
    this.#listing ??= this.#list(signal).finally(() => {
      this.#listing = undefined;
    });
    return this.#listing;
  }

  async #list(signal: AbortSignal | undefined): Promise<Listing> {
    const at = this.deps.clock();
    const budget = AbortSignal.timeout(COUNT_BUDGET_MS);
    try {
      const count = await this.deps.subscriptions.confirmedCount(
        signal ? AbortSignal.any([signal, budget]) : budget,
      );
      this.#last = { at, count };
    } catch (error) {
      this.#last = { at, count: undefined };
      this.deps.logger.warn(
        'cannot count the confirmed subscriptions of the notification topic; ConfirmedSubscriptions not emitted',
        {
          error: error instanceof Error ? error.message : String(error),
          errorName: error instanceof Error ? error.name : undefined,
          retryInSeconds: COUNT_TTL_MS / 1000,
        },
      );
    }
    return this.#last;
  }
}
