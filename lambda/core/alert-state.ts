/**
 * What the alert lifecycle remembers between checks, per cluster. Plain JSON-serialisable data
 * (stores persist it as-is: no Maps, no `undefined` values that matter, no class instances). Owned
 * by the alert lifecycle (`incidents.ts`); times are epoch ms on the watchdog's clock.
 *
 * Records are keyed by node name. They are kept compact, because a whole-cluster storm at 100,000
 * nodes means 100,000 open incidents: the key is the name, so no record repeats it.
 */
import type { NodeFacts, NodeVerdict } from './model.js';
import type { NoticeInfo, Resolution, WatchdogInfo } from './notification.js';

/** What a notification needs to show a node that is no longer in the evaluation. */
export type NodeSnapshot = Pick<
  NodeVerdict,
  'verdict' | 'zone' | 'instance' | 'renewTime' | keyof NodeFacts
>;

/** An open incident of one node (the node is `expired`, `not-ready` or `missing-lease`). */
export interface Incident extends NodeSnapshot {
  /** When the incident opened (the node started alerting). */
  readonly openedAt: number;
  /** When the node was last named in a FIRING, REMINDER, STORM or "stopped flapping" notice. */
  readonly lastNotifiedAt: number;
  /**
   * The incident key (incident-keys.ts) when it is not the one `openedAt` gives: an incident that
   * opened while its node was flapping keeps the key of the flapping episode. Absent otherwise.
   */
  readonly key?: string;
}

/** A node in FLAPPING: one notice sent, per-transition messages held back until it is stable. */
export interface Flapping {
  /** When the FLAPPING notice went out. */
  readonly since: number;
  /** Time of the latest open/resolve transition: released once stable for `stableSeconds`. */
  readonly lastTransitionAt: number;
  /** The node as seen at its latest transition (to report it if it vanishes meanwhile). */
  readonly node: NodeSnapshot;
  /** How its incident last resolved (silently, while flapping), when it did. */
  readonly resolution?: Resolution;
  /**
   * The key of the episode (incident-keys.ts): of the incident open, or just resolved, when the
   * node started flapping; incidents opened while it flaps take it. Absent in older records.
   */
  readonly key?: string;
}

export interface FlapRecord {
  /**
   * Times of open/resolve transitions inside the flapping window, oldest first. Fewer than the
   * threshold while not flapping; not appended to while flapping. The record is dropped once it
   * is empty and the node is not flapping.
   */
  readonly transitions: readonly number[];
  /** Set while the node is flapping. */
  readonly flapping?: Flapping;
}

export interface WatchdogIncident extends Pick<WatchdogInfo, 'failure' | 'message'> {
  /** When reads started failing (kept when the failure class changes). */
  readonly since: number;
  /**
   * Checks in a row whose read failed, counted from the first up to the page (not further: the
   * state of a cluster that stays unreadable is not rewritten on every check). Absent in records
   * written before the count existed; those were paged.
   */
  readonly failures?: number;
  /** When a WATCHDOG failing notice was last sent; null while the failure is not confirmed yet. */
  readonly lastNotifiedAt: number | null;
}

export interface StormIncident {
  /**
   * 'cluster' once the whole cluster crossed the threshold during this storm (never downgraded);
   * otherwise 'zone' when a zone did, 'node-group' when only node groups did.
   */
  readonly scope: 'zone' | 'node-group' | 'cluster';
  /** Every zone that crossed the zone threshold during this storm, sorted. */
  readonly zones: readonly string[];
  /** Every node group that crossed the threshold during this storm, sorted; absent when none. */
  readonly nodeGroups?: readonly string[];
  readonly since: number;
}

/** Checks of the cluster run degraded (Nodes unreadable, leases read): since when, and why. */
export type DegradedChecks = Pick<Extract<NoticeInfo, { topic: 'degraded' }>, 'since' | 'message'>;

export interface AlertState {
  readonly incidents: Readonly<Record<string, Incident>>;
  readonly flaps: Readonly<Record<string, FlapRecord>>;
  readonly watchdog: WatchdogIncident | null;
  readonly storm: StormIncident | null;
  /** Set while checks run degraded (watchdog-alerts.ts). Absent in older state: not degraded. */
  readonly degraded?: DegradedChecks | null | undefined;
  /**
   * Nodes suppressed by an expected removal (cordoned, being deleted, autoscaler or Karpenter
   * taint; not the user's exclusion) and silent: since when, on the watchdog's clock (the first
   * check that saw both). Past `stuckRemovalSeconds` the node pages (node-step.ts). Absent in
   * documents written before it, and when empty.
   */
  readonly removals?: Readonly<Record<string, number>>;
  /**
   * Since when the FIRINGs of a storm that is forming have been held (storm-forming.ts). Absent
   * while none is held.
   */
  readonly gathering?: number;
}

export const EMPTY_ALERT_STATE: AlertState = Object.freeze({
  incidents: Object.freeze({}),
  flaps: Object.freeze({}),
  watchdog: null,
  storm: null,
});
