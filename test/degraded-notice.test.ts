/**
 * A degraded check (Nodes forbidden, leases readable) is a metric and a notice, not a silent
 * success: the lifecycle in the core (one NOTICE when checks become degraded, one when they are
 * complete again), then end to end through the real handler against the simulated cluster.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { renderBody, renderSubject } from '../lambda/adapters/notify/render/render.js';
import { type AlertState, EMPTY_ALERT_STATE } from '../lambda/core/alert-state.js';
import { alertsForDegraded } from '../lambda/core/watchdog-alerts.js';
import {
  attributesOf,
  type Harness,
  kindOf,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

const T = Date.UTC(2026, 10, 29, 12, 0, 0);
const WHY = 'cannot list nodes (403 Forbidden); checked leases alone';

describe('alertsForDegraded', () => {
  const degradedSince = (since: number): AlertState => ({
    ...EMPTY_ALERT_STATE,
    degraded: { since, message: WHY },
  });
  const cases: {
    name: string;
    degraded: string | undefined;
    before: AlertState;
    notice: null | { state: string; severity: string };
    record: { since: number; message: string } | null;
  }[] = [
    {
      name: 'complete, was complete: nothing',
      degraded: undefined,
      before: EMPTY_ALERT_STATE,
      notice: null,
      record: null,
    },
    {
      name: 'degraded, was complete: NOTICE started (warning)',
      degraded: WHY,
      before: EMPTY_ALERT_STATE,
      notice: { state: 'started', severity: 'warning' },
      record: { since: T, message: WHY },
    },
    {
      name: 'degraded, was degraded (another line): nothing, the record stays',
      degraded: 'cannot list nodes (403 Forbidden): something else',
      before: degradedSince(T - 60_000),
      notice: null,
      record: { since: T - 60_000, message: WHY },
    },
    {
      name: 'complete, was degraded: NOTICE ended (info)',
      degraded: undefined,
      before: degradedSince(T - 60_000),
      notice: { state: 'ended', severity: 'info' },
      record: null,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      // The node lifecycle hands back a state without the record (it does not carry it).
      const decided: AlertState = { ...c.before, degraded: undefined };
      const out = alertsForDegraded(
        'prod',
        { degraded: c.degraded, previous: c.before.degraded ?? null },
        decided,
        T,
      );
      assert.deepEqual(out.state.degraded ?? null, c.record);
      if (c.notice === null) {
        assert.equal(out.notification, null);
      } else {
        assert.equal(out.notification?.kind, 'NOTICE');
        assert.equal(out.notification?.severity, c.notice.severity);
        assert.equal(
          out.notification?.notice?.topic === 'degraded' && out.notification.notice.state,
          c.notice.state,
        );
        assert.deepEqual(out.notification?.firing, []);
      }
    });
  }

  it('the same state object comes back when nothing changed', () => {
    const state = degradedSince(T - 60_000);
    assert.equal(
      alertsForDegraded('prod', { degraded: WHY, previous: state.degraded ?? null }, state, T)
        .state,
      state,
    );
    assert.equal(
      alertsForDegraded('prod', { degraded: undefined, previous: null }, EMPTY_ALERT_STATE, T)
        .state,
      EMPTY_ALERT_STATE,
    );
  });

  it('renders what is missing and how to fix it', () => {
    const started = alertsForDegraded(
      'prod',
      { degraded: WHY, previous: null },
      EMPTY_ALERT_STATE,
      T,
    ).notification;
    assert.ok(started);
    assert.equal(renderSubject(started), '[prod] NOTICE: degraded checks: Nodes cannot be read');
    const body = renderBody(started);
    for (const expected of [WHY, 'not-ready', 'cordoned', 'missing-lease', 'deploy/rbac.yaml']) {
      assert.ok(body.includes(expected), `the body says ${expected}:\n${body}`);
    }
  });
});

describe('lambda e2e: Nodes forbidden, leases readable', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 3 } } });
  });
  after(() => h.close());

  it('counts every degraded check, sends one NOTICE when it starts and one when it ends', async () => {
    const target = h.target('prod');
    target.server.setFault({ kind: 'status', status: 403, resource: 'nodes' });
    for (let i = 0; i < 3; i++) {
      const report = await (i === 0 ? h.run() : h.tick());
      assert.equal(report.clusters[0]?.lastStatus, 'checked', 'a degraded check is a check');
    }
    assert.deepEqual(
      h.metrics.of('DegradedChecks', 'prod').map((m) => m.value),
      [1, 1, 1],
    );
    assert.equal(h.metrics.of('CheckSucceeded', 'prod').length, 3);
    assert.deepEqual(h.sns.messages.map(kindOf), ['NOTICE'], summary(h.sns.messages));
    const [started] = h.sns.messages;
    assert.ok(started);
    assert.deepEqual(attributesOf(started), {
      cluster: 'prod',
      kind: 'NOTICE',
      severity: 'warning',
    });
    assert.equal(started.subject, '[prod] NOTICE: degraded checks: Nodes cannot be read');
    assert.match(started.message, /403/);
    assert.match(started.message, /deploy\/rbac\.yaml/);

    target.server.setFault(null);
    await h.tick();
    await h.tick();
    assert.deepEqual(
      h.metrics.of('DegradedChecks', 'prod').map((m) => m.value),
      [1, 1, 1, 0, 0],
    );
    assert.deepEqual(h.sns.messages.map(kindOf), ['NOTICE', 'NOTICE'], summary(h.sns.messages));
    const ended = h.sns.messages[1];
    assert.ok(ended);
    assert.equal(attributesOf(ended).severity, 'info');
    assert.equal(ended.subject, '[prod] NOTICE: checks complete again: Nodes readable');
  });
});
