/** The fake clock the end-to-end harness and the soak run on. */

/** The harness's epoch: 2026-11-29T12:00:00Z. */
export const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

/**
 * A clock that moves only when told. Actions scheduled with `at` run when the clock passes their
 * time, with the clock set to exactly that time (e.g. "the kubelet stops 23 s after this run").
 */
export class FakeClock {
  #now: number;
  readonly #actions: { at: number; run: () => void }[] = [];

  constructor(start = T0) {
    this.#now = start;
  }

  readonly now = (): number => this.#now;

  at(time: number, run: () => void): void {
    if (time < this.#now) throw new Error(`cannot schedule in the past (${time} < ${this.#now})`);
    this.#actions.push({ at: time, run });
    this.#actions.sort((a, b) => a.at - b.at);
  }

  advance(ms: number): void {
    this.advanceTo(this.#now + ms);
  }

  advanceTo(time: number): void {
    if (time < this.#now) throw new Error(`the clock does not go back (${time} < ${this.#now})`);
    for (;;) {
      const next = this.#actions[0];
      if (!next || next.at > time) break;
      this.#actions.shift();
      this.#now = next.at;
      next.run();
    }
    this.#now = time;
  }

  /**
   * A sleep on this clock (the CLI's `watch` waits): moves the clock to `ms` after the call (never
   * back: concurrent sleepers that started together wake together). No real time passes.
   */
  readonly sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    signal?.throwIfAborted();
    const until = this.#now + ms;
    await Promise.resolve();
    if (until > this.#now) this.advanceTo(until);
  };
}
