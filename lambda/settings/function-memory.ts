/**
 * The function's memory from the node count of the largest cluster it checks
 * (`largestClusterNodes`), when `memoryMb` is not set: twice the peak RSS measured for the whole
 * function, warm, invocation by invocation (`npm run bench:function`, the bundle the stack stages
 * run under the stack's environment, its state in a local DynamoDB; docs/BENCHMARKS.md), in 128 MB
 * steps, at least DEFAULTS.memoryMb. Its highest peaks on 2026-12-03 (10 invocations each, the
 * relists and the FIRING's included): 132.7 MB at 2,000 nodes, 156.5 at 20,000, 171.6 at 50,000,
 * 241-255 at 100,000 (60 invocations: 241.3): ~130 MB plus ~1.25 MB per 1,000 nodes covers each.
 * So 512 MB up to ~100,000 nodes, 640 MB to ~150,000; the growth past the largest size measured
 * is extrapolated.
 */
import { DEFAULTS } from './defaults.js';

/** The function's measured peak RSS (above): a fixed part, MB, and MB per 1,000 nodes. */
export const FUNCTION_RSS_BASE_MB = 130;
export const FUNCTION_RSS_MB_PER_1000_NODES = 1.25;
/** Room over the measured peak: a real cluster's Nodes may be heavier than the simulated ones. */
export const MEMORY_MARGIN = 2;
/** Lambda's memory ceiling, MB. */
export const LAMBDA_MAX_MEMORY_MB = 10_240;

/** The memory, MB, for a cluster of `nodes` nodes (DEFAULTS.memoryMb when unknown). */
export function memoryMbFor(nodes: number | undefined): number {
  if (nodes === undefined) return DEFAULTS.memoryMb;
  const peak = FUNCTION_RSS_BASE_MB + (FUNCTION_RSS_MB_PER_1000_NODES * nodes) / 1000;
  const sized = Math.ceil((peak * MEMORY_MARGIN) / 128) * 128;
  return Math.min(LAMBDA_MAX_MEMORY_MB, Math.max(DEFAULTS.memoryMb, sized));
}

/**
 * The young generation's semi-space the function runs with, MB. Lambda's Node.js runtime derives
 * one from the function's memory (a tenth of it for the young generation, half of that a
 * semi-space: 25 MB at 512 MB) unless NODE_OPTIONS sets the heap's sizes itself; V8's young
 * generation is three semi-spaces, and a check's parse garbage fills them, so at 512 MB the young
 * generation alone held ~64 MB of the peak. 8 MB keeps it to ~16 MB for the same CPU, within
 * noise (docs/BENCHMARKS.md, "Where a check's memory goes"). 4 MB promotes more: a steady check
 * at 100,000 nodes peaked at 231-261 MB against 229-231 MB with 8, in turn (2026-12-03).
 */
export const SEMI_SPACE_MB = 8;

/**
 * The V8 heap flags of a function of `memoryMb`, set by the stack as NODE_OPTIONS and used by
 * `npm run bench`: the semi-space above, and the old space Lambda's runtime would give (the
 * memory less a tenth). Both are set: the runtime leaves the heap alone only when NODE_OPTIONS
 * names one of them, and V8's own default would take the other's place.
 */
export function heapOptionsFor(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return [
    `--max-semi-space-size=${Math.min(SEMI_SPACE_MB, Math.floor(newSpace / 2))}`,
    `--max-old-space-size=${memoryMb - newSpace}`,
  ];
}

/**
 * glibc's malloc settings for the function's process (GLIBC_TUNABLES, read by glibc when the
 * process starts: GNU C Library manual, "Memory Allocation Tunables"). By default glibc raises its
 * mmap threshold to the size of each large block freed, so later blocks of that size come from its
 * arenas, and what they free there stays in the process (mallopt(3), M_MMAP_THRESHOLD: "a dynamic
 * mmap threshold"). A check's large native buffers (pages read and inflated, the state gzipped)
 * then left the process holding ~180 MB outside V8 where it needs ~110. Setting the threshold
 * fixes it at the default's first value, 128 KiB, and turns that adjustment off (for the trim
 * threshold too): larger blocks are mapped and unmapped. The whole function at 100,000 nodes
 * peaked at 282-297 MB against 322-350 MB without it, in turn, at the same speed
 * (`npm run bench:function`; docs/BENCHMARKS.md). Lambda does not reserve the variable (Lambda
 * Developer Guide, "Defined runtime environment variables"); AWS does not document glibc's
 * variables for Lambda, and the effect there is not measured.
 */
export const MALLOC_TUNABLES =
  'glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072';
