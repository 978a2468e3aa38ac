/**
 * Kubelet schedules. Kubelets have no timers: each alive kubelet has a renewal schedule (a session
 * start, an interval of 0.25 × leaseDurationSeconds and a deterministic jitter from the seed), and
 * its renewals and status heartbeats are computed lazily as "the latest tick ≤ now".
 */
import { unit } from './hashing.js';
import type { Kubelet } from './records.js';

/** The node lifecycle controller's grace period: after it, a silent node's conditions go Unknown. */
export const NODE_MONITOR_GRACE_US = 50_000_000;
/** kubelet's nodeStatusReportFrequency: lastHeartbeatTime moves every 5 minutes when nothing changes. */
export const NODE_STATUS_REPORT_US = 300_000_000;
/** kubelet's lease controller uses wait.JitterUntil(renew, interval, 0.04, ...). */
const JITTER_FACTOR = 0.04;

/** The latest tick of `start + n·period + jitter(n)` at or before `upTo`, or undefined. */
export function lastTick(
  startUs: number,
  periodUs: number,
  upToUs: number,
  jitter: (n: number) => number,
): number | undefined {
  if (upToUs < startUs) return undefined;
  let n = Math.floor((upToUs - startUs) / periodUs);
  let t = startUs + n * periodUs + (n === 0 ? 0 : jitter(n));
  if (t > upToUs) {
    n--;
    t = startUs + n * periodUs + (n === 0 ? 0 : jitter(n));
  }
  return t;
}

export function makeKubelet(
  key: number,
  durationSeconds: number,
  skewMs: number,
  startUs: number,
): Kubelet {
  return {
    alive: true,
    startUs,
    intervalUs: Math.max(1, Math.round(durationSeconds * 250_000)),
    durationSeconds,
    skewMs,
    stoppedUs: 0,
    key,
  };
}

/** Sim time (µs) of the kubelet's latest lease renewal at or before `atUs`. */
export function lastRenewalUs(
  k: Kubelet,
  atUs: number,
  seed: number,
  jitter: boolean,
): number | undefined {
  const upTo = k.alive ? atUs : Math.min(atUs, k.stoppedUs);
  const span = Math.floor(k.intervalUs * JITTER_FACTOR);
  const jitterOf = jitter ? (n: number) => Math.floor(unit(k.key ^ seed, n) * span) : () => 0;
  return lastTick(k.startUs, k.intervalUs, upTo, jitterOf);
}

/** Sim time (µs) of the kubelet's latest node-status heartbeat at or before `atUs`. */
export function lastHeartbeatUs(k: Kubelet, atUs: number): number | undefined {
  return lastTick(k.startUs, NODE_STATUS_REPORT_US, atUs, () => 0);
}
