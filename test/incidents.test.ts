import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EMPTY_ALERT_STATE } from '../lambda/core/alert-state.js';
import { incidentKey } from '../lambda/core/incident-keys.js';
import { alertsForEvaluation } from '../lambda/core/incidents.js';
import type { SuppressionCause } from '../lambda/core/model.js';
import type { Notification } from '../lambda/core/notification.js';
import { alertsForReadFailure } from '../lambda/core/watchdog-alerts.js';
import { DEFAULT_ALERT_POLICY } from '../lambda/settings/index.js';
import {
  evaluation,
  expected,
  HOUR,
  MINUTE,
  nodes,
  nv,
  policy,
  runChecks,
  runScenarios,
  type Scenario,
  SECOND,
  T0,
} from '../testkit/alert-builders.js';

const FOUR_HOURS = 4 * HOUR;
/**
 * The behaviour before the streak: the first failed read pages (no count, and no time to wait:
 * the default waits out the grace period).
 */
const PAGE_FIRST = policy({ readFailuresBeforePage: 1, unreadableBeforePageSeconds: 0 });

describe('incidents: open and resolve', () => {
  const suppressions: SuppressionCause[] = [
    'cordoned',
    'deleting',
    'autoscaler-removal',
    'karpenter-disruption',
    'excluded',
  ];
  runScenarios([
    {
      name: 'a node seen for the first time already silent waits one check (kubelet clock alone)',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired', { newlySeen: true }), nv('b', 'healthy', { newlySeen: true })],
          expect: null,
        },
        {
          at: T0 + MINUTE,
          nodes: [nv('a', 'expired'), nv('b', 'healthy')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
      ],
    },
    {
      name: 'a first-seen node that turns out healthy on the next check never fires',
      checks: [
        { at: T0, nodes: [nv('a', 'expired', { newlySeen: true })], expect: null },
        { at: T0 + MINUTE, nodes: [nv('a', 'healthy')], expect: null },
      ],
    },
    {
      name: 'first-seen nodes in a storm are not held back',
      checks: [
        {
          at: T0,
          nodes: [
            ...nodes('z', 4, 'expired').map((n) => ({ ...n, newlySeen: true })),
            nv('b', 'healthy'),
          ],
          expect: expected({
            kind: 'STORM',
            severity: 'critical',
            firing: ['z-000', 'z-001', 'z-002', 'z-003'],
            storm: 'active cluster eu-west-1a=4/5',
          }),
        },
      ],
    },
    {
      name: 'first failure → one FIRING',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired'), nv('b', 'healthy')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
      ],
    },
    {
      name: 'every alerting verdict fires, in one notification sorted by name',
      checks: [
        {
          at: T0,
          nodes: [
            nv('c', 'missing-lease'),
            nv('a', 'not-ready'),
            nv('b', 'expired'),
            ...nodes('ok', 4, 'healthy'),
          ],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a', 'b', 'c'] }),
        },
      ],
    },
    {
      name: 'nothing alerting → null',
      checks: [
        {
          at: T0,
          nodes: [
            nv('a', 'healthy'),
            nv('b', 'suppressed'),
            nv('c', 'orphaned-lease'),
            nv('d', 'invalid'),
          ],
          expect: null,
        },
      ],
    },
    {
      name: 'same state next check → null',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        { at: T0 + MINUTE, nodes: [nv('a', 'expired')], expect: null },
        { at: T0 + 2 * MINUTE, nodes: [nv('a', 'expired')], expect: null },
      ],
    },
    {
      name: 'recovery → RESOLVED recovered',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        {
          at: T0 + MINUTE,
          nodes: [nv('a', 'healthy')],
          expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:recovered'] }),
        },
        { at: T0 + 2 * MINUTE, nodes: [nv('a', 'healthy')], expect: null },
      ],
    },
    ...suppressions.map(
      (cause): Scenario => ({
        name: `suppressed (${cause}) after failing → RESOLVED ${cause}`,
        checks: [
          {
            at: T0,
            nodes: [nv('a', 'not-ready')],
            expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
          },
          {
            at: T0 + MINUTE,
            nodes: [nv('a', 'suppressed', { suppressedBy: cause })],
            expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: [`a:${cause}`] }),
          },
        ],
      }),
    ),
    {
      name: 'suppressed without a cause → RESOLVED excluded',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        {
          at: T0 + MINUTE,
          nodes: [nv('a', 'suppressed', { suppressedBy: undefined })],
          expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:excluded'] }),
        },
      ],
    },
    {
      name: 'orphaned lease after failing → RESOLVED node-deleted',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        {
          at: T0 + MINUTE,
          nodes: [nv('a', 'orphaned-lease')],
          expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:node-deleted'] }),
        },
        { at: T0 + 2 * MINUTE, nodes: [nv('a', 'orphaned-lease')], expect: null },
      ],
    },
    {
      name: 'node absent from the evaluation after failing → RESOLVED node-deleted',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired'), nv('b', 'healthy')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        {
          at: T0 + MINUTE,
          nodes: [nv('b', 'healthy')],
          expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:node-deleted'] }),
        },
        { at: T0 + 2 * MINUTE, nodes: [nv('b', 'healthy')], expect: null },
      ],
    },
    {
      name: 'absent from a degraded evaluation → incident kept, resolved once seen healthy',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'missing-lease'), nv('b', 'healthy')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        {
          at: T0 + MINUTE,
          nodes: [nv('b', 'healthy')],
          degraded: 'cannot list nodes: 403 Forbidden',
          expect: null,
        },
        {
          at: T0 + 2 * MINUTE,
          nodes: [nv('a', 'healthy'), nv('b', 'healthy')],
          expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:recovered'] }),
        },
      ],
    },
    {
      name: 'expired → not-ready → missing-lease updates the incident without a new FIRING',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        { at: T0 + MINUTE, nodes: [nv('a', 'not-ready')], expect: null },
        { at: T0 + 2 * MINUTE, nodes: [nv('a', 'missing-lease')], expect: null },
      ],
    },
    {
      name: 'invalid verdict keeps the incident open (no RESOLVED, no new FIRING)',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        { at: T0 + MINUTE, nodes: [nv('a', 'invalid')], expect: null },
        { at: T0 + 2 * MINUTE, nodes: [nv('a', 'expired')], expect: null },
        {
          at: T0 + 3 * MINUTE,
          nodes: [nv('a', 'healthy')],
          expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:recovered'] }),
        },
      ],
    },
    {
      name: 'one check with changes of several kinds → one notification, headline by priority',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired'), nv('b', 'healthy'), nv('c', 'healthy')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        {
          at: T0 + MINUTE,
          nodes: [nv('a', 'healthy'), nv('b', 'expired'), nv('c', 'healthy')],
          expect: expected({
            kind: 'FIRING',
            severity: 'critical',
            firing: ['b'],
            resolved: ['a:recovered'],
          }),
        },
        {
          at: T0 + MINUTE + FOUR_HOURS,
          nodes: [nv('a', 'healthy'), nv('b', 'expired'), nv('c', 'not-ready')],
          expect: expected({
            kind: 'FIRING',
            severity: 'critical',
            firing: ['c'],
            reminders: ['b'],
          }),
        },
        {
          at: T0 + 2 * MINUTE + FOUR_HOURS,
          nodes: [nv('a', 'healthy'), nv('b', 'healthy'), nv('c', 'not-ready')],
          expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['b:recovered'] }),
        },
      ],
    },
  ]);

  test('AlertNode carries the verdict fields, since, and resolution', () => {
    // Prepare
    const failing = nv('ip-10-0-1-5', 'expired', {
      zone: 'eu-west-1b',
      instance: 'i-0abc',
      renewTime: '2026-11-29T17:58:47.065888Z',
      silentForSeconds: 73,
    });
    const first = alertsForEvaluation(
      evaluation({ nodes: [failing] }),
      EMPTY_ALERT_STATE,
      DEFAULT_ALERT_POLICY,
      T0,
    );
    // Act
    const second = alertsForEvaluation(
      evaluation({ nodes: [nv('ip-10-0-1-5', 'suppressed', { suppressedBy: 'deleting' })] }),
      first.state,
      DEFAULT_ALERT_POLICY,
      T0 + MINUTE,
    );
    // Assess
    assert.deepStrictEqual(first.notification?.firing, [
      {
        name: 'ip-10-0-1-5',
        zone: 'eu-west-1b',
        instance: 'i-0abc',
        verdict: 'expired',
        reason: failing.reason,
        renewTime: '2026-11-29T17:58:47.065888Z',
        silentForSeconds: 73,
        since: T0,
        key: incidentKey('node', 'prod-eu', 'ip-10-0-1-5', T0),
      },
    ]);
    const resolved = second.notification?.resolved[0];
    assert.equal(resolved?.verdict, 'suppressed');
    assert.equal(resolved?.since, T0);
    assert.equal(resolved?.resolution, 'deleting');
    assert.equal(second.notification?.at, T0 + MINUTE);
    assert.equal(second.notification?.cluster, 'prod-eu');
  });

  test('a vanished node is shown as last seen, with no silence', () => {
    // Prepare
    const first = alertsForEvaluation(
      evaluation({ nodes: [nv('a', 'not-ready', { zone: 'z1', instance: 'i-1' })] }),
      EMPTY_ALERT_STATE,
      DEFAULT_ALERT_POLICY,
      T0,
    );
    // Act
    const second = alertsForEvaluation(
      evaluation({ nodes: [] }),
      first.state,
      DEFAULT_ALERT_POLICY,
      T0 + MINUTE,
    );
    // Assess
    const [gone] = second.notification?.resolved ?? [];
    assert.equal(gone?.name, 'a');
    assert.equal(gone?.verdict, 'not-ready');
    assert.equal(gone?.zone, 'z1');
    assert.equal(gone?.instance, 'i-1');
    assert.equal(gone?.silentForSeconds, null);
    assert.equal(gone?.since, T0);
    assert.equal(gone?.resolution, 'node-deleted');
    assert.match(gone?.reason ?? '', /no longer in the cluster/);
    assert.deepStrictEqual(second.state.incidents, {});
  });

  test('a check that changes nothing returns the same state object', () => {
    // Prepare
    const first = alertsForEvaluation(
      evaluation({ nodes: [nv('a', 'expired'), nv('b', 'healthy')] }),
      EMPTY_ALERT_STATE,
      DEFAULT_ALERT_POLICY,
      T0,
    );
    // Act
    const second = alertsForEvaluation(
      evaluation({ nodes: [nv('a', 'expired'), nv('b', 'healthy')] }),
      first.state,
      DEFAULT_ALERT_POLICY,
      T0 + MINUTE,
    );
    // Assess
    assert.equal(second.notification, null);
    assert.equal(second.state, first.state);
    assert.deepStrictEqual(Object.keys(first.state.incidents), ['a']);
  });

  test('node names that are Object.prototype keys are ordinary names', () => {
    // Prepare
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    // Act
    const run = runChecks([
      { at: T0, nodes: names.map((name) => nv(name, 'expired')) },
      { at: T0 + MINUTE, nodes: names.map((name) => nv(name, 'expired')) },
      { at: T0 + 2 * MINUTE, nodes: names.map((name) => nv(name, 'healthy')) },
    ]);
    // Assess
    assert.deepStrictEqual(
      run.notifications[0]?.firing.map((n) => n.name).sort(),
      [...names].sort(),
    );
    assert.equal(run.notifications[1], null);
    assert.equal(run.notifications[2]?.resolved.length, names.length);
    assert.deepStrictEqual(Object.keys(run.states[2]?.incidents ?? { x: 1 }), []);
  });
});

