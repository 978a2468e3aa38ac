import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluate, labelsUsedBy } from '../lambda/core/evaluate.js';
import type { NodeFacts, NodeVerdict, Observations, Snapshot } from '../lambda/core/model.js';
import { NODE_FACT_LABELS, nodeFactsOf } from '../lambda/core/node-facts.js';
import { instanceOf } from '../lambda/core/node-verdicts.js';
import type { Policy } from '../lambda/core/policy.js';
import { parseSelector } from '../lambda/core/selector.js';
import { applySilences } from '../lambda/core/silences.js';
import { verdictCount, verdictsOf } from '../lambda/core/verdict-list.js';
import { DEFAULT_POLICY } from '../lambda/settings/index.js';
import { lease, microTime, node, snapshot, T0 } from '../testkit/builders.js';

const NONE: Observations = new Map();
const S = 1000;
const MIN = 60 * S;

function only(snap: Snapshot, policy: Policy = DEFAULT_POLICY, now = T0, obs = NONE): NodeVerdict {
  const result = evaluate(snap, obs, policy, { now });
  assert.equal(result.nodes.length, 1, `expected one verdict, got ${JSON.stringify(result.nodes)}`);
  return result.nodes[0] as NodeVerdict;
}

describe('evaluate: one check, first sight (judged against the API server clock)', () => {
  const cases: {
    name: string;
    snap: Snapshot;
    policy?: Policy;
    now?: number;
    verdict: NodeVerdict['verdict'];
    silent?: number | null;
    reason?: RegExp;
  }[] = [
    {
      name: 'renewed just now is healthy',
      snap: snapshot({ leases: [lease('a', { renewTime: microTime(T0 - 3 * S) })] }),
      verdict: 'healthy',
      silent: 3,
    },
    {
      name: 'grace edge minus 1 ms is a suspect (past a renew interval), not expired',
      snap: snapshot({ leases: [lease('a', { renewTime: microTime(T0 - 50 * S + 1) })] }),
      verdict: 'suspect',
      silent: 49,
    },
    {
      name: 'one renew interval and its slack (12 s for 40-s leases) short of it is healthy',
      snap: snapshot({ leases: [lease('a', { renewTime: microTime(T0 - 12 * S + 1) })] }),
      verdict: 'healthy',
      silent: 11,
    },
    {
      name: 'at a renew interval and its slack, a suspect: it missed a renewal',
      snap: snapshot({ leases: [lease('a', { renewTime: microTime(T0 - 12 * S) })] }),
      verdict: 'suspect',
      silent: 12,
      reason: /^suspect: no lease renewal for 12s, not yet confirmed by a second look$/,
    },
    {
      name: 'exactly at the grace edge is expired',
      snap: snapshot({ leases: [lease('a', { renewTime: microTime(T0 - 50 * S) })] }),
      verdict: 'expired',
      silent: 50,
      reason: /no lease renewal for 50s \(grace 50s\)/,
    },
    {
      name: 'grace edge plus 1 ms is expired',
      snap: snapshot({ leases: [lease('a', { renewTime: microTime(T0 - 50 * S - 1) })] }),
      verdict: 'expired',
    },
    {
      name: 'microseconds count: one microsecond short of the edge is not expired',
      snap: snapshot({ leases: [lease('a', { renewTime: '2026-11-29T11:59:10.000001Z' })] }),
      verdict: 'suspect',
    },
    {
      name: 'a numeric offset timestamp is read correctly',
      snap: snapshot({ leases: [lease('a', { renewTime: '2026-11-29T13:59:55.000000+02:00' })] }),
      verdict: 'healthy',
      silent: 5,
    },
    {
      name: 'missing leaseDurationSeconds means the kubelet default, 40',
      snap: snapshot({
        leases: [
          lease('a', { renewTime: microTime(T0 - 45 * S), leaseDurationSeconds: undefined }),
        ],
      }),
      verdict: 'suspect',
    },
    {
      // Issue 18: the node lifecycle controller judges by its own grace, never by the lease's
      // duration; a lease claiming more than the grace (or 40 s) counts for no more.
      name: 'a lease claiming a longer duration than the grace is still judged by the grace',
      snap: snapshot({
        leases: [lease('a', { renewTime: microTime(T0 - 100 * S), leaseDurationSeconds: 120 })],
      }),
      verdict: 'expired',
      reason: /grace 50s, not the lease's 120s/,
    },
    {
      name: 'a lease claiming an hour is expired 10 minutes silent',
      snap: snapshot({
        leases: [lease('a', { renewTime: microTime(T0 - 10 * MIN), leaseDurationSeconds: 3600 })],
      }),
      verdict: 'expired',
      silent: 600,
    },
    {
      name: 'below the cap a longer duration lengthens a short grace (the kubelet default, 40 s)',
      snap: snapshot({
        leases: [lease('a', { renewTime: microTime(T0 - 30 * S), leaseDurationSeconds: 40 })],
      }),
      policy: { ...DEFAULT_POLICY, gracePeriodSeconds: 20 },
      verdict: 'suspect',
    },
    {
      name: 'and still expires past itself',
      snap: snapshot({
        leases: [lease('a', { renewTime: microTime(T0 - 40 * S), leaseDurationSeconds: 40 })],
      }),
      policy: { ...DEFAULT_POLICY, gracePeriodSeconds: 20 },
      verdict: 'expired',
      reason: /grace 40s\)/,
    },
    {
      name: 'kubelet clock 10 minutes ahead is healthy on first sight',
      snap: snapshot({ leases: [lease('a', { renewTime: microTime(T0 + 10 * MIN) })] }),
      verdict: 'healthy',
      silent: 0,
    },
    {
      name: 'first sight uses the API server clock, not the watchdog clock',
      snap: snapshot({
        leases: [lease('a', { renewTime: microTime(T0 - 5 * S) })],
        serverTime: T0,
      }),
      now: T0 + 60 * MIN,
      verdict: 'healthy',
      silent: 5,
    },
    {
      name: 'null renewTime within the startup grace is healthy',
      snap: snapshot({
        leases: [lease('a', { renewTime: null })],
        nodes: [node('a', { createdAt: new Date(T0 - 30 * S).toISOString() })],
      }),
      verdict: 'healthy',
      reason: /not renewed yet/,
    },
    {
      name: 'null renewTime past the startup grace is expired',
      snap: snapshot({
        leases: [lease('a', { renewTime: null })],
        nodes: [node('a', { createdAt: new Date(T0 - 60 * S).toISOString() })],
      }),
      verdict: 'expired',
      reason: /never renewed/,
    },
    {
      name: 'absent renewTime is the same as null',
      snap: snapshot({
        leases: [lease('a', { renewTime: undefined })],
        nodes: [node('a', { createdAt: new Date(T0 - 90 * S).toISOString() })],
      }),
      verdict: 'expired',
    },
    {
      name: 'unparseable renewTime is invalid, not a crash',
      snap: snapshot({ leases: [lease('a', { renewTime: 'yesterday' })] }),
      verdict: 'invalid',
      silent: null,
      reason: /renewTime "yesterday" is not an RFC 3339 timestamp/,
    },
    {
      name: 'impossible date is invalid',
      snap: snapshot({ leases: [lease('a', { renewTime: '2026-02-31T00:00:00.000000Z' })] }),
      verdict: 'invalid',
    },
    {
      name: 'numeric renewTime is invalid',
      snap: snapshot({ leases: [lease('a', { renewTime: 1234 })] }),
      verdict: 'invalid',
      reason: /renewTime is a number/,
    },
    {
      name: 'zero duration is invalid',
      snap: snapshot({ leases: [lease('a', { leaseDurationSeconds: 0 })] }),
      verdict: 'invalid',
      reason: /leaseDurationSeconds 0 is not positive/,
    },
    {
      name: 'negative duration is invalid',
      snap: snapshot({ leases: [lease('a', { leaseDurationSeconds: -40 })] }),
      verdict: 'invalid',
    },
    {
      name: 'string duration is invalid',
      snap: snapshot({ leases: [lease('a', { leaseDurationSeconds: '40' })] }),
      verdict: 'invalid',
      reason: /is not a number/,
    },
    {
      name: 'Ready=False with a fresh lease is not-ready',
      snap: snapshot({
        leases: [lease('a')],
        nodes: [node('a', { ready: 'False', readyReason: 'KubeletNotReady' })],
      }),
      verdict: 'not-ready',
      reason: /Ready=False \(KubeletNotReady\)/,
    },
    {
      // The controller sets Unknown once its grace passes with no status post and no lease
      // renewal: a renewing lease is the kubelet heard from, for it too (a stale Unknown).
      name: 'Ready=Unknown with a fresh lease is healthy (the lease is the heartbeat)',
      snap: snapshot({
        leases: [lease('a')],
        nodes: [node('a', { ready: 'Unknown', readyReason: 'NodeStatusUnknown' })],
      }),
      verdict: 'healthy',
    },
    {
      name: 'a cordoned node that is healthy stays healthy',
      snap: snapshot({ leases: [lease('a')], nodes: [node('a', { unschedulable: true })] }),
      verdict: 'healthy',
    },
    {
      name: 'a lease without a Node is orphaned',
      snap: snapshot({
        leases: [lease('gone', { renewTime: microTime(T0 - 3 * 3600 * S) })],
        nodes: [],
      }),
      verdict: 'orphaned-lease',
    },
    {
      name: 'a node past the startup grace without a lease is missing-lease',
      snap: snapshot({
        leases: [],
        nodes: [node('a', { createdAt: new Date(T0 - 61 * S).toISOString() })],
      }),
      verdict: 'missing-lease',
      silent: null,
    },
    {
      name: 'a new node without a lease yet is healthy',
      snap: snapshot({
        leases: [],
        nodes: [node('a', { createdAt: new Date(T0 - 10 * S).toISOString() })],
      }),
      verdict: 'healthy',
      reason: /no lease yet/,
    },
    {
      name: 'degraded (Nodes unreadable): a silent lease is still expired',
      snap: snapshot({ leases: [lease('a', { renewTime: microTime(T0 - 5 * MIN) })], nodes: null }),
      verdict: 'expired',
    },
    {
      name: 'degraded: a lease is not called orphaned when Nodes could not be read',
      snap: snapshot({ leases: [lease('a')], nodes: null }),
      verdict: 'healthy',
      reason: /Node not read/,
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const v = only(c.snap, c.policy, c.now);
      assert.equal(v.verdict, c.verdict, v.reason);
      if (c.silent !== undefined) assert.equal(v.silentForSeconds, c.silent);
      if (c.reason) assert.match(v.reason, c.reason);
    });
  }
});

