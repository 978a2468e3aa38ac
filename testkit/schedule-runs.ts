/**
 * EventBridge Scheduler's `rate(1 minute)` on the fake clock: the k-th run lands `offset(k)` ms
 * into its minute (0–59,999: anywhere in the minute, so gaps between runs range ~1–119 s). Between
 * runs, the watchdog's own looks are delivered at their times (`h.advanceTo`).
 */
import type { Harness } from './watchdog-harness.js';

export const MINUTE = 60_000;

/** Runs the schedule for the minutes that start in [from, to): each run at its offset. */
export async function runSchedule(
  h: Harness,
  from: number,
  to: number,
  offset: (minute: number) => number,
  afterRun?: () => void,
): Promise<void> {
  for (let k = 0; from + k * MINUTE < to; k++) {
    const at = from + k * MINUTE + offset(k);
    if (at > h.clock.now()) await h.advanceTo(at);
    await h.run();
    afterRun?.();
  }
  await h.advanceTo(Math.max(to, h.clock.now()));
}

/** When a lease was last renewed, by its kubelet's clock (epoch ms), as the sim serves it. */
export function renewTimeOf(h: Harness, cluster: string, node: string): number {
  const renewTime = h.target(cluster).sim.leaseObject('kube-node-lease', node)?.spec?.renewTime;
  const at = Date.parse(String(renewTime));
  if (Number.isNaN(at)) throw new Error(`no renewTime for ${node}`);
  return at;
}
