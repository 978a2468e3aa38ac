/**
 * A process's peak RSS over a stretch of its life, on Linux: the kernel's high-water mark (VmHWM)
 * reset to the RSS of now (`5` to /proc/self/clear_refs, since Linux 4.0: proc_pid_clear_refs(5),
 * https://man7.org/linux/man-pages/man5/proc_pid_clear_refs.5.html), then read. It sees what a
 * sampler on the event loop misses: a check peaks in its evaluation, which runs without yielding.
 * Shared by the bench's subject (bench/check-once.ts) and the Lambda stand-in
 * (testkit/bundle-runtime.ts, which runs under plain Node: no TypeScript beyond types here).
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** Resets the peak to the RSS of now; false where it cannot (not Linux, or a kernel before 4.0). */
export function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** The peak RSS since the last reset (since the start without one), bytes. */
export function peakRssBytes(): number {
  const kB = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  return Number(kB) * 1024;
}
