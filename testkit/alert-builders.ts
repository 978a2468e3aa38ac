/**
 * Builders and a check runner for the alert lifecycle tests (incidents, flapping, storms). The
 * counts of an evaluation are the core's own (verdict-tally.ts), so the builders cannot drift.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AlertPolicy } from '../lambda/core/alert-policy.js';
import type { AlertState } from '../lambda/core/alert-state.js';
import { EMPTY_ALERT_STATE } from '../lambda/core/alert-state.js';
import { alertsForEvaluation } from '../lambda/core/incidents.js';
import type {
  ClusterReadFailure,
  Evaluation,
  NodeVerdict,
  Verdict,
  ZoneSummary,
} from '../lambda/core/model.js';
import type { Notification } from '../lambda/core/notification.js';
import { tally } from '../lambda/core/verdict-tally.js';
import { alertsForReadFailure } from '../lambda/core/watchdog-alerts.js';
import { DEFAULT_ALERT_POLICY } from '../lambda/settings/index.js';

/** The pinned time of the first check: 2026-11-29T18:00:00Z. */
export const T0 = Date.UTC(2026, 10, 29, 18, 0, 0);
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const CLUSTER = 'prod-eu';

const REASONS: Record<Verdict, string> = {
  healthy: 'lease renewed 4 s ago',
  expired: 'lease not renewed for 73 s (grace period 50 s)',
  'not-ready': 'lease fresh, but Ready=False (KubeletNotReady)',
  'missing-lease': 'node older than 60 s and no lease',
  'orphaned-lease': 'lease without a Node',
  suppressed: 'node is cordoned',
  invalid: 'renewTime is not a MicroTime',
  suspect: 'suspect: no lease renewal for 55s, not yet confirmed by a second look',
};

/** One node's verdict: `nv('a', 'expired')`, `nv('a', 'suppressed', { suppressedBy: 'cordoned' })`. */
export function nv(
  name: string,
  verdict: Verdict,
  overrides: Partial<NodeVerdict> = {},
): NodeVerdict {
  return {
    name,
    verdict,
    reason: REASONS[verdict],
    renewTime: '2026-11-29T17:58:47.065888Z',
    leaseDurationSeconds: 40,
    silentForSeconds: verdict === 'expired' ? 73 : 4,
    zone: 'eu-west-1a',
    instance: `i-${name}`,
    providerID: `aws:///eu-west-1a/i-${name}`,
    ...(verdict === 'suppressed' ? { suppressedBy: 'cordoned' as const } : {}),
    ...overrides,
  };
}

/** `count` nodes named `${prefix}-000`… with one verdict, in one zone. */
export function nodes(
  prefix: string,
  count: number,
  verdict: Verdict,
  zone: string | null = 'eu-west-1a',
): NodeVerdict[] {
  return Array.from({ length: count }, (_, i) =>
    nv(`${prefix}-${String(i).padStart(3, '0')}`, verdict, { zone }),
  );
}

export function evaluation(options: {
  nodes: readonly NodeVerdict[];
  cluster?: string;
  checkedAt?: number;
  zones?: readonly ZoneSummary[];
  degraded?: string;
}): Evaluation {
  const sorted = [...options.nodes].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  // The counts exactly as the evaluator makes them (lambda/core/verdict-tally.ts).
  const counts = tally(sorted);
  return {
    cluster: options.cluster ?? CLUSTER,
    checkedAt: options.checkedAt ?? T0,
    serverTime: options.checkedAt ?? T0,
    nodes: sorted,
    summary: counts.summary,
    zones: options.zones ?? counts.zones,
    nodeGroups: counts.nodeGroups,
    // A suspect verdict, or a healthy one silent past a renew interval, is a marked suspect.
    observations: new Map(
      sorted
        .filter((n) => n.verdict === 'suspect' || (n.silentForSeconds ?? 0) >= 12)
        .map((n) => [n.name, { renewTime: n.renewTime, changedAt: T0, suspectSince: T0 }]),
    ),
    ...(options.degraded === undefined ? {} : { degraded: options.degraded }),
  };
}

