import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EMPTY_ALERT_STATE } from '../lambda/core/alert-state.js';
import { alertsForEvaluation } from '../lambda/core/incidents.js';
import { DEFAULT_ALERT_POLICY } from '../lambda/settings/index.js';
import {
  evaluation,
  expected,
  MINUTE,
  nodes,
  nv,
  policy,
  runChecks,
  runScenarios,
  type Scenario,
  T0,
} from '../testkit/alert-builders.js';

const STABLE = 15 * MINUTE;
const down = [nv('a', 'expired')];
const up = [nv('a', 'healthy')];
const healthy = nodes('ok', 4, 'healthy');

const FIRING_A = expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] });
const RESOLVED_A = expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:recovered'] });
const FLAPPING_A = expected({ kind: 'FLAPPING', severity: 'warning', flapping: ['a'] });

const scenarios: Scenario[] = [
  {
    name: 'FLAPPING at the 3rd transition, quiet while flapping, released still down → FIRING',
    checks: [
      { at: T0, nodes: down, expect: FIRING_A },
      { at: T0 + MINUTE, nodes: up, expect: RESOLVED_A },
      { at: T0 + 2 * MINUTE, nodes: down, expect: FLAPPING_A },
      { at: T0 + 3 * MINUTE, nodes: up, expect: null },
      { at: T0 + 4 * MINUTE, nodes: down, expect: null },
      { at: T0 + 4 * MINUTE + STABLE - 1, nodes: down, expect: null },
      { at: T0 + 4 * MINUTE + STABLE, nodes: down, expect: FIRING_A },
      { at: T0 + 5 * MINUTE + STABLE, nodes: down, expect: null },
      { at: T0 + 6 * MINUTE + STABLE, nodes: up, expect: RESOLVED_A },
    ],
  },
  {
    name: 'released after the stable window while healthy → RESOLVED recovered',
    checks: [
      { at: T0, nodes: down, expect: FIRING_A },
      { at: T0 + MINUTE, nodes: up, expect: RESOLVED_A },
      { at: T0 + 2 * MINUTE, nodes: down, expect: FLAPPING_A },
      { at: T0 + 3 * MINUTE, nodes: up, expect: null },
      { at: T0 + 3 * MINUTE + STABLE - 1, nodes: up, expect: null },
      { at: T0 + 3 * MINUTE + STABLE, nodes: up, expect: RESOLVED_A },
      { at: T0 + 4 * MINUTE + STABLE, nodes: up, expect: null },
    ],
  },
  {
    name: 'the 3rd transition exactly at the end of the window still counts',
    checks: [
      { at: T0, nodes: down, expect: FIRING_A },
      { at: T0 + 10 * MINUTE, nodes: up, expect: RESOLVED_A },
      { at: T0 + 15 * MINUTE, nodes: down, expect: FLAPPING_A },
    ],
  },
  {
    name: 'transitions spread beyond the window → no flapping',
    checks: [
      { at: T0, nodes: down, expect: FIRING_A },
      { at: T0 + 10 * MINUTE, nodes: up, expect: RESOLVED_A },
      { at: T0 + 15 * MINUTE + 1, nodes: down, expect: FIRING_A },
      { at: T0 + 26 * MINUTE, nodes: up, expect: RESOLVED_A },
    ],
  },
  {
    name: 'threshold 4: FLAPPING at a resolve',
    policy: policy({ flapping: { transitions: 4 } }),
    checks: [
      { at: T0, nodes: down, expect: FIRING_A },
      { at: T0 + MINUTE, nodes: up, expect: RESOLVED_A },
      { at: T0 + 2 * MINUTE, nodes: down, expect: FIRING_A },
      { at: T0 + 3 * MINUTE, nodes: up, expect: FLAPPING_A },
      { at: T0 + 4 * MINUTE, nodes: down, expect: null },
    ],
  },
  {
    name: 'flap detection off with 0 transitions',
    policy: policy({ flapping: { transitions: 0 } }),
    checks: [
      { at: T0, nodes: down, expect: FIRING_A },
      { at: T0 + MINUTE, nodes: up, expect: RESOLVED_A },
      { at: T0 + 2 * MINUTE, nodes: down, expect: FIRING_A },
      { at: T0 + 3 * MINUTE, nodes: up, expect: RESOLVED_A },
      { at: T0 + 4 * MINUTE, nodes: down, expect: FIRING_A },
    ],
  },
  {
    name: 'a flapping node cordoned, released → RESOLVED cordoned',
    checks: [
      { at: T0, nodes: down, expect: FIRING_A },
      { at: T0 + MINUTE, nodes: up, expect: RESOLVED_A },
      { at: T0 + 2 * MINUTE, nodes: down, expect: FLAPPING_A },
      { at: T0 + 3 * MINUTE, nodes: [nv('a', 'suppressed')], expect: null },
      {
        at: T0 + 3 * MINUTE + STABLE,
        nodes: [nv('a', 'suppressed')],
        expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:cordoned'] }),
      },
    ],
  },
  {
    name: 'a flapping node whose lease turns invalid is released with its last resolution',
    checks: [
      { at: T0, nodes: down, expect: FIRING_A },
      { at: T0 + MINUTE, nodes: up, expect: RESOLVED_A },
      { at: T0 + 2 * MINUTE, nodes: down, expect: FLAPPING_A },
      {
        at: T0 + 3 * MINUTE,
        nodes: [nv('a', 'suppressed', { suppressedBy: 'deleting' })],
        expect: null,
      },
      { at: T0 + 4 * MINUTE, nodes: [nv('a', 'invalid')], expect: null },
      {
        at: T0 + 3 * MINUTE + STABLE,
        nodes: [nv('a', 'invalid')],
        expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:deleting'] }),
      },
    ],
  },
  {
    name: 'a flapping node that vanishes → RESOLVED node-deleted at once',
    checks: [
      { at: T0, nodes: down, expect: FIRING_A },
      { at: T0 + MINUTE, nodes: up, expect: RESOLVED_A },
      { at: T0 + 2 * MINUTE, nodes: down, expect: FLAPPING_A },
      { at: T0 + 3 * MINUTE, nodes: up, expect: null },
      {
        at: T0 + 4 * MINUTE,
        nodes: [],
        expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:node-deleted'] }),
      },
      { at: T0 + 5 * MINUTE, nodes: [], expect: null },
    ],
  },
  {
    name: 'a flapping node whose lease is orphaned → RESOLVED node-deleted at once',
    checks: [
      { at: T0, nodes: down, expect: FIRING_A },
      { at: T0 + MINUTE, nodes: up, expect: RESOLVED_A },
      { at: T0 + 2 * MINUTE, nodes: down, expect: FLAPPING_A },
      {
        at: T0 + 3 * MINUTE,
        nodes: [nv('a', 'orphaned-lease')],
        expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:node-deleted'] }),
      },
      { at: T0 + 4 * MINUTE, nodes: [nv('a', 'orphaned-lease')], expect: null },
    ],
  },
  {
    name: 'no reminders while flapping; they resume after the release',
    policy: policy({ reminderIntervalSeconds: 60 }),
    checks: [
      { at: T0, nodes: down, expect: FIRING_A },
      { at: T0 + MINUTE, nodes: up, expect: RESOLVED_A },
      { at: T0 + 2 * MINUTE, nodes: down, expect: FLAPPING_A },
      { at: T0 + 3 * MINUTE, nodes: down, expect: null },
      { at: T0 + 10 * MINUTE, nodes: down, expect: null },
      { at: T0 + 2 * MINUTE + STABLE, nodes: down, expect: FIRING_A },
      {
        at: T0 + 3 * MINUTE + STABLE,
        nodes: down,
        expect: expected({ kind: 'REMINDER', severity: 'warning', reminders: ['a'] }),
      },
    ],
  },
  {
    name: 'FLAPPING grouped with another node firing → headline FIRING',
    checks: [
      { at: T0, nodes: [...down, nv('b', 'healthy')], expect: FIRING_A },
      { at: T0 + MINUTE, nodes: [...up, nv('b', 'healthy')], expect: RESOLVED_A },
      {
        at: T0 + 2 * MINUTE,
        nodes: [...down, nv('b', 'expired')],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['b'], flapping: ['a'] }),
      },
    ],
  },
  {
    name: 'FLAPPING outranks REMINDER and RESOLVED',
    policy: policy({ reminderIntervalSeconds: 120 }),
    checks: [
      {
        at: T0,
        nodes: [...down, nv('b', 'expired'), nv('c', 'expired'), ...healthy],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a', 'b', 'c'] }),
      },
      {
        at: T0 + MINUTE,
        nodes: [...up, nv('b', 'expired'), nv('c', 'expired'), ...healthy],
        expect: RESOLVED_A,
      },
      {
        at: T0 + 2 * MINUTE,
        nodes: [...down, nv('b', 'expired'), nv('c', 'healthy'), ...healthy],
        expect: expected({
          kind: 'FLAPPING',
          severity: 'warning',
          flapping: ['a'],
          resolved: ['c:recovered'],
          reminders: ['b'],
        }),
      },
    ],
  },
];

