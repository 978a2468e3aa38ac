/**
 * Realistic cluster state for the state store tests and the cost measurement: EKS-style node
 * names (`ip-10-0-123-45.eu-west-1.compute.internal`), MicroTime renewTimes with six fractional
 * digits, renewed every 10 s with jitter, and watchdog-clock `changedAt` times. Deterministic.
 */

import { type AlertState, EMPTY_ALERT_STATE } from '../lambda/core/alert-state.js';
import type { Observation } from '../lambda/core/model.js';
import type { Notification } from '../lambda/core/notification.js';
import type { ClusterState } from '../lambda/ports/index.js';

/** A small deterministic PRNG (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` distinct node names like `ip-10-0-123-45.eu-west-1.compute.internal`. */
export function nodeNames(count: number, seed = 1): string[] {
  const next = random(seed);
  const names = new Set<string>();
  while (names.size < count) {
    const [b, c, d] = [0, 0, 0].map(() => Math.floor(next() * 256));
    names.add(`ip-10-${b}-${c}-${d}.eu-west-1.compute.internal`);
  }
  return [...names];
}

/** A MicroTime string (RFC 3339, six fractional digits, UTC) for epoch microseconds. */
export function microTime(epochMicros: number): string {
  const millis = Math.floor(epochMicros / 1000);
  const micros = String(Math.floor(epochMicros) % 1_000_000).padStart(6, '0');
  return `${new Date(millis).toISOString().slice(0, 19)}.${micros}Z`;
}

/**
 * Observations of healthy nodes as a check at `checkAt` (watchdog clock, epoch ms) leaves them:
 * each renewed at a random moment of the last 10 s on a clock skewed by up to ±2 s, and seen to
 * change at `checkAt` (minus the API latency).
 */
export function healthyObservations(
  names: readonly string[],
  checkAt: number,
  seed = 2,
): Map<string, Observation> {
  const next = random(seed);
  const observations = new Map<string, Observation>();
  for (const name of names) {
    const skewMicros = (next() - 0.5) * 4_000_000;
    const renewedMicros = checkAt * 1000 - next() * 10_000_000 + skewMicros;
    observations.set(name, {
      renewTime: microTime(renewedMicros),
      changedAt: checkAt - Math.floor(next() * 300),
    });
  }
  return observations;
}

export function sampleNotification(
  cluster: string,
  at: number,
  nodes: readonly string[],
): Notification {
  return {
    id: `${cluster}:${at}:FIRING`,
    cluster,
    kind: 'FIRING',
    severity: 'critical',
    at,
    firing: nodes.map((name) => ({
      name,
      zone: 'eu-west-1a',
      instance: 'i-0123456789abcdef0',
      verdict: 'expired',
      reason: 'lease not renewed for 62 s (grace period 50 s)',
      renewTime: '2026-11-29T17:52:14.065888Z',
      silentForSeconds: 62,
      since: at - 12_000,
    })),
    resolved: [],
    reminders: [],
    flapping: [],
  };
}

/**
 * Alert state with an open incident per node. The stores treat alerts as opaque JSON, so this is
 * built as plain data in the alert lifecycle's current shape (one compact record per node, keyed
 * by name) and not type-checked against it: the tests must not break when that shape is refined.
 */
export function sampleAlerts(at: number, nodes: readonly string[]): AlertState {
  const alerts = {
    incidents: Object.fromEntries(
      nodes.map((name, index) => [
        name,
        {
          verdict: 'expired',
          zone: 'eu-west-1a',
          instance: `i-0${(0x1234567890abc + index).toString(16)}`,
          renewTime: '2026-11-29T17:52:14.065888Z',
          openedAt: at - 12_000,
          lastNotifiedAt: at,
        },
      ]),
    ),
    flaps: {},
    watchdog: null,
    storm: nodes.length > 0 ? { scope: 'zone', zones: ['eu-west-1a'], since: at - 60_000 } : null,
  };
  return alerts as unknown as AlertState;
}

/** A cluster of `count` healthy nodes, as stored after a check at `checkAt`. */
export function healthyClusterState(count: number, checkAt: number, seed = 1): ClusterState {
  return {
    observations: healthyObservations(nodeNames(count, seed), checkAt, seed + 1),
    alerts: EMPTY_ALERT_STATE,
    outbox: [],
  };
}