describe('incidents: reminders', () => {
  runScenarios([
    {
      name: 'reminder exactly at the interval, not 1 ms before',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        { at: T0 + FOUR_HOURS - 1, nodes: [nv('a', 'expired')], expect: null },
        {
          at: T0 + FOUR_HOURS,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'REMINDER', severity: 'warning', reminders: ['a'] }),
        },
        { at: T0 + FOUR_HOURS + MINUTE, nodes: [nv('a', 'expired')], expect: null },
        { at: T0 + 2 * FOUR_HOURS - 1, nodes: [nv('a', 'expired')], expect: null },
        {
          at: T0 + 2 * FOUR_HOURS,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'REMINDER', severity: 'warning', reminders: ['a'] }),
        },
      ],
    },
    {
      name: 'reminder counts from the last notice, not from the opening',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        {
          at: T0 + FOUR_HOURS + 5 * MINUTE,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'REMINDER', severity: 'warning', reminders: ['a'] }),
        },
        { at: T0 + 2 * FOUR_HOURS, nodes: [nv('a', 'expired')], expect: null },
        {
          at: T0 + 2 * FOUR_HOURS + 5 * MINUTE,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'REMINDER', severity: 'warning', reminders: ['a'] }),
        },
      ],
    },
    {
      name: 'reminders of one check are grouped',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired'), nv('b', 'not-ready')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a', 'b'] }),
        },
        {
          at: T0 + FOUR_HOURS,
          nodes: [nv('a', 'expired'), nv('b', 'not-ready'), nv('c', 'healthy')],
          expect: expected({ kind: 'REMINDER', severity: 'warning', reminders: ['a', 'b'] }),
        },
      ],
    },
    {
      name: 'reminders continue while the verdict is invalid',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        {
          at: T0 + FOUR_HOURS,
          nodes: [nv('a', 'invalid')],
          expect: expected({ kind: 'REMINDER', severity: 'warning', reminders: ['a'] }),
        },
      ],
    },
    {
      name: 'reminder off with 0',
      policy: policy({ reminderIntervalSeconds: 0 }),
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        { at: T0 + FOUR_HOURS, nodes: [nv('a', 'expired')], expect: null },
        { at: T0 + 100 * HOUR, nodes: [nv('a', 'expired')], expect: null },
      ],
    },
    {
      name: 'a shorter interval from the policy',
      policy: policy({ reminderIntervalSeconds: 600 }),
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        {
          at: T0 + 10 * MINUTE,
          nodes: [nv('a', 'expired')],
          expect: expected({ kind: 'REMINDER', severity: 'warning', reminders: ['a'] }),
        },
      ],
    },
  ]);
});