describe('flapping', () => {
  runScenarios(scenarios);

  test('the FLAPPING notice shows the node as it is now, with since when it is open', () => {
    // Prepare
    const run = runChecks([
      { at: T0, nodes: down },
      { at: T0 + MINUTE, nodes: up },
    ]);
    // Act
    const out = alertsForEvaluation(
      evaluation({ nodes: [nv('a', 'not-ready')] }),
      run.states[1] ?? EMPTY_ALERT_STATE,
      DEFAULT_ALERT_POLICY,
      T0 + 2 * MINUTE,
    );
    // Assess
    const [node] = out.notification?.flapping ?? [];
    assert.equal(node?.verdict, 'not-ready');
    assert.equal(node?.since, T0 + 2 * MINUTE);
    assert.equal(node?.resolution, undefined);
    assert.equal(out.state.incidents.a?.openedAt, T0 + 2 * MINUTE);
    assert.equal(out.state.flaps.a?.flapping?.since, T0 + 2 * MINUTE);
  });

  test('state stays bounded: flap records go once their transitions leave the window', () => {
    // Prepare / Act
    const run = runChecks([
      { at: T0, nodes: down },
      { at: T0 + MINUTE, nodes: up },
      { at: T0 + 10 * MINUTE, nodes: up },
      { at: T0 + 16 * MINUTE, nodes: up },
      { at: T0 + 16 * MINUTE + 1, nodes: up },
    ]);
    // Assess
    assert.deepStrictEqual(run.states[1]?.flaps, { a: { transitions: [T0, T0 + MINUTE] } });
    assert.deepStrictEqual(run.states[2]?.flaps, { a: { transitions: [T0, T0 + MINUTE] } });
    assert.deepStrictEqual(run.states[3]?.flaps, { a: { transitions: [T0 + MINUTE] } });
    assert.deepStrictEqual(run.states[4]?.flaps, {});
    assert.deepStrictEqual(run.states[4]?.incidents, {});
  });

  test('flap records of vanished nodes go too', () => {
    // Prepare / Act
    const run = runChecks([
      { at: T0, nodes: down },
      { at: T0 + MINUTE, nodes: up },
      { at: T0 + 2 * MINUTE, nodes: [] },
    ]);
    // Assess
    assert.equal(run.notifications[2], null);
    assert.deepStrictEqual(run.states[2]?.flaps, {});
  });
});
