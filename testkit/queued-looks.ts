/**
 * The watchdog's own looks (the `Looks` port) on the fake clock, in process: what the SQS
 * queue and its event source mapping do in the cloud. A look asked for `at` becomes visible at
 * `at` rounded up to the whole second after the request, as SQS's per-second DelaySeconds does,
 * and is delivered `polling()` ms later (the event source mapping's pollers; 0 unless set), as a
 * one-message SQS batch through the real handler. The queue can be made to refuse requests
 * (`refusing`: SendMessage fails) or the mapping disabled (`mappingEnabled`: nothing is delivered).
 */
import type { HandlerEvent } from '../lambda/handler/create-handler.js';
import type { CheckDispatch, DispatchedCheck, Looks } from '../lambda/ports/index.js';
import type { FakeClock } from './fake-clock.js';

export interface QueuedLook {
  readonly id: string;
  readonly cluster: string;
  readonly suspects: readonly string[];
  /** The moment the watchdog asked for (fake-clock ms). */
  readonly wanted: number;
  /** When SQS makes it visible: `wanted` rounded up to a whole second of delay (fake-clock ms). */
  readonly visible: number;
  /** When it is delivered: visible, plus the pollers' delay (fake-clock ms). */
  readonly at: number;
  /** A dispatched check (body `{ "cluster": "<name>" }`), not a look. */
  readonly dispatched?: true;
  /** A routine look: the start of the scheduled run that asked for it (LookRequest.run). */
  readonly run?: number;
}

/** SQS refused a request (`refusing`), as the SDK would report it. */
export class LookRefusedError extends Error {
  override readonly name = 'AccessDenied';
}

export class QueuedLooks implements Looks, CheckDispatch {
  readonly pending: QueuedLook[] = [];
  /** Every look asked for, in order (delivered or not). */
  readonly asked: QueuedLook[] = [];
  /** Every look delivered, in order. */
  readonly delivered: QueuedLook[] = [];
  /** Milliseconds from a look becoming visible to its delivery (the pollers' delay). */
  polling: () => number = () => 0;
  /** The queue refuses every request (SendMessage and SendMessageBatch fail). */
  refusing = false;
  /** The event source mapping delivers (false: disabled, messages stay in the queue). */
  mappingEnabled = true;
  #ids = 0;

  constructor(private readonly clock: FakeClock) {}

  async schedule(cluster: string, leases: readonly string[], at: number): Promise<void> {
    if (this.refusing) throw new LookRefusedError('the queue refused SendMessage');
    this.#enqueue(cluster, leases, at);
  }

  #enqueue(cluster: string, leases: readonly string[], at: number, run?: number): void {
    const now = this.clock.now();
    const delaySeconds = Math.min(900, Math.max(0, Math.ceil((at - now) / 1000)));
    const visible = now + delaySeconds * 1000;
    const look = {
      id: `look-${++this.#ids}`,
      cluster,
      suspects: [...leases],
      wanted: at,
      visible,
      at: visible + Math.max(0, this.polling()),
      ...(run === undefined ? {} : { run }),
    };
    this.asked.push(look);
    this.pending.push(look);
    this.pending.sort((a, b) => a.at - b.at);
  }

  /** Every dispatched check sent (the dispatcher's fan-out), in order. */
  readonly checks: QueuedLook[] = [];

  /**
   * The dispatcher's checks, on the same queue model (the dispatch queue's own mapping in the
   * cloud): each visible after its whole-second delay, then delivered as a one-message batch.
   */
  async send(checks: readonly DispatchedCheck[]): Promise<readonly string[]> {
    if (this.refusing) return checks.map((c) => c.cluster);
    const now = this.clock.now();
    for (const { cluster, delaySeconds } of checks) {
      const visible = now + delaySeconds * 1000;
      const check = {
        id: `check-${++this.#ids}`,
        cluster,
        suspects: [],
        wanted: visible,
        visible,
        at: visible + Math.max(0, this.polling()),
        dispatched: true as const,
      };
      this.checks.push(check);
      this.pending.push(check);
    }
    this.pending.sort((a, b) => a.at - b.at);
    return [];
  }

  /** Routine looks asked for in one request (SendMessageBatch), one entry per request. */
  readonly batches: number[][] = [];

  async scheduleLooks(cluster: string, at: readonly number[], run: number): Promise<void> {
    if (this.refusing) throw new LookRefusedError('the queue refused SendMessageBatch');
    this.batches.push([...at]);
    for (const when of at) this.#enqueue(cluster, [], when, run);
  }

  /**
   * Delivers every look due at or before `until`, each at its time, through `invoke`; then moves
   * the clock to `until`. Looks asked for by those looks are delivered too, when due by then.
   * With the mapping disabled nothing is delivered (the looks wait in the queue).
   */
  async runUntil(until: number, invoke: (event: HandlerEvent) => Promise<unknown>): Promise<void> {
    for (;;) {
      const next = this.pending[0];
      if (!this.mappingEnabled || !next || next.at > until) break;
      this.pending.shift();
      if (next.at > this.clock.now()) this.clock.advanceTo(next.at);
      if (!next.dispatched) this.delivered.push(next);
      const body = JSON.stringify(
        next.dispatched
          ? { cluster: next.cluster }
          : {
              cluster: next.cluster,
              look: {
                suspects: next.suspects,
                ...(next.run === undefined ? {} : { run: next.run }),
              },
            },
      );
      await invoke({ Records: [{ messageId: next.id, body }] });
    }
    if (until > this.clock.now()) this.clock.advanceTo(until);
  }
}