describe('evaluate: suppression of expected removals', () => {
  const silentLease = lease('a', { renewTime: microTime(T0 - 5 * MIN) });
  const cases: { name: string; spec: Parameters<typeof node>[1]; policy?: Policy; by: string }[] = [
    { name: 'cordoned (spec.unschedulable)', spec: { unschedulable: true }, by: 'cordoned' },
    {
      name: 'being deleted (deletionTimestamp)',
      spec: { deletionTimestamp: '2026-11-29T11:58:00Z' },
      by: 'deleting',
    },
    {
      name: 'cluster autoscaler removal taint',
      spec: { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }] },
      by: 'autoscaler-removal',
    },
    {
      name: 'Karpenter disrupted taint',
      spec: { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] },
      by: 'karpenter-disruption',
    },
    {
      name: "Karpenter's older disruption taint",
      spec: {
        taints: [{ key: 'karpenter.sh/disruption', value: 'disrupting', effect: 'NoSchedule' }],
      },
      by: 'karpenter-disruption',
    },
    {
      name: "the user's exclusion selector",
      spec: { labels: { 'node-role.kubernetes.io/spot': '' } },
      policy: { ...DEFAULT_POLICY, exclude: parseSelector('node-role.kubernetes.io/spot') },
      by: 'excluded',
    },
  ];
  for (const c of cases) {
    it(`${c.name}: silent → suppressed`, () => {
      const v = only(snapshot({ leases: [silentLease], nodes: [node('a', c.spec)] }), c.policy);
      assert.equal(v.verdict, 'suppressed');
      assert.equal(v.suppressedBy, c.by);
      assert.match(v.reason, /no lease renewal for 5m/);
    });
  }
  it('a suppressed node says which verdict it hides (what a stuck removal pages with)', () => {
    const silent = only(
      snapshot({ leases: [silentLease], nodes: [node('a', { unschedulable: true })] }),
    );
    assert.equal(silent.suppressedVerdict, 'expired');
    const leaseless = only(snapshot({ leases: [], nodes: [node('a', { unschedulable: true })] }));
    assert.equal(leaseless.suppressedVerdict, 'missing-lease');
  });
  it("the user's exclusion comes before an expected removal (it is never timed out)", () => {
    const policy = { ...DEFAULT_POLICY, exclude: parseSelector('pool=batch') };
    const spec = { unschedulable: true, labels: { pool: 'batch' } };
    const v = only(snapshot({ leases: [silentLease], nodes: [node('a', spec)] }), policy);
    assert.equal(v.suppressedBy, 'excluded');
  });
  it('an unrelated taint does not suppress', () => {
    const spec = { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] };
    assert.equal(
      only(snapshot({ leases: [silentLease], nodes: [node('a', spec)] })).verdict,
      'expired',
    );
  });
  it('a selector that does not match does not suppress', () => {
    const policy = { ...DEFAULT_POLICY, exclude: parseSelector('pool in (spot,batch)') };
    const v = only(
      snapshot({ leases: [silentLease], nodes: [node('a', { labels: { pool: 'core' } })] }),
      policy,
    );
    assert.equal(v.verdict, 'expired');
  });
  it('Ready=False on a cordoned node is suppressed', () => {
    const v = only(
      snapshot({
        leases: [lease('a')],
        nodes: [node('a', { ready: 'False', unschedulable: true })],
      }),
    );
    assert.equal(v.verdict, 'suppressed');
    assert.match(v.reason, /Ready=False/);
  });
  it('a cordoned node without a lease is suppressed, not missing-lease', () => {
    const v = only(snapshot({ leases: [], nodes: [node('a', { unschedulable: true })] }));
    assert.equal(v.verdict, 'suppressed');
  });
});

