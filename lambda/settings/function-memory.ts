/**
 * The function's memory from the node count of the largest cluster it checks
 * (`largestClusterNodes`), when `memoryMb` is not set: twice the peak RSS measured for a check
 * that lists every whole Node (the largest a check gets: docs/BENCHMARKS.md, ~150 MB plus ~3 MB
 * per 1,000 nodes under a 512 MB Lambda's heap), in 128 MB steps, at least DEFAULTS.memoryMb.
 * 512 MB up to ~35,000 nodes, 1,024 MB for 100,000.
 */
import { DEFAULTS } from './defaults.js';

/** Measured peak RSS of a relisting check: a fixed part, MB, and MB per 1,000 nodes. */
export const CHECK_RSS_BASE_MB = 150;
export const CHECK_RSS_MB_PER_1000_NODES = 3;
/** Room over the measured peak: a real cluster's Nodes may be heavier than the simulated ones. */
export const MEMORY_MARGIN = 2;
/** Lambda's memory ceiling, MB. */
export const LAMBDA_MAX_MEMORY_MB = 10_240;

/** The memory, MB, for a cluster of `nodes` nodes (DEFAULTS.memoryMb when unknown). */
export function memoryMbFor(nodes: number | undefined): number {
  if (nodes === undefined) return DEFAULTS.memoryMb;
  const peak = CHECK_RSS_BASE_MB + (CHECK_RSS_MB_PER_1000_NODES * nodes) / 1000;
  const sized = Math.ceil((peak * MEMORY_MARGIN) / 128) * 128;
  return Math.min(LAMBDA_MAX_MEMORY_MB, Math.max(DEFAULTS.memoryMb, sized));
}