describe('watchdog', () => {
  runScenarios([
    {
      name: 'readFailuresBeforePage 1: read failure → WATCHDOG failing once, quiet, reminder at the interval, resolved on the next evaluation',
      policy: PAGE_FIRST,
      checks: [
        {
          at: T0,
          failure: 'unreachable',
          expect: expected({
            kind: 'WATCHDOG',
            severity: 'critical',
            watchdog: 'failing unreachable',
          }),
        },
        { at: T0 + MINUTE, failure: 'unreachable', expect: null },
        { at: T0 + FOUR_HOURS - 1, failure: 'unreachable', expect: null },
        {
          at: T0 + FOUR_HOURS,
          failure: 'unreachable',
          expect: expected({
            kind: 'WATCHDOG',
            severity: 'critical',
            watchdog: 'failing unreachable',
          }),
        },
        { at: T0 + FOUR_HOURS + MINUTE, failure: 'unreachable', expect: null },
        {
          at: T0 + FOUR_HOURS + 2 * MINUTE,
          nodes: [nv('a', 'healthy')],
          expect: expected({
            kind: 'WATCHDOG',
            severity: 'info',
            watchdog: 'resolved unreachable',
          }),
        },
        { at: T0 + FOUR_HOURS + 3 * MINUTE, nodes: [nv('a', 'healthy')], expect: null },
      ],
    },
    {
      name: 'a change in what fails while the WATCHDOG is open is not a second page; the reminder and the resolution say the latest',
      policy: PAGE_FIRST,
      checks: [
        {
          at: T0,
          failure: 'timeout',
          expect: expected({ kind: 'WATCHDOG', severity: 'critical', watchdog: 'failing timeout' }),
        },
        { at: T0 + MINUTE, failure: 'unauthorized', expect: null },
        { at: T0 + 2 * MINUTE, failure: 'tls', expect: null },
        {
          at: T0 + FOUR_HOURS,
          failure: 'tls',
          expect: expected({ kind: 'WATCHDOG', severity: 'critical', watchdog: 'failing tls' }),
        },
        {
          at: T0 + FOUR_HOURS + MINUTE,
          nodes: [nv('a', 'healthy')],
          expect: expected({ kind: 'WATCHDOG', severity: 'info', watchdog: 'resolved tls' }),
        },
      ],
    },
    {
      name: 'watchdog reminders off with 0',
      policy: policy({
        reminderIntervalSeconds: 0,
        readFailuresBeforePage: 1,
        unreadableBeforePageSeconds: 0,
      }),
      checks: [
        {
          at: T0,
          failure: 'forbidden',
          expect: expected({
            kind: 'WATCHDOG',
            severity: 'critical',
            watchdog: 'failing forbidden',
          }),
        },
        { at: T0 + 10 * FOUR_HOURS, failure: 'forbidden', expect: null },
      ],
    },
    {
      name: 'node incidents survive a read failure: no RESOLVED, no new FIRING, reminders held back',
      policy: PAGE_FIRST,
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired'), nv('b', 'healthy')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        {
          at: T0 + MINUTE,
          failure: 'server',
          expect: expected({ kind: 'WATCHDOG', severity: 'critical', watchdog: 'failing server' }),
        },
        { at: T0 + FOUR_HOURS, failure: 'server', expect: null },
        {
          at: T0 + FOUR_HOURS + MINUTE,
          nodes: [nv('a', 'expired'), nv('b', 'healthy')],
          expect: expected({
            kind: 'REMINDER',
            severity: 'warning',
            reminders: ['a'],
            watchdog: 'resolved server',
          }),
        },
      ],
    },
    {
      name: 'watchdog resolved with node changes → headline from the nodes, watchdog carried',
      policy: PAGE_FIRST,
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired'), nv('b', 'healthy')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        {
          at: T0 + MINUTE,
          failure: 'tls',
          expect: expected({ kind: 'WATCHDOG', severity: 'critical', watchdog: 'failing tls' }),
        },
        {
          at: T0 + 2 * MINUTE,
          nodes: [nv('a', 'healthy'), nv('b', 'healthy')],
          expect: expected({
            kind: 'RESOLVED',
            severity: 'info',
            resolved: ['a:recovered'],
            watchdog: 'resolved tls',
          }),
        },
      ],
    },
    {
      name: 'watchdog resolved with a new failure → FIRING headline',
      policy: PAGE_FIRST,
      checks: [
        {
          at: T0,
          failure: 'aborted',
          expect: expected({ kind: 'WATCHDOG', severity: 'critical', watchdog: 'failing aborted' }),
        },
        {
          at: T0 + MINUTE,
          nodes: [nv('a', 'expired')],
          expect: expected({
            kind: 'FIRING',
            severity: 'critical',
            firing: ['a'],
            watchdog: 'resolved aborted',
          }),
        },
      ],
    },
  ]);

  test('the watchdog notice says what failed, the latest message, and since when', () => {
    // Prepare
    const first = alertsForReadFailure(
      { cluster: 'prod-eu', failure: 'timeout', message: 'no answer in 10 s' },
      EMPTY_ALERT_STATE,
      PAGE_FIRST,
      T0,
    );
    const quiet = alertsForReadFailure(
      { cluster: 'prod-eu', failure: 'timeout', message: 'no answer in 12 s' },
      first.state,
      PAGE_FIRST,
      T0 + MINUTE,
    );
    // Act
    const changed = alertsForReadFailure(
      { cluster: 'prod-eu', failure: 'forbidden', message: 'leases is forbidden' },
      quiet.state,
      PAGE_FIRST,
      T0 + 2 * MINUTE,
    );
    const healed = alertsForEvaluation(
      evaluation({ nodes: [] }),
      changed.state,
      PAGE_FIRST,
      T0 + 3 * MINUTE,
    );
    // Assess
    assert.deepStrictEqual(first.notification?.watchdog, {
      state: 'failing',
      failure: 'timeout',
      message: 'no answer in 10 s',
      since: T0,
      key: incidentKey('watchdog', 'prod-eu', '', T0),
    });
    assert.equal(quiet.notification, null);
    assert.equal(quiet.state.watchdog?.message, 'no answer in 12 s');
    assert.equal(changed.notification, null);
    assert.deepStrictEqual(changed.state.watchdog, {
      failure: 'forbidden',
      message: 'leases is forbidden',
      since: T0,
      failures: 1,
      lastNotifiedAt: T0,
    });
    assert.deepStrictEqual(healed.notification?.watchdog, {
      state: 'resolved',
      failure: 'forbidden',
      message: 'leases is forbidden',
      since: T0,
      key: incidentKey('watchdog', 'prod-eu', '', T0),
    });
    assert.equal(healed.state.watchdog, null);
    assert.deepStrictEqual([first.notification?.firing, first.notification?.resolved], [[], []]);
  });

  test('a read failure leaves node incidents exactly as they were', () => {
    // Prepare
    const open = alertsForEvaluation(
      evaluation({ nodes: [nv('a', 'expired'), nv('b', 'not-ready')] }),
      EMPTY_ALERT_STATE,
      DEFAULT_ALERT_POLICY,
      T0,
    );
    // Act
    const failed = alertsForReadFailure(
      { cluster: 'prod-eu', failure: 'unknown', message: 'boom' },
      open.state,
      DEFAULT_ALERT_POLICY,
      T0 + FOUR_HOURS,
    );
    // Assess
    assert.equal(failed.state.incidents, open.state.incidents);
    assert.equal(failed.state.flaps, open.state.flaps);
    assert.equal(failed.state.storm, open.state.storm);
    assert.deepStrictEqual(Object.keys(failed.state.incidents).sort(), ['a', 'b']);
  });
});

