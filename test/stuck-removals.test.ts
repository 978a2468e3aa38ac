/**
 * Suppression that cannot hide a dead node forever: a node suppressed by an expected removal
 * (cordoned, being deleted, autoscaler or Karpenter taint) and silent pages once that has lasted
 * `stuckRemovalSeconds` (default 30 min) on the watchdog's clock. The user's exclusion is for good.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NodeVerdict, SuppressionCause, Verdict } from '../lambda/core/model.js';
import { DEFAULT_ALERT_POLICY } from '../lambda/settings/index.js';
import {
  expected,
  HOUR,
  MINUTE,
  nv,
  policy,
  runChecks,
  runScenarios,
  type Scenario,
  SECOND,
  T0,
} from '../testkit/alert-builders.js';

const LIMIT = DEFAULT_ALERT_POLICY.stuckRemovalSeconds * SECOND;

/** Node `name`, suppressed by `cause`, whose verdict would otherwise be `hidden`. */
function held(
  name: string,
  cause: SuppressionCause = 'cordoned',
  hidden: Verdict = 'expired',
): NodeVerdict {
  return nv(name, 'suppressed', {
    suppressedBy: cause,
    suppressedVerdict: hidden,
    reason: `node is ${cause}; no lease renewal for 5m (grace 50s)`,
  });
}

const ok = nv('ok', 'healthy');

const scenarios: Scenario[] = [
  {
    name: 'cordoned and silent: nothing until the limit, FIRING exactly at it, once',
    checks: [
      { at: T0, nodes: [held('a'), ok], expect: null },
      { at: T0 + LIMIT - SECOND, nodes: [held('a'), ok], expect: null },
      {
        at: T0 + LIMIT,
        nodes: [held('a'), ok],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
      },
      { at: T0 + LIMIT + MINUTE, nodes: [held('a'), ok], expect: null },
    ],
  },
  {
    name: 'every expected removal times out: deleting, autoscaler, Karpenter; missing-lease too',
    checks: [
      {
        at: T0,
        nodes: [
          held('d', 'deleting'),
          held('k', 'karpenter-disruption'),
          held('m', 'cordoned', 'missing-lease'),
          held('s', 'autoscaler-removal'),
        ],
        expect: null,
      },
      {
        at: T0 + LIMIT,
        nodes: [
          held('d', 'deleting'),
          held('k', 'karpenter-disruption'),
          held('m', 'cordoned', 'missing-lease'),
          held('s', 'autoscaler-removal'),
        ],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['d', 'k', 'm', 's'] }),
      },
    ],
  },
  {
    name: 'suppression that starts after the silence: counted from the cordon, not the silence',
    checks: [
      {
        at: T0,
        nodes: [nv('a', 'expired'), ok],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
      },
      {
        at: T0 + 10 * MINUTE,
        nodes: [held('a'), ok],
        expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:cordoned'] }),
      },
      { at: T0 + 10 * MINUTE + LIMIT - SECOND, nodes: [held('a'), ok], expect: null },
      {
        at: T0 + 10 * MINUTE + LIMIT,
        nodes: [held('a'), ok],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
      },
    ],
  },
  {
    name: 'un-cordoned while silent: FIRING at once as usual; cordoned again: the clock restarts',
    checks: [
      { at: T0, nodes: [held('a'), ok], expect: null },
      {
        at: T0 + 20 * MINUTE,
        nodes: [nv('a', 'expired'), ok],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
      },
      {
        at: T0 + 25 * MINUTE,
        nodes: [held('a'), ok],
        expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:cordoned'] }),
      },
      { at: T0 + 25 * MINUTE + LIMIT - SECOND, nodes: [held('a'), ok], expect: null },
      {
        at: T0 + 25 * MINUTE + LIMIT,
        nodes: [held('a'), ok],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
      },
    ],
  },
  {
    name: 'stuck, then un-cordoned while still silent: the incident stays open, no second FIRING',
    checks: [
      { at: T0, nodes: [held('a'), ok], expect: null },
      {
        at: T0 + LIMIT,
        nodes: [held('a'), ok],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
      },
      { at: T0 + LIMIT + MINUTE, nodes: [nv('a', 'expired'), ok], expect: null },
    ],
  },
  {
    name: 'a kured reboot within the limit pages nothing (silent, renewing again, un-cordoned)',
    checks: [
      { at: T0, nodes: [held('a'), ok], expect: null },
      { at: T0 + 10 * MINUTE, nodes: [nv('a', 'healthy'), ok], expect: null },
      { at: T0 + 11 * MINUTE, nodes: [nv('a', 'healthy'), ok], expect: null },
      // Silent again, later: a new clock (the first silence is not added to it).
      { at: T0 + LIMIT - MINUTE, nodes: [held('a'), ok], expect: null },
      { at: T0 + LIMIT + MINUTE, nodes: [held('a'), ok], expect: null },
    ],
  },
  {
    name: 'a scale-down within the limit pages nothing (the Node is deleted)',
    checks: [
      { at: T0, nodes: [held('a', 'autoscaler-removal'), ok], expect: null },
      { at: T0 + LIMIT - SECOND, nodes: [held('a', 'autoscaler-removal'), ok], expect: null },
      { at: T0 + LIMIT, nodes: [ok], expect: null },
      { at: T0 + 2 * LIMIT, nodes: [ok], expect: null },
    ],
  },
  {
    name: 'stuck, then the Node is deleted → RESOLVED node-deleted',
    checks: [
      { at: T0, nodes: [held('a', 'deleting'), ok], expect: null },
      {
        at: T0 + LIMIT,
        nodes: [held('a', 'deleting'), ok],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
      },
      {
        at: T0 + LIMIT + MINUTE,
        nodes: [ok],
        expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:node-deleted'] }),
      },
    ],
  },
  {
    name: 'stuck, then the node comes back → RESOLVED recovered',
    checks: [
      { at: T0, nodes: [held('a'), ok], expect: null },
      {
        at: T0 + LIMIT,
        nodes: [held('a'), ok],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
      },
      {
        at: T0 + LIMIT + MINUTE,
        nodes: [nv('a', 'healthy'), ok],
        expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['a:recovered'] }),
      },
    ],
  },
  {
    name: "the user's exclusion is for good; a cordoned not-ready node (kubelet alive) never pages",
    checks: [
      { at: T0, nodes: [held('x', 'excluded'), held('n', 'cordoned', 'not-ready')], expect: null },
      {
        at: T0 + 7 * 24 * HOUR,
        nodes: [held('x', 'excluded'), held('n', 'cordoned', 'not-ready')],
        expect: null,
      },
    ],
  },
  {
    name: 'a degraded check (Nodes unreadable) keeps the clock of a node it does not list',
    checks: [
      { at: T0, nodes: [held('a'), ok], expect: null },
      { at: T0 + 10 * MINUTE, nodes: [ok], degraded: 'cannot list nodes: 403', expect: null },
      {
        at: T0 + LIMIT,
        nodes: [held('a'), ok],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
      },
    ],
  },
  {
    name: 'a configured limit: 10 minutes',
    policy: policy({ stuckRemovalSeconds: 600 }),
    checks: [
      { at: T0, nodes: [held('a'), ok], expect: null },
      { at: T0 + 10 * MINUTE - SECOND, nodes: [held('a'), ok], expect: null },
      {
        at: T0 + 10 * MINUTE,
        nodes: [held('a'), ok],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a'] }),
      },
    ],
  },
];