describe('evaluate: silence on the watchdog clock across checks', () => {
  /** Runs a sequence of checks, carrying observations; returns each check's verdict for node `a`. */
  function run(steps: { now: number; serverTime: number; renewTime: string }[]): NodeVerdict[] {
    let obs: Observations = NONE;
    return steps.map((step) => {
      const result = evaluate(
        snapshot({
          leases: [lease('a', { renewTime: step.renewTime })],
          serverTime: step.serverTime,
        }),
        obs,
        DEFAULT_POLICY,
        { now: step.now },
      );
      obs = result.observations;
      return result.nodes[0] as NodeVerdict;
    });
  }
  /** A kubelet renewing every 10 s with its clock `skew` ms off, checked every 10 s from W. */
  function renewing(skew: number, checks: number, watchdogOffset = 0) {
    return Array.from({ length: checks }, (_, i) => ({
      now: T0 + watchdogOffset + i * 10 * S,
      serverTime: T0 + i * 10 * S,
      renewTime: microTime(T0 + skew + i * 10 * S - 2 * S),
    }));
  }

  for (const skew of [10 * MIN, -10 * MIN]) {
    it(`a healthy node with its kubelet clock ${skew / MIN} min off is never flagged once observed twice`, () => {
      const verdicts = run(renewing(skew, 20, 7 * MIN));
      assert.deepEqual(
        verdicts.slice(1).map((v) => v.verdict),
        Array(19).fill('healthy'),
      );
    });
  }

  it('a kubelet 10 min behind looks expired on first sight (nothing else to go by), healthy from the second', () => {
    const verdicts = run(renewing(-10 * MIN, 2));
    assert.equal(verdicts[0]?.verdict, 'expired');
    assert.equal(verdicts[0]?.firstSight, true);
    assert.equal(verdicts[1]?.verdict, 'healthy');
  });

  it('a node that stops renewing is flagged by the first check a grace period after the last change', () => {
    const last = microTime(T0 - 2 * S);
    const steps = [0, 10, 20, 30, 40, 49.999, 50].map((sec) => ({
      now: T0 + 7 * MIN + sec * S,
      serverTime: T0 + sec * S,
      renewTime: sec === 0 ? microTime(T0 - 12 * S) : last,
    }));
    const verdicts = run(steps).map((v) => v.verdict);
    // The change was seen at second 10 (watchdog clock); 49.999 s after the first check is 39.999 s
    // of silence: a suspect from 12 s (the first sight, 12 s after its renewal, is one too).
    assert.deepEqual(verdicts, [
      'suspect',
      'healthy',
      'healthy',
      'suspect',
      'suspect',
      'suspect',
      'suspect',
    ]);
    const later = run([
      ...steps,
      { now: T0 + 7 * MIN + 59.999 * S, serverTime: T0 + 60 * S, renewTime: last },
      { now: T0 + 7 * MIN + 60 * S, serverTime: T0 + 60 * S, renewTime: last },
    ]).map((v) => v.verdict);
    assert.deepEqual(later.slice(-2), ['suspect', 'expired']);
  });

  it('a node first seen long silent stays expired, paged only once a look 12 s or more later confirms it, until it renews', () => {
    const stale = microTime(T0 - 10 * MIN);
    const verdicts = run([
      { now: T0, serverTime: T0, renewTime: stale },
      // 10 s later: a live kubelet may not have renewed yet (every 10 s, +4 % jitter): still
      // expired (issue 18: verdicts about one silence move one way), not paged on it yet.
      { now: T0 + 10 * S, serverTime: T0 + 10 * S, renewTime: stale },
      { now: T0 + 20 * S, serverTime: T0 + 20 * S, renewTime: stale },
      { now: T0 + 30 * S, serverTime: T0 + 30 * S, renewTime: microTime(T0 + 29 * S) },
    ]);
    assert.deepEqual(
      verdicts.map((v) => [v.verdict, v.silentForSeconds, v.newlySeen]),
      [
        ['expired', 600, true],
        ['expired', 610, true],
        ['expired', 620, false],
        ['healthy', 0, false],
      ],
    );
  });

  it('the watchdog clock jumping backwards never gives negative silence', () => {
    const r = microTime(T0 - 1 * S);
    const verdicts = run([
      { now: T0, serverTime: T0, renewTime: r },
      { now: T0 - 5 * MIN, serverTime: T0 + 10 * S, renewTime: r },
    ]);
    assert.equal(verdicts[1]?.silentForSeconds, 0);
  });

  it('an invalid lease keeps the earlier observation, so a later valid value resumes from it', () => {
    const r = microTime(T0 - 1 * S);
    let obs = evaluate(snapshot({ leases: [lease('a', { renewTime: r })] }), NONE, DEFAULT_POLICY, {
      now: T0,
    }).observations;
    obs = evaluate(
      snapshot({ leases: [lease('a', { renewTime: 'garbage' })] }),
      obs,
      DEFAULT_POLICY,
      { now: T0 + 30 * S },
    ).observations;
    const v = evaluate(snapshot({ leases: [lease('a', { renewTime: r })] }), obs, DEFAULT_POLICY, {
      now: T0 + 60 * S,
    }).nodes[0];
    assert.equal(v?.verdict, 'expired');
    assert.equal(v?.silentForSeconds, 61);
  });

  it('marks a lease newly seen on its first observation only', () => {
    const first = evaluate(snapshot({ leases: [lease('a')] }), NONE, DEFAULT_POLICY, { now: T0 });
    const second = evaluate(
      snapshot({ leases: [lease('a'), lease('b')] }),
      first.observations,
      DEFAULT_POLICY,
      { now: T0 + S },
    );
    assert.deepEqual(
      [first.nodes[0]?.newlySeen, second.nodes.map((n) => [n.name, n.newlySeen])],
      [
        true,
        [
          ['a', false],
          ['b', true],
        ],
      ],
    );
  });

  it('observations are carried for present leases only', () => {
    const first = evaluate(snapshot({ leases: [lease('a'), lease('b')] }), NONE, DEFAULT_POLICY, {
      now: T0,
    });
    assert.deepEqual([...first.observations.keys()].sort(), ['a', 'b']);
    const second = evaluate(
      snapshot({ leases: [lease('a')] }),
      first.observations,
      DEFAULT_POLICY,
      { now: T0 + S },
    );
    assert.deepEqual([...second.observations.keys()], ['a']);
  });
});