describe('watchdog: a failed read pages once confirmed (readFailuresBeforePage)', () => {
  const failing = (failure: 'unreachable' | 'tls' | 'timeout') =>
    expected({ kind: 'WATCHDOG', severity: 'critical', watchdog: `failing ${failure}` });
  runScenarios([
    {
      name: 'default 2: one failed read between good checks pages nothing, and nothing resolves',
      checks: [
        { at: T0, nodes: [nv('a', 'healthy')], expect: null },
        { at: T0 + MINUTE, failure: 'unreachable', expect: null },
        { at: T0 + 2 * MINUTE, nodes: [nv('a', 'healthy')], expect: null },
      ],
    },
    {
      name: 'default 2: the second failed read in a row pages',
      checks: [
        { at: T0, failure: 'unreachable', expect: null },
        { at: T0 + MINUTE, failure: 'unreachable', expect: failing('unreachable') },
        { at: T0 + 2 * MINUTE, failure: 'unreachable', expect: null },
        {
          at: T0 + 3 * MINUTE,
          nodes: [nv('a', 'healthy')],
          expect: expected({
            kind: 'WATCHDOG',
            severity: 'info',
            watchdog: 'resolved unreachable',
          }),
        },
      ],
    },
    {
      name: 'default 2: failures of different classes make one streak; the page names the latest',
      checks: [
        { at: T0, failure: 'unreachable', expect: null },
        { at: T0 + MINUTE, failure: 'tls', expect: failing('tls') },
        { at: T0 + 2 * MINUTE, failure: 'timeout', expect: null },
      ],
    },
    {
      name: 'default 2: a good check breaks the streak',
      checks: [
        { at: T0, failure: 'timeout', expect: null },
        { at: T0 + MINUTE, nodes: [nv('a', 'healthy')], expect: null },
        { at: T0 + 2 * MINUTE, failure: 'timeout', expect: null },
        { at: T0 + 3 * MINUTE, nodes: [nv('a', 'healthy')], expect: null },
        { at: T0 + 4 * MINUTE, failure: 'timeout', expect: null },
        { at: T0 + 5 * MINUTE, failure: 'timeout', expect: failing('timeout') },
      ],
    },
    {
      name: 'looks every 20 s: failed reads within the grace period (50 s) page nothing, however many',
      checks: [
        { at: T0, failure: 'unreachable', expect: null },
        { at: T0 + 20 * SECOND, failure: 'unreachable', expect: null },
        { at: T0 + 40 * SECOND, failure: 'unreachable', expect: null },
        { at: T0 + 49 * SECOND, failure: 'unreachable', expect: null },
        { at: T0 + 50 * SECOND, failure: 'unreachable', expect: failing('unreachable') },
      ],
    },
    {
      name: 'a 45 s blip seen by three looks ends silently',
      checks: [
        { at: T0, failure: 'timeout', expect: null },
        { at: T0 + 20 * SECOND, failure: 'timeout', expect: null },
        { at: T0 + 40 * SECOND, failure: 'timeout', expect: null },
        { at: T0 + 60 * SECOND, nodes: [nv('a', 'healthy')], expect: null },
      ],
    },
    {
      name: 'readFailuresBeforePage 1: pages the first failed read once the grace period is over',
      policy: policy({ readFailuresBeforePage: 1 }),
      checks: [
        { at: T0, failure: 'timeout', expect: null },
        { at: T0 + 50 * SECOND, failure: 'timeout', expect: failing('timeout') },
      ],
    },
    {
      name: '3: pages on the third failed read in a row',
      policy: policy({ readFailuresBeforePage: 3 }),
      checks: [
        { at: T0, failure: 'timeout', expect: null },
        { at: T0 + MINUTE, failure: 'timeout', expect: null },
        { at: T0 + 2 * MINUTE, failure: 'timeout', expect: failing('timeout') },
      ],
    },
    {
      name: 'default 2: an unconfirmed failure ends silently with the node changes of the next check',
      checks: [
        {
          at: T0,
          nodes: [nv('a', 'expired'), nv('b', 'healthy')],
          expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
        },
        { at: T0 + MINUTE, failure: 'server', expect: null },
        {
          at: T0 + 2 * MINUTE,
          nodes: [nv('a', 'healthy'), nv('b', 'healthy')],
          expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:recovered'] }),
        },
      ],
    },
    {
      name: 'default 2: reminders count from the page, and a new class is not a page',
      checks: [
        { at: T0, failure: 'unreachable', expect: null },
        { at: T0 + MINUTE, failure: 'unreachable', expect: failing('unreachable') },
        { at: T0 + 2 * MINUTE, failure: 'tls', expect: null },
        { at: T0 + FOUR_HOURS, failure: 'tls', expect: null },
        { at: T0 + MINUTE + FOUR_HOURS, failure: 'tls', expect: failing('tls') },
      ],
    },
  ]);

  test('the streak is remembered from its first failure, and the page says since then', () => {
    // Prepare / Act
    const run = runChecks([
      { at: T0, failure: 'unreachable', message: 'connect ECONNREFUSED 10.0.0.1:443' },
      { at: T0 + MINUTE, failure: 'tls', message: 'self-signed certificate' },
      { at: T0 + 2 * MINUTE, failure: 'tls', message: 'self-signed certificate' },
    ]);
    // Assess
    assert.deepStrictEqual(run.states[0]?.watchdog, {
      failure: 'unreachable',
      message: 'connect ECONNREFUSED 10.0.0.1:443',
      since: T0,
      failures: 1,
      lastNotifiedAt: null,
    });
    assert.deepStrictEqual(run.notifications[1]?.watchdog, {
      state: 'failing',
      failure: 'tls',
      message: 'self-signed certificate',
      since: T0,
      key: incidentKey('watchdog', 'prod-eu', '', T0),
    });
    assert.deepStrictEqual(run.states[1]?.watchdog, {
      failure: 'tls',
      message: 'self-signed certificate',
      since: T0,
      failures: 2,
      lastNotifiedAt: T0 + MINUTE,
    });
    assert.deepStrictEqual(run.states[2], run.states[1]);
  });

  test('an unchanged failing cluster hands back the same state object (no write)', () => {
    // Prepare
    const pending = alertsForReadFailure(
      { cluster: 'prod-eu', failure: 'timeout', message: 'x' },
      EMPTY_ALERT_STATE,
      DEFAULT_ALERT_POLICY,
      T0,
    );
    const paged = alertsForReadFailure(
      { cluster: 'prod-eu', failure: 'timeout', message: 'x' },
      pending.state,
      DEFAULT_ALERT_POLICY,
      T0 + MINUTE,
    );
    // Act
    const again = alertsForReadFailure(
      { cluster: 'prod-eu', failure: 'timeout', message: 'x' },
      paged.state,
      DEFAULT_ALERT_POLICY,
      T0 + 2 * MINUTE,
    );
    // Assess
    assert.notEqual(pending.state, EMPTY_ALERT_STATE);
    assert.equal(pending.notification, null);
    assert.equal(paged.notification?.kind, 'WATCHDOG');
    assert.equal(again.notification, null);
    assert.equal(again.state, paged.state);
  });

  test('a record written before the streak existed (no failures) counts as paged', () => {
    // Prepare
    const old = {
      ...EMPTY_ALERT_STATE,
      watchdog: { failure: 'timeout' as const, message: 'x', since: T0, lastNotifiedAt: T0 },
    };
    // Act
    const quiet = alertsForReadFailure(
      { cluster: 'prod-eu', failure: 'tls', message: 'y' },
      old,
      DEFAULT_ALERT_POLICY,
      T0 + MINUTE,
    );
    const healed = alertsForEvaluation(
      evaluation({ nodes: [] }),
      quiet.state,
      DEFAULT_ALERT_POLICY,
      T0 + 2 * MINUTE,
    );
    // Assess
    assert.equal(quiet.notification, null);
    assert.equal(healed.notification?.watchdog?.state, 'resolved');
  });
});

