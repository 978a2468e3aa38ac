/**
 * A bounded wait for something a test cannot await directly (a request reaching a local server, a
 * publish accepted by a fake): it polls, and fails with what never happened instead of hanging
 * until the runner's timeout.
 *
 *   await waitUntil(() => sns.requests > before, 'the publish reached SNS');
 */

export interface WaitOptions {
  /** How long to wait, real ms (default 30 s: far more than a local step takes, even on a busy machine). */
  readonly timeoutMs?: number;
  /** How often to look, real ms (default 5). */
  readonly intervalMs?: number;
}

/** Resolves once `condition()` is true; rejects with "`what` never happened …" after the timeout. */
export async function waitUntil(
  condition: () => boolean,
  what: string,
  options: WaitOptions = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 5;
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() >= deadline) {
      throw new Error(`${what} never happened within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