describe('evaluate: the whole cluster', () => {
  it('gives one verdict per node and per orphaned lease, sorted, with a summary and zones', () => {
    const old = microTime(T0 - 5 * MIN);
    const result = evaluate(
      snapshot({
        leases: [
          lease('c', { renewTime: old }),
          lease('a'),
          lease('b', { renewTime: old }),
          lease('orphan', { renewTime: old }),
          lease('a'),
        ],
        nodes: [
          node('a', { zone: 'z1' }),
          node('b', { zone: 'z1' }),
          node('c', { zone: 'z2', unschedulable: true }),
          node('d', { zone: 'z2' }),
        ],
      }),
      NONE,
      DEFAULT_POLICY,
      { now: T0 },
    );
    assert.deepEqual(
      result.nodes.map((n) => [n.name, n.verdict]),
      [
        ['a', 'healthy'],
        ['b', 'expired'],
        ['c', 'suppressed'],
        ['d', 'missing-lease'],
        ['orphan', 'orphaned-lease'],
      ],
    );
    assert.deepEqual(result.summary, {
      healthy: 1,
      expired: 1,
      'not-ready': 0,
      'missing-lease': 1,
      'orphaned-lease': 1,
      suppressed: 1,
      invalid: 0,
      suspect: 0,
    });
    assert.deepEqual(result.zones, [
      { zone: 'z1', total: 2, silent: 1 },
      { zone: 'z2', total: 2, silent: 1 },
    ]);
    assert.equal(result.nodes[1]?.instance, 'i-b');
    assert.equal(result.nodes[1]?.zone, 'z1');
  });

  it('counts only silent nodes per zone and per node group (not-ready is not silent)', () => {
    const ng = (group: string) => ({ 'eks.amazonaws.com/nodegroup': group });
    const result = evaluate(
      snapshot({
        leases: [lease('a', { renewTime: microTime(T0 - 5 * MIN) }), lease('b'), lease('c')],
        nodes: [
          node('a', { zone: 'z1', labels: ng('gpu') }),
          node('b', { zone: 'z1', labels: ng('gpu'), ready: 'False' }),
          node('c', { zone: 'z1' }),
          node('d', { zone: 'z2', labels: ng('web') }),
        ],
      }),
      NONE,
      DEFAULT_POLICY,
      { now: T0 },
    );
    assert.deepEqual(
      result.nodes.map((n) => n.verdict),
      ['expired', 'not-ready', 'healthy', 'missing-lease'],
    );
    assert.deepEqual(result.zones, [
      { zone: 'z1', total: 3, silent: 1 },
      { zone: 'z2', total: 1, silent: 1 },
    ]);
    // Node c has no node group label: in no node group.
    assert.deepEqual(result.nodeGroups, [
      { nodeGroup: 'gpu', total: 2, silent: 1 },
      { nodeGroup: 'web', total: 1, silent: 1 },
    ]);
  });

  it('evaluates 100,000 nodes', () => {
    const leases = Array.from({ length: 100_000 }, (_, i) =>
      lease(`n${i}`, { renewTime: microTime(T0 - (i % 90) * S) }),
    );
    const result = evaluate(snapshot({ leases }), NONE, DEFAULT_POLICY, { now: T0 });
    assert.equal(result.nodes.length, 100_000);
    assert.equal(
      result.summary.expired,
      Math.floor(100_000 / 90) * 40 + Math.max(0, (100_000 % 90) - 50),
    );
  });
});

