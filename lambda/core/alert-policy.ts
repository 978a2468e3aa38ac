/**
 * The alert lifecycle's policy and result types, shared by the node lifecycle (`incidents.ts`)
 * and the read-failure lifecycle (`watchdog-alerts.ts`). Both are re-exported from
 * `incidents.ts`, where callers import them.
 */
import type { AlertState } from './alert-state.js';
import { DEFAULT_FLAP_POLICY, type FlapPolicy } from './flapping.js';
import type { Notification } from './notification.js';
import { DEFAULT_STORM_POLICY, type StormPolicy } from './storms.js';

export interface AlertPolicy {
  /** Remind about open incidents (and a failing watchdog) this often. Default 4 h; 0 = off. */
  readonly reminderIntervalSeconds: number;
  readonly flapping: FlapPolicy;
  readonly storm: StormPolicy;
}

export const DEFAULT_REMINDER_INTERVAL_SECONDS = 4 * 60 * 60;

export const DEFAULT_ALERT_POLICY: AlertPolicy = Object.freeze({
  reminderIntervalSeconds: DEFAULT_REMINDER_INTERVAL_SECONDS,
  flapping: DEFAULT_FLAP_POLICY,
  storm: DEFAULT_STORM_POLICY,
});

export interface AlertOutcome {
  readonly notification: Notification | null;
  readonly state: AlertState;
}

/** A reminder falls due exactly at the interval; an interval of 0 turns reminders off. */
export function reminderDue(lastNotifiedAt: number, policy: AlertPolicy, now: number): boolean {
  const interval = policy.reminderIntervalSeconds;
  return interval > 0 && now - lastNotifiedAt >= interval * 1000;
}
