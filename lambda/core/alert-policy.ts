/**
 * The alert lifecycle's policy and result types, shared by the node lifecycle (`incidents.ts`)
 * and the read-failure lifecycle (`watchdog-alerts.ts`); callers import them from here. Their
 * values come from the settings (lambda/settings/policies.ts).
 */
import type { AlertState } from './alert-state.js';
import type { FlapPolicy } from './flapping.js';
import type { Recheck } from './model.js';
import type { Notification } from './notification.js';
import type { StormPolicy } from './storms.js';

export interface AlertPolicy {
  /** Remind about open incidents (and a failing watchdog) this often, seconds; 0 = off. */
  readonly reminderIntervalSeconds: number;
  /**
   * Failed reads on at least this many checks in a row (≥ 1) are needed to page the WATCHDOG. A
   * single failed read is usually a blip; the streak is counted from its first failure.
   */
  readonly readFailuresBeforePage: number;
  /**
   * And the cluster unreadable for this long at least, seconds on the watchdog's clock from the
   * first failed read of the streak: the stall Kubernetes itself tolerates (the grace period), so
   * that an API server blip pages nothing however often the watchdog looks.
   */
  readonly unreadableBeforePageSeconds: number;
  /**
   * A node suppressed by an expected removal (not the user's exclusion) and silent this long,
   * seconds on the watchdog's clock, pages: its removal seems stuck (node-step.ts).
   */
  readonly stuckRemovalSeconds: number;
  readonly flapping: FlapPolicy;
  readonly storm: StormPolicy;
}

export interface AlertOutcome {
  readonly notification: Notification | null;
  readonly state: AlertState;
  /** A look wanted at the end of a forming storm's wait, naming the nodes held (storm-forming.ts). */
  readonly wake?: Recheck | undefined;
}

/** A reminder falls due exactly at the interval; an interval of 0 turns reminders off. */
export function reminderDue(lastNotifiedAt: number, policy: AlertPolicy, now: number): boolean {
  const interval = policy.reminderIntervalSeconds;
  return interval > 0 && now - lastNotifiedAt >= interval * 1000;
}