describe('evaluate: two leases with one name in a list', () => {
  const stale = lease('a', { renewTime: microTime(T0 - 10 * MIN) });
  const live = lease('a', { renewTime: microTime(T0 - 3 * S) });
  for (const [order, leases] of [
    ['stale first', [stale, live]],
    ['live first', [live, stale]],
  ] as const) {
    it(`the copy renewed last decides (${order}): one healthy verdict`, () => {
      const verdict = only(snapshot({ leases: [...leases] }));
      assert.equal(verdict.verdict, 'healthy');
      assert.equal(verdict.silentForSeconds, 3);
    });
  }

  for (const [order, first, last] of [
    ['stale first', stale, live],
    ['live first', live, stale],
  ] as const) {
    it(`the copy renewed last decides with another lease between the copies (${order})`, () => {
      const other = lease('b', { renewTime: microTime(T0 - 3 * S) });
      const verdicts = evaluate(
        snapshot({ leases: [first, other, last] }),
        new Map(),
        DEFAULT_POLICY,
        { now: T0 },
      ).nodes;
      assert.deepEqual(
        verdicts.map((v) => [v.name, v.verdict]),
        [
          ['a', 'healthy'],
          ['b', 'healthy'],
        ],
      );
    });
  }

  it('a copy with no renewTime does not hide one that renewed', () => {
    const verdict = only(snapshot({ leases: [lease('a', { renewTime: null }), live] }));
    assert.equal(verdict.verdict, 'healthy');
  });
});

