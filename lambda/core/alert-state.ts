/**
 * What the alert lifecycle remembers between checks, per cluster. Plain JSON-serialisable data
 * (stores persist it as-is). Owned by the alert lifecycle (`incidents.ts`); times are epoch ms on
 * the watchdog's clock.
 */
import type { ClusterReadFailure, Verdict } from './model.js';

export interface Incident {
  readonly name: string;
  readonly verdict: Verdict;
  readonly reason: string;
  readonly zone: string | null;
  readonly instance: string | null;
  readonly openedAt: number;
  /** When a FIRING or REMINDER for it was last sent. */
  readonly lastNotifiedAt: number;
}

export interface FlapRecord {
  /** Times of open/resolve transitions still inside the flapping window. */
  readonly transitions: readonly number[];
  /** Set while the node is in FLAPPING (one notice sent, per-transition messages held back). */
  readonly flappingSince?: number | undefined;
  /** Since when it has been stable (no transition), while flapping. */
  readonly stableSince?: number | undefined;
}

export interface WatchdogIncident {
  readonly failure: ClusterReadFailure | 'unknown';
  readonly message: string;
  readonly since: number;
  readonly lastNotifiedAt: number;
}

export interface StormIncident {
  readonly scope: 'zone' | 'cluster';
  readonly zones: readonly string[];
  readonly since: number;
}

export interface AlertState {
  readonly incidents: Readonly<Record<string, Incident>>;
  readonly flaps: Readonly<Record<string, FlapRecord>>;
  readonly watchdog: WatchdogIncident | null;
  readonly storm: StormIncident | null;
}

export const EMPTY_ALERT_STATE: AlertState = Object.freeze({
  incidents: {},
  flaps: {},
  watchdog: null,
  storm: null,
});
