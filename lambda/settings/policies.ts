/**
 * The one place where settings become the core's policies: how a cluster's leases are judged
 * (`Policy`) and how its alerts are raised (`AlertPolicy`). Selectors are parsed here, once.
 */

import type { AlertPolicy } from '../core/alert-policy.js';
import { parseCron } from '../core/cron.js';
import { parseDuration } from '../core/duration.js';
import { DEFAULT_FLAP_POLICY } from '../core/flapping.js';
import type { MaintenanceWindow } from '../core/maintenance-window.js';
import type { Policy } from '../core/policy.js';
import { parseSelector } from '../core/selector.js';
import { DEFAULTS } from './defaults.js';
import type { ClusterSettings, WatchdogSettings } from './parse.js';

/**
 * What the policies are made of: the watchdog's settings and one cluster's. The CLI cannot give
 * `readFailuresBeforePage` or `stuckRemovalSeconds`: absent, they take their defaults.
 */
type PolicySettings = Pick<
  WatchdogSettings,
  'gracePeriodSeconds' | 'startupGraceSeconds' | 'reminderIntervalSeconds' | 'storm'
> &
  Partial<Pick<WatchdogSettings, 'readFailuresBeforePage' | 'stuckRemovalSeconds'>>;

export interface ClusterPolicies {
  readonly policy: Policy;
  readonly alertPolicy: AlertPolicy;
}

function windowsOf(
  windows: NonNullable<ClusterSettings['maintenanceWindows']>,
): readonly MaintenanceWindow[] {
  return Object.freeze(
    windows.map((w) =>
      Object.freeze({
        schedule: parseCron(w.schedule),
        durationSeconds: parseDuration(w.duration) ?? 0,
        selector: w.selector === undefined ? undefined : parseSelector(w.selector),
        comment: w.comment,
      }),
    ),
  );
}

export function policiesOf(
  settings: PolicySettings,
  cluster: Pick<ClusterSettings, 'excludeSelector' | 'maintenanceWindows'>,
): ClusterPolicies {
  return Object.freeze({
    policy: Object.freeze({
      gracePeriodSeconds: settings.gracePeriodSeconds,
      startupGraceSeconds: settings.startupGraceSeconds,
      exclude:
        cluster.excludeSelector === undefined ? undefined : parseSelector(cluster.excludeSelector),
      ...(cluster.maintenanceWindows === undefined
        ? {}
        : { maintenance: windowsOf(cluster.maintenanceWindows) }),
    }),
    alertPolicy: Object.freeze({
      reminderIntervalSeconds: settings.reminderIntervalSeconds,
      readFailuresBeforePage: settings.readFailuresBeforePage ?? DEFAULTS.readFailuresBeforePage,
      // A WATCHDOG waits out the stall the node lifecycle controller itself tolerates.
      unreadableBeforePageSeconds: settings.gracePeriodSeconds,
      stuckRemovalSeconds: settings.stuckRemovalSeconds ?? DEFAULTS.stuckRemovalSeconds,
      flapping: DEFAULT_FLAP_POLICY,
      storm: Object.freeze({ ...settings.storm }),
    }),
  });
}

/** The policies every default makes (for tests and examples). */
export const DEFAULT_POLICIES: ClusterPolicies = policiesOf(DEFAULTS, {});
export const DEFAULT_POLICY: Policy = DEFAULT_POLICIES.policy;
export const DEFAULT_ALERT_POLICY: AlertPolicy = DEFAULT_POLICIES.alertPolicy;