describe('instanceOf', () => {
  for (const [providerID, expected] of [
    ['aws:///eu-west-1a/i-0abc123', 'i-0abc123'],
    ['gce://my-project/europe-west1-b/gke-node-1', 'gke-node-1'],
    ['azure:///subscriptions/x/virtualMachines/vm-1', 'vm-1'],
    ['kind://docker/kind/kind-worker', 'kind-worker'],
    ['', null],
    ['opaque', null],
  ] as const) {
    it(`${JSON.stringify(providerID)} → ${expected}`, () =>
      assert.equal(instanceOf(providerID), expected));
  }
});

describe('node facts: node group, instance type, capacity type from the well-known labels', () => {
  const cases: ReadonlyArray<readonly [string, Record<string, string>, NodeFacts]> = [
    [
      'an EKS managed node group',
      {
        'eks.amazonaws.com/nodegroup': 'general',
        'node.kubernetes.io/instance-type': 'm6i.large',
        'eks.amazonaws.com/capacityType': 'ON_DEMAND',
      },
      { nodeGroup: 'general', instanceType: 'm6i.large', capacityType: 'on-demand' },
    ],
    [
      'a Karpenter node pool on spot',
      {
        'karpenter.sh/nodepool': 'batch',
        'beta.kubernetes.io/instance-type': 'c7g.xlarge',
        'karpenter.sh/capacity-type': 'spot',
      },
      { nodeGroup: 'batch', instanceType: 'c7g.xlarge', capacityType: 'spot' },
    ],
    [
      'an eksctl node group, nothing else',
      { 'alpha.eksctl.io/nodegroup-name': 'ng-1' },
      { nodeGroup: 'ng-1' },
    ],
    ['no labels at all', {}, {}],
    ['an empty label value is no value', { 'eks.amazonaws.com/nodegroup': '' }, {}],
  ];
  for (const [name, labels, facts] of cases) {
    it(name, () => assert.deepEqual(nodeFactsOf(node('n', { labels })), facts));
  }

  it('evaluate carries them on the verdict, and a check keeps the labels that give them', () => {
    const n = node('n1', {
      labels: { 'karpenter.sh/nodepool': 'batch', 'karpenter.sh/capacity-type': 'spot' },
    });
    const { nodes: verdicts } = evaluate(
      snapshot({ leases: [lease('n1', { renewTime: microTime(T0 - 5_000) })], nodes: [n] }),
      new Map(),
      DEFAULT_POLICY,
      { now: T0 },
    );
    assert.equal(verdicts[0]?.nodeGroup, 'batch');
    assert.equal(verdicts[0]?.capacityType, 'spot');
    for (const key of NODE_FACT_LABELS) assert.ok(labelsUsedBy(DEFAULT_POLICY).includes(key), key);
  });
});