describe('notification id', () => {
  const at = (
    nodesAt: Parameters<typeof evaluation>[0]['nodes'],
    now: number,
    cluster = 'prod-eu',
  ): Notification | null =>
    alertsForEvaluation(
      evaluation({ nodes: nodesAt, cluster }),
      EMPTY_ALERT_STATE,
      DEFAULT_ALERT_POLICY,
      now,
    ).notification;

  test('same inputs → same id (a sha256 hex)', () => {
    // Prepare / Act
    const one = at([nv('a', 'expired'), nv('b', 'expired')], T0);
    const two = at([nv('b', 'expired'), nv('a', 'expired')], T0);
    // Assess
    assert.match(one?.id ?? '', /^[0-9a-f]{64}$/);
    assert.equal(one?.id, two?.id);
  });

  const variants: { name: string; notification: () => Notification | null }[] = [
    {
      name: 'another time',
      notification: () => at([nv('a', 'expired'), nv('b', 'expired')], T0 + 1),
    },
    {
      name: 'another cluster',
      notification: () => at([nv('a', 'expired'), nv('b', 'expired')], T0, 'prod-us'),
    },
    { name: 'another node', notification: () => at([nv('a', 'expired'), nv('c', 'expired')], T0) },
    { name: 'fewer nodes', notification: () => at([nv('a', 'expired')], T0) },
    {
      name: 'another verdict',
      notification: () => at([nv('a', 'expired'), nv('b', 'not-ready')], T0),
    },
    {
      name: 'another kind',
      notification: () =>
        alertsForReadFailure(
          { cluster: 'prod-eu', failure: 'timeout', message: 'x' },
          EMPTY_ALERT_STATE,
          PAGE_FIRST,
          T0,
        ).notification,
    },
  ];
  for (const variant of variants) {
    test(`different inputs (${variant.name}) → different id`, () => {
      // Prepare
      const base = at([nv('a', 'expired'), nv('b', 'expired')], T0);
      // Act
      const other = variant.notification();
      // Assess
      assert.ok(base !== null && other !== null);
      assert.notEqual(other.id, base.id);
    });
  }
});

