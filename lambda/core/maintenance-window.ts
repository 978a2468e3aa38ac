/** A recurring maintenance window of a cluster (see silences.ts), as the settings give it. */
import type { CronSchedule } from './cron.js';
import type { LabelSelector } from './selector.js';

export interface MaintenanceWindow {
  readonly schedule: CronSchedule;
  readonly durationSeconds: number;
  readonly selector?: LabelSelector | undefined;
  readonly comment?: string | undefined;
}
