/**
 * A full collection once an invocation is over, when its check grew the heap a lot: the
 * snapshot, the verdicts and the pages of a check of 100,000 nodes are ~40 MB promoted to V8's
 * old space, which is collected only when it has grown by about as much again, so a check began
 * where the last one's garbage left the heap and peaked ~30 MB higher than one that starts from
 * what is kept (node cache, observations). Collected here, after the notifications and the state
 * are out, the pause (~50–100 ms at 100,000 nodes) delays nothing that pages, and the function
 * is frozen with only what it keeps (docs/BENCHMARKS.md, "Nodes in protobuf, and a check's
 * garbage collected before the freeze").
 *
 * The collection is V8's last-resort one (`gc({ flavor: 'last-resort' })`, what V8 runs before it
 * gives up on a full heap): it compacts the old space and shrinks the young one, so the pages it
 * frees go back to the system. A plain full collection frees the objects but keeps their pages:
 * at 100,000 nodes the function then held 252-266 MB between invocations where it needs 160-176,
 * and its steady checks peaked at 275-295 MB against 245-277 (`npm run bench:function`, in turn;
 * docs/BENCHMARKS.md). It costs ~150 ms against ~55 for a plain one at that size, once per large
 * invocation. Older V8s are given the plain one: Node 20's takes any options object without
 * `type: 'minor'` for a minor collection (LAST_RESORT_FROM_NODE).
 *
 * A large read is collected after too, plainly, before its check judges it (releasingReads).
 *
 * The collector is V8's `gc`: the global one when Node runs with `--expose-gc`, else one exposed
 * when first needed (`v8.setFlagsFromString`, then `gc` from a new context), not with the flag in
 * the function's NODE_OPTIONS: with it, every module loads slower, and the cold start's import
 * took 125 ms against 96 ms (`npm run bench:cold-start`, the same rounds).
 */

import type { ClusterReader, ClusterReaderFactory } from '../ports/index.js';

/**
 * An invocation that left the heap this much larger than it found it is a large check (~40 MB
 * promoted at 100,000 nodes; a few MB at 5,000): below it, a collection frees too little to pay
 * for its pause, and a process that holds a large heap for other reasons (a test runner) is not
 * collected after every small invocation. 16 MB, not 32: V8 often runs a full collection of its
 * own during a large check, and what is left at its end is then ~30 MB of garbage on a heap only
 * ~30 MB above where it began; under a 32 MB rule that stayed, and the next check peaked ~30 MB
 * higher (a steady check at 100,000 nodes, 5 processes each in turn: 216-273 MB, median 256,
 * against 211-238 MB, median 231; docs/BENCHMARKS.md).
 */
export const COLLECT_GROWTH_BYTES = 16 * 1024 * 1024;

/** The heap in use now: what an invocation's growth is measured from. */
export function heapInUse(): number {
  return process.memoryUsage().heapUsed;
}

type Collector = (options?: CollectOptions) => void;

/** The options of V8's `gc` extension that Node 24's V8 reads. */
export type CollectOptions = typeof LAST_RESORT;

/**
 * The first Node major whose V8 runs LAST_RESORT as such: 24 (V8 13.6), the function's runtime,
 * measured; Node 20's (V8 11.3) runs a minor collection instead.
 */
export const LAST_RESORT_FROM_NODE = 24;

function lastResortKnown(): boolean {
  return Number(process.versions.node.split('.')[0]) >= LAST_RESORT_FROM_NODE;
}

/** A synchronous full collection that also gives the freed pages back (above). */
export const LAST_RESORT = {
  type: 'major',
  execution: 'sync',
  flavor: 'last-resort',
} as const;

/** The collector, once found (null: none can be had). */
let collector: Collector | null | undefined;

/** V8's `gc`: the global one, or one exposed now; null when neither can be had. */
export async function exposedGc(): Promise<Collector | null> {
  const global = (globalThis as { gc?: unknown }).gc;
  if (typeof global === 'function') return global as Collector;
  if (collector !== undefined) return collector;
  try {
    const [{ setFlagsFromString }, { runInNewContext }] = await Promise.all([
      import('node:v8'),
      import('node:vm'),
    ]);
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    collector = typeof gc === 'function' ? (gc as Collector) : null;
  } catch {
    collector = null;
  }
  return collector;
}

/** How collectIfGrown measures and collects: the heap in use now, the collector, its kind. */
interface CollectWhen {
  readonly now?: number;
  readonly gc?: () => Promise<Collector | null>;
  readonly kind?: 'last-resort' | 'plain';
}

/**
 * Collects, and says so, when the heap grew by more than `growthBytes` since `since` (the heap in
 * use when the invocation began).
 */
export async function collectIfGrown(
  since: number,
  growthBytes: number = COLLECT_GROWTH_BYTES,
  { now = heapInUse(), gc = exposedGc, kind = 'last-resort' }: CollectWhen = {},
): Promise<boolean> {
  if (now - since <= growthBytes) return false;
  const collect = await gc();
  if (collect === null) return false;
  if (kind === 'last-resort' && lastResortKnown()) collect(LAST_RESORT);
  else collect();
  return true;
}

/**
 * Readers whose large reads are followed by a plain full collection before the check judges what
 * they read: a read of 100,000 Leases leaves ~30 MB of its pages' garbage promoted to the old
 * space, and the evaluation that follows (new observations, verdicts) otherwise grows the heap
 * on top of it. Collected first, the evaluation allocates into the space it freed: the function's
 * steady checks at 100,000 nodes peaked at 215-239 MB (median 226-231) against 220-255 (median
 * 240) without, in turn (`npm run bench:function`; docs/BENCHMARKS.md). Plain, not last-resort:
 * the pages it frees are about to be used again. ~55 ms at that size, before the verdicts.
 */
export function releasingReads(
  readers: ClusterReaderFactory,
  growthBytes: number = COLLECT_GROWTH_BYTES,
): ClusterReaderFactory {
  return (cluster, policy) => releasingRead(readers(cluster, policy), growthBytes);
}

/** One reader whose large reads are collected after (releasingReads). */
export function releasingRead(
  reader: ClusterReader,
  growthBytes: number = COLLECT_GROWTH_BYTES,
): ClusterReader {
  return {
    async read(signal, mode) {
      const since = heapInUse();
      const snapshot = await reader.read(signal, mode);
      await collectIfGrown(since, growthBytes, { kind: 'plain' });
      return snapshot;
    },
  };
}
