/**
 * The watchdog's own looks (the `Looks` port) on the fake clock, in process: what the SQS
 * queue and its event source mapping do in the cloud. A look asked for `at` is delivered at `at`
 * rounded up to the whole second after the request, as SQS's per-second DelaySeconds does, as a
 * one-message SQS batch through the real handler.
 */
import type { HandlerEvent } from '../lambda/handler/create-handler.js';
import type { Looks } from '../lambda/ports/index.js';
import type { FakeClock } from './fake-clock.js';

export interface QueuedLook {
  readonly id: string;
  readonly cluster: string;
  readonly suspects: readonly string[];
  /** When it is delivered (fake-clock ms). */
  readonly at: number;
}

export class QueuedLooks implements Looks {
  readonly pending: QueuedLook[] = [];
  /** Every look asked for, in order (delivered or not). */
  readonly asked: QueuedLook[] = [];
  #ids = 0;

  constructor(private readonly clock: FakeClock) {}

  async schedule(cluster: string, leases: readonly string[], at: number): Promise<void> {
    const now = this.clock.now();
    const delaySeconds = Math.min(900, Math.max(0, Math.ceil((at - now) / 1000)));
    const look = {
      id: `look-${++this.#ids}`,
      cluster,
      suspects: [...leases],
      at: now + delaySeconds * 1000,
    };
    this.asked.push(look);
    this.pending.push(look);
    this.pending.sort((a, b) => a.at - b.at);
  }

  /** Routine looks asked for in one request (SendMessageBatch), one entry per request. */
  readonly batches: number[][] = [];

  async scheduleLooks(cluster: string, at: readonly number[]): Promise<void> {
    this.batches.push([...at]);
    for (const when of at) await this.schedule(cluster, [], when);
  }

  /**
   * Delivers every look due at or before `until`, each at its time, through `invoke`; then moves
   * the clock to `until`. Looks asked for by those looks are delivered too, when due by then.
   */
  async runUntil(until: number, invoke: (event: HandlerEvent) => Promise<unknown>): Promise<void> {
    for (;;) {
      const next = this.pending[0];
      if (!next || next.at > until) break;
      this.pending.shift();
      if (next.at > this.clock.now()) this.clock.advanceTo(next.at);
      const body = JSON.stringify({ cluster: next.cluster, look: { suspects: next.suspects } });
      await invoke({ Records: [{ messageId: next.id, body }] });
    }
    if (until > this.clock.now()) this.clock.advanceTo(until);
  }
}
