import type { MaintenanceWindow } from './maintenance-window.js';
import type { LabelSelector } from './selector.js';

/** How the watchdog judges a cluster. Built once at the edge (CLI flags, Lambda config) and frozen. */
export interface Policy {
  /** Silence longer than this (seconds, on the watchdog's clock) is `expired`. Default 50. */
  readonly gracePeriodSeconds: number;
  /** A node younger than this without a lease (or with a never-renewed one) is not yet alerting. Default 60. */
  readonly startupGraceSeconds: number;
  /** Nodes matching this selector are excluded: never alert (verdict `suppressed`). */
  readonly exclude?: LabelSelector | undefined;
  /** Recurring windows in which nodes that would alert are suppressed (`maintenance`). */
  readonly maintenance?: readonly MaintenanceWindow[] | undefined;
}

/** What a lease without `leaseDurationSeconds` means: the kubelet's default. */
export const DEFAULT_LEASE_DURATION_SECONDS = 40;
