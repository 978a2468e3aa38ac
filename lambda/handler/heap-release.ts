/**
 * A full collection once an invocation is over, when its check left a large heap behind: the
 * snapshot, the verdicts and the pages of a check of 100,000 nodes are ~40 MB promoted to V8's
 * old space, which is collected only when it has grown by about as much again, so a check began
 * where the last one's garbage left the heap and peaked ~45 MB higher than one that starts from
 * what is kept (node cache, observations). Collected here, after the notifications and the state
 * are out, the pause (~50–100 ms at 100,000 nodes) delays nothing that pages, and the function
 * is frozen with only what it keeps (docs/BENCHMARKS.md, "Where a check's memory goes").
 *
 * `gc` is there when Node runs with `--expose-gc`, which the stack sets in NODE_OPTIONS
 * (heapOptionsFor); without it, nothing happens.
 */

/** Below this much heap in use, a collection frees too little to pay for its pause. */
export const COLLECT_ABOVE_BYTES = 64 * 1024 * 1024;

/** Collects, and says so, when the heap holds more than COLLECT_ABOVE_BYTES. */
export function collectLargeHeap(
  gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc,
  heapUsed: () => number = () => process.memoryUsage().heapUsed,
): boolean {
  if (gc === undefined || heapUsed() <= COLLECT_ABOVE_BYTES) return false;
  gc();
  return true;
}