describe('scale', () => {
  test('100,000 nodes: fail, stay, recover, vanish', () => {
    // Prepare: 10 zones of 10,000; 3,000 failing in each zone (30 %: no storm).
    const zones = Array.from({ length: 10 }, (_, z) => `zone-${z}`);
    const build = (failing: boolean): ReturnType<typeof nv>[] =>
      zones.flatMap((zone) =>
        Array.from({ length: 10_000 }, (_, i) =>
          nv(`${zone}-node-${i}`, failing && i < 3_000 ? 'expired' : 'healthy', { zone }),
        ),
      );
    const failing = build(true);
    // Act
    const run = runChecks([
      { at: T0, nodes: failing },
      { at: T0 + MINUTE, nodes: failing },
      { at: T0 + 2 * MINUTE, nodes: build(false) },
      { at: T0 + 3 * MINUTE, nodes: failing },
      { at: T0 + 4 * MINUTE, nodes: nodes('other', 1, 'healthy') },
    ]);
    // Assess
    assert.equal(run.notifications[0]?.kind, 'FIRING');
    assert.equal(run.notifications[0]?.firing.length, 30_000);
    assert.equal(run.notifications[1], null);
    assert.equal(run.notifications[2]?.resolved.length, 30_000);
    assert.equal(run.notifications[3]?.kind, 'FLAPPING'); // open, resolve, open: 3 transitions
    assert.equal(run.notifications[3]?.flapping.length, 30_000);
    assert.equal(run.notifications[4]?.resolved.length, 30_000);
    assert.deepStrictEqual(run.states[4]?.incidents, {});
    assert.deepStrictEqual(run.states[4]?.flaps, {});
  });

  test('100,000 nodes: a whole-cluster storm', () => {
    // Prepare
    const all = nodes('n', 100_000, 'expired', 'eu-west-1a');
    // Act
    const run = runChecks([
      { at: T0, nodes: all },
      { at: T0 + MINUTE, nodes: all },
    ]);
    // Assess
    assert.equal(run.notifications[0]?.kind, 'STORM');
    assert.equal(run.notifications[0]?.firing.length, 100_000);
    assert.equal(run.notifications[1], null);
    assert.equal(Object.keys(run.states[1]?.incidents ?? {}).length, 100_000);
  });
});
