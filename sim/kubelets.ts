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
/**
 * The kubelet's lease controller renews with `wait.JitterUntil(c.sync, c.renewInterval, 0.04, true,
 * stopCh)` (k8s.io/component-helpers/apimachinery/lease/controller.go): sliding, so each wait,
 * interval + U[0, 0.04 × interval), starts when the last renewal ended
 * (k8s.io/apimachinery/pkg/util/wait/backoff.go, BackoffUntil). Its renewals therefore slide
 * through every phase of the interval (0.2 s a renewal on average for the default 40 s lease, the
 * whole 10 s in about 8.5 minutes) instead of keeping one.
 */
const JITTER_FACTOR = 0.04;

/**
 * The latest tick of `start + n·period + jitter(n)` at or before `upTo`, or undefined. `jitter(n)`
 * lies within (−period, period), so the tick is the n-th, the one before or the one after.
 */
export function lastTick(
  startUs: number,
  periodUs: number,
  upToUs: number,
  jitter: (n: number) => number,
): number | undefined {
  if (upToUs < startUs) return undefined;
  const tick = (n: number) => startUs + n * periodUs + (n === 0 ? 0 : jitter(n));
  let n = Math.floor((upToUs - startUs) / periodUs);
  if (tick(n) > upToUs) n--;
  else if (tick(n + 1) <= upToUs) n++;
  return tick(n);
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

/**
 * Sim time (µs) of the kubelet's latest lease renewal at or before `atUs`. Without jitter, every
 * interval exactly. With it, as JITTER_FACTOR's comment says, in closed form (no walk through
 * the renewals): the n-th renewal at `start + n·(interval + h) + h·(u(n) − ½)`, h = 0.02 ×
 * interval and u(n) ∈ [0, 1) from the seed, so that two renewals are always between interval
 * and interval × 1.04 apart (h + h·(u(n) − u(n − 1))), 1.02 × interval on average.
 */
export function lastRenewalUs(
  k: Kubelet,
  atUs: number,
  seed: number,
  jitter: boolean,
): number | undefined {
  const upTo = k.alive ? atUs : Math.min(atUs, k.stoppedUs);
  if (!jitter) return lastTick(k.startUs, k.intervalUs, upTo, () => 0);
  const half = Math.floor((k.intervalUs * JITTER_FACTOR) / 2);
  const slide = (n: number) => Math.floor(half * (unit(k.key ^ seed, n) - 0.5));
  return lastTick(k.startUs, k.intervalUs + half, upTo, slide);
}

/** Sim time (µs) of the kubelet's latest node-status heartbeat at or before `atUs`. */
export function lastHeartbeatUs(k: Kubelet, atUs: number): number | undefined {
  return lastTick(k.startUs, NODE_STATUS_REPORT_US, atUs, () => 0);
}