describe('evaluate: the healthy verdicts kept as rows', () => {
  it('reads them one by one as the array has them, in name order, and silences only the others', () => {
    const fresh = { renewTime: microTime(T0 - 3 * S) };
    const dead = { renewTime: microTime(T0 - 5 * MIN) };
    const snap = snapshot({
      leases: [lease('c', fresh), lease('a', dead), lease('b', fresh), lease('d', dead)],
      nodes: ['a', 'b', 'c', 'd', 'e'].map((name) => node(name, { zone: 'z1' })),
    });
    const evaluation = evaluate(snap, NONE, DEFAULT_POLICY, { now: T0 });
    const eager = evaluation.nodes;
    assert.deepEqual(
      eager.map((n) => [n.name, n.verdict]),
      [
        ['a', 'expired'],
        ['b', 'healthy'],
        ['c', 'healthy'],
        ['d', 'expired'],
        ['e', 'missing-lease'],
      ],
    );
    assert.deepEqual([...verdictsOf(evaluation)], eager);
    assert.equal(verdictCount(evaluation), 5);
    const silence = {
      id: 's-1',
      target: { nodes: ['a', 'b'] },
      comment: 'upgrade',
      author: 'ops',
      createdAt: T0 - MIN,
      endsAt: T0 + 60 * MIN,
    };
    const silenced = applySilences(
      evaluation,
      { silences: [silence], windows: [] },
      () => ({}),
      T0,
    );
    assert.deepEqual(
      [...verdictsOf(silenced)].map((n) => [n.name, n.verdict]),
      [
        ['a', 'suppressed'],
        ['b', 'healthy'],
        ['c', 'healthy'],
        ['d', 'expired'],
        ['e', 'missing-lease'],
      ],
    );
    assert.deepEqual([...verdictsOf(silenced)], silenced.nodes);
    assert.equal(silenced.summary.suppressed, 1);
    assert.equal(silenced.summary.healthy, 2);
  });
});