export function policy(overrides: {
  reminderIntervalSeconds?: number;
  readFailuresBeforePage?: number;
  unreadableBeforePageSeconds?: number;
  stuckRemovalSeconds?: number;
  flapping?: Partial<AlertPolicy['flapping']>;
  storm?: Partial<AlertPolicy['storm']>;
}): AlertPolicy {
  return {
    reminderIntervalSeconds:
      overrides.reminderIntervalSeconds ?? DEFAULT_ALERT_POLICY.reminderIntervalSeconds,
    readFailuresBeforePage:
      overrides.readFailuresBeforePage ?? DEFAULT_ALERT_POLICY.readFailuresBeforePage,
    unreadableBeforePageSeconds:
      overrides.unreadableBeforePageSeconds ?? DEFAULT_ALERT_POLICY.unreadableBeforePageSeconds,
    stuckRemovalSeconds: overrides.stuckRemovalSeconds ?? DEFAULT_ALERT_POLICY.stuckRemovalSeconds,
    flapping: { ...DEFAULT_ALERT_POLICY.flapping, ...overrides.flapping },
    storm: { ...DEFAULT_ALERT_POLICY.storm, ...overrides.storm },
  };
}

/** One check in a scenario: a successful one (`nodes`) or a failed read (`failure`). */
export type Check =
  | { readonly at: number; readonly nodes: readonly NodeVerdict[]; readonly degraded?: string }
  | {
      readonly at: number;
      readonly failure: ClusterReadFailure | 'unknown';
      readonly message?: string;
    };

export interface Run {
  readonly notifications: (Notification | null)[];
  readonly states: AlertState[];
}

/**
 * Runs checks in order from EMPTY_ALERT_STATE (or `start`), passing the state through a JSON round
 * trip between checks, as the stores do.
 */
export function runChecks(
  checks: readonly Check[],
  alertPolicy: AlertPolicy = DEFAULT_ALERT_POLICY,
  start: AlertState = EMPTY_ALERT_STATE,
): Run {
  let state = start;
  const notifications: (Notification | null)[] = [];
  const states: AlertState[] = [];
  for (const check of checks) {
    const out =
      'failure' in check
        ? alertsForReadFailure(
            {
              cluster: CLUSTER,
              failure: check.failure,
              message: check.message ?? `cannot list leases: ${check.failure}`,
            },
            state,
            alertPolicy,
            check.at,
          )
        : alertsForEvaluation(
            evaluation({
              nodes: check.nodes,
              checkedAt: check.at,
              ...(check.degraded === undefined ? {} : { degraded: check.degraded }),
            }),
            state,
            alertPolicy,
            check.at,
          );
    notifications.push(out.notification);
    state = JSON.parse(JSON.stringify(out.state)) as AlertState;
    states.push(state);
  }
  return { notifications, states };
}

/** What a notification says, in a form a table can hold. */
export interface Digest {
  kind: string;
  severity: string;
  firing: string[];
  /** `name:resolution`. */
  resolved: string[];
  reminders: string[];
  flapping: string[];
  /** `state scope zone=silent/total,…` and ` groups group=silent/total,…` when node groups are named. */
  storm?: string;
  /** `state failure`. */
  watchdog?: string;
}

export function digest(notification: Notification | null): Digest | null {
  if (notification === null) return null;
  const out: Digest = {
    kind: notification.kind,
    severity: notification.severity,
    firing: notification.firing.map((n) => n.name),
    resolved: notification.resolved.map((n) => `${n.name}:${n.resolution}`),
    reminders: notification.reminders.map((n) => n.name),
    flapping: notification.flapping.map((n) => n.name),
  };
  if (notification.storm !== undefined) {
    const s = notification.storm;
    const zones = s.zones.map((z) => `${z.zone}=${z.silent}/${z.total}`).join(',');
    const groups = (s.nodeGroups ?? []).map((g) => `${g.nodeGroup}=${g.silent}/${g.total}`);
    out.storm = `${s.state ?? 'active'} ${s.scope} ${zones}${groups.length > 0 ? ` groups ${groups.join(',')}` : ''}`;
  }
  if (notification.watchdog !== undefined) {
    out.watchdog = `${notification.watchdog.state} ${notification.watchdog.failure}`;
  }
  return out;
}

/** A digest with empty lists unless given: `expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] })`. */
export function expected(partial: Partial<Digest> & Pick<Digest, 'kind' | 'severity'>): Digest {
  return { firing: [], resolved: [], reminders: [], flapping: [], ...partial };
}

/** A named sequence of checks, each with the notification digest it must produce (or null). */
export interface Scenario {
  readonly name: string;
  readonly policy?: AlertPolicy;
  readonly checks: readonly (Check & { readonly expect: Digest | null })[];
}

/** Registers one test per scenario: run its checks, compare each notification's digest. */
export function runScenarios(scenarios: readonly Scenario[]): void {
  for (const scenario of scenarios) {
    test(scenario.name, () => {
      // Prepare / Act
      const run = runChecks(scenario.checks, scenario.policy);
      // Assess
      assert.deepStrictEqual(
        run.notifications.map(digest),
        scenario.checks.map((check) => check.expect),
      );
    });
  }
}
