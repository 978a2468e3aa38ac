/** Test builders for notifications (as the alert lifecycle hands them to a notifier). */
import type { AlertNode, Notification } from '../lambda/core/notification.js';

/** The check's instant in the examples: 2026-11-29T17:55:00Z. */
export const AT = Date.UTC(2026, 10, 29, 17, 55, 0);

/** Epoch ms → MicroTime text (six fractional digits, UTC), as a kubelet writes renewTime. */
export function micro(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -1)}000Z`;
}

/** An EKS-style node name: `ip-10-0-1-5.eu-west-1.compute.internal`. */
export function eksName(a: number, b: number): string {
  return `ip-10-0-${a}-${b}.eu-west-1.compute.internal`;
}

export function alertNode(name: string, spec: Partial<AlertNode> = {}): AlertNode {
  return {
    name,
    zone: 'eu-west-1a',
    instance: 'i-0abc1234567890def',
    verdict: 'expired',
    reason: 'lease not renewed for 200 s (grace period 50 s)',
    renewTime: micro(AT - 200_000),
    silentForSeconds: 200,
    since: AT - 150_000,
    ...spec,
  };
}

export function notification(spec: Partial<Notification> = {}): Notification {
  return {
    id: 'prod-eu:1795974900000:FIRING',
    cluster: 'prod-eu',
    kind: 'FIRING',
    severity: 'critical',
    at: AT,
    firing: [],
    resolved: [],
    reminders: [],
    flapping: [],
    ...spec,
  };
}

/** `count` expired nodes with EKS-style names, spread over `zones`. */
export function manyNodes(count: number, zones = ['eu-west-1a']): AlertNode[] {
  return Array.from({ length: count }, (_, i) =>
    alertNode(eksName(Math.floor(i / 250), i % 250), {
      zone: zones[i % zones.length] ?? null,
      instance: `i-${i.toString(16).padStart(17, '0')}`,
    }),
  );
}