describe('stuck removals', () => {
  runScenarios(scenarios);

  test('the FIRING node carries the hidden verdict and a reason naming the stuck removal', () => {
    // Prepare / Act
    const run = runChecks([
      { at: T0, nodes: [held('a'), ok] },
      { at: T0 + 65 * MINUTE, nodes: [held('a'), ok] },
    ]);
    // Assess
    const [node] = run.notifications[1]?.firing ?? [];
    assert.equal(node?.verdict, 'expired');
    assert.match(
      node?.reason ?? '',
      /^removal seems stuck: cordoned and silent for 65m \(limit 30m\): node is cordoned;/,
    );
    assert.equal(node?.since, T0 + 65 * MINUTE);
  });

  test('the clock is kept in the alert state, and absent when no node is held', () => {
    // Prepare / Act
    const run = runChecks([
      { at: T0, nodes: [held('a'), ok] },
      { at: T0 + MINUTE, nodes: [held('a'), ok] },
      { at: T0 + 2 * MINUTE, nodes: [nv('a', 'healthy'), ok] },
    ]);
    // Assess
    assert.deepStrictEqual(run.states[0]?.removals, { a: T0 });
    assert.deepStrictEqual(run.states[1]?.removals, { a: T0 });
    assert.equal(Object.hasOwn(run.states[2] ?? {}, 'removals'), false);
  });
});
