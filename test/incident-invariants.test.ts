/**
 * Property tests of the alert lifecycle: fast-check generates sequences of checks (verdicts for a
 * few nodes in two zones, some absent, some degraded evaluations, some failed reads) under small
 * random policies, and every check is held to what incidents.ts and node-step.ts promise, whatever
 * the sequence. A fixed seed replays the same sequences every run; a failure is shrunk to a
 * minimal sequence (fewest changes from all-healthy, 30-s steps) and names the check that broke a
 * promise. No timing involved.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { AlertOutcome, AlertPolicy } from '../lambda/core/alert-policy.js';
import { type AlertState, EMPTY_ALERT_STATE } from '../lambda/core/alert-state.js';
import { alertsForEvaluation } from '../lambda/core/incidents.js';
import { isAlerting, isSilent, type NodeVerdict, type Verdict } from '../lambda/core/model.js';
import { alertsForReadFailure } from '../lambda/core/watchdog-alerts.js';
import { CLUSTER, evaluation, MINUTE, nv, policy, SECOND, T0 } from '../testkit/alert-builders.js';

const NAMES = ['n1', 'n2', 'n3', 'n4', 'n5'];
const ZONES = ['eu-west-1a', 'eu-west-1b'];
/** Weighted towards healthy and expired, so incidents both open and resolve often. */
const CHOICES: readonly (Verdict | 'absent')[] = [
  'healthy',
  'healthy',
  'healthy',
  'expired',
  'expired',
  'not-ready',
  'missing-lease',
  'suppressed',
  'invalid',
  'orphaned-lease',
  'absent',
];

const HELD_BY = ['cordoned', 'deleting', 'excluded'] as const;
const HIDDEN = ['expired', 'not-ready', 'expired', 'missing-lease'] as const;

/** True in `percent` % of the cases; shrinks to false. */
function sometimes(percent: number): fc.Arbitrary<boolean> {
  return fc.oneof(
    { withCrossShrink: true },
    { arbitrary: fc.constant(false), weight: 100 - percent },
    { arbitrary: fc.constant(true), weight: percent },
  );
}

/** Policies small enough for flapping, reminders and storms to happen within a sequence. */
const POLICY: fc.Arbitrary<AlertPolicy> = fc
  .record({
    reminderIntervalSeconds: fc.constantFrom(0, 5 * 60, 20 * 60),
    flapping: fc.record({
      transitions: fc.constantFrom(0, 2, 3),
      windowSeconds: fc.constantFrom(10 * 60, 30 * 60),
      stableSeconds: fc.constantFrom(5 * 60, 15 * 60),
    }),
    storm: fc.record({
      zoneMinNodes: fc.constantFrom(2, 3),
      clusterMinNodes: fc.constantFrom(3, 4),
    }),
    stuckRemovalSeconds: fc.constantFrom(300, 600, 1800),
  })
  .map(policy);

/**
 * One node in one check. It keeps its verdict of the previous check half the time (`keep`), so
 * incidents stay open for a while and some checks change nothing.
 */
interface NodeDraw {
  readonly keep: boolean;
  readonly verdict: Verdict | 'absent';
  readonly renewedLater: boolean;
  readonly newlySeen: boolean;
}

/** One check: a successful one (its nodes, maybe degraded) or a failed read. */
type CheckDraw = { readonly step: number } & (
  | {
      readonly kind: 'evaluation';
      readonly nodes: readonly NodeDraw[];
      readonly degraded: boolean;
      /** The state goes through JSON afterwards, as the stores keep it. */
      readonly viaJson: boolean;
    }
  | { readonly kind: 'failure'; readonly failure: 'timeout' | 'unreachable' }
);

const STEP = fc.constantFrom(30 * SECOND, 1 * MINUTE, 2 * MINUTE, 5 * MINUTE);

const NODE_DRAW: fc.Arbitrary<NodeDraw> = fc.record({
  keep: fc.boolean(),
  verdict: fc.constantFrom(...CHOICES),
  renewedLater: sometimes(20),
  newlySeen: sometimes(15),
});

const CHECK: fc.Arbitrary<CheckDraw> = fc.oneof(
  { withCrossShrink: true },
  {
    weight: 92,
    arbitrary: fc.record({
      step: STEP,
      kind: fc.constant('evaluation' as const),
      nodes: fc.array(NODE_DRAW, { minLength: NAMES.length, maxLength: NAMES.length }),
      degraded: sometimes(10),
      viaJson: fc.boolean(),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      step: STEP,
      kind: fc.constant('failure' as const),
      failure: fc.constantFrom('timeout' as const, 'unreachable' as const),
    }),
  },
);

/** This check's verdict of each node, from its draw and its verdict of the previous check. */
function chosenVerdicts(
  previous: ReadonlyMap<string, Verdict | 'absent'>,
  draws: readonly NodeDraw[],
): Map<string, Verdict | 'absent'> {
  const next = new Map<string, Verdict | 'absent'>();
  for (const [i, name] of NAMES.entries()) {
    const draw = draws[i] as NodeDraw;
    const kept = previous.get(name);
    next.set(name, kept !== undefined && draw.keep ? kept : draw.verdict);
  }
  return next;
}

function verdictsOf(
  chosen: ReadonlyMap<string, Verdict | 'absent'>,
  draws: readonly NodeDraw[],
): NodeVerdict[] {
  const list: NodeVerdict[] = [];
  for (const [i, name] of NAMES.entries()) {
    const verdict = chosen.get(name) ?? 'absent';
    const draw = draws[i] as NodeDraw;
    if (verdict === 'absent') continue;
    list.push(
      nv(name, verdict, {
        zone: ZONES[i % ZONES.length] ?? null,
        // Node groups cut across the zones.
        nodeGroup: i < 3 ? 'general' : 'gpu',
        // Held by the same cause, hiding the same verdict, each time (so removals get stuck).
        ...(verdict === 'suppressed'
          ? { suppressedBy: HELD_BY[i % HELD_BY.length], suppressedVerdict: HIDDEN[i % 4] }
          : {}),
        renewTime: draw.renewedLater
          ? '2026-11-29T17:59:27.102934Z'
          : '2026-11-29T17:58:47.065888Z',
        ...(draw.newlySeen ? { newlySeen: true } : {}),
      }),
    );
  }
  return list;
}

function names(list: readonly { readonly name: string }[]): Set<string> {
  return new Set(list.map((node) => node.name));
}

/** True while the storm in `state` covers this node's zone or node group. */
function stormCovers(state: AlertState, node: NodeVerdict): boolean {
  const storm = state.storm;
  if (storm === null) return false;
  if (storm.scope === 'cluster' || storm.zones.includes(node.zone ?? '')) return true;
  return node.nodeGroup !== undefined && (storm.nodeGroups ?? []).includes(node.nodeGroup);
}

/** A node held by an expected removal while silent: it may page once the removal is stuck. */
function heldSilent(node: NodeVerdict): boolean {
  const hidden = node.suppressedVerdict;
  return (
    node.verdict === 'suppressed' &&
    node.suppressedBy !== 'excluded' &&
    hidden !== undefined &&
    isSilent(hidden)
  );
}

/** Checks what one successful check may do, given the state before it and what came out. */
function assertCheck(before: AlertState, nodes: readonly NodeVerdict[], out: AlertOutcome): void {
  const after = out.state;
  const firing = names(out.notification?.firing ?? []);
  const flapping = names(out.notification?.flapping ?? []);
  for (const node of nodes) {
    if (before.incidents[node.name] !== undefined || after.incidents[node.name] === undefined) {
      continue;
    }
    // An incident opened: only for an alerting verdict (or a silent node whose removal is stuck,
    // never an excluded one), and only with a FIRING, STORM or FLAPPING notification naming the
    // node, or silently while a storm covers it or while it flaps.
    assert.ok(
      isAlerting(node.verdict) || heldSilent(node),
      `${node.name} opened on ${node.verdict}`,
    );
    const said = firing.has(node.name) || flapping.has(node.name);
    const silently = stormCovers(after, node) || after.flaps[node.name]?.flapping !== undefined;
    assert.ok(said || silently, `${node.name} opened without a notice`);
  }
  const present = names(nodes);
  for (const name of Object.keys(after.incidents)) {
    // No incident appears for a node that is not in the evaluation.
    assert.ok(present.has(name) || before.incidents[name] !== undefined, `${name} appeared`);
  }
  for (const node of out.notification?.resolved ?? []) {
    // Every RESOLVED names a node that had an open incident, or was flapping (its incident
    // resolved silently meanwhile); and it has no incident now.
    const open = before.incidents[node.name] !== undefined;
    const wasFlapping = before.flaps[node.name]?.flapping !== undefined;
    assert.ok(open || wasFlapping, `${node.name} resolved without an incident`);
    assert.equal(after.incidents[node.name], undefined, `${node.name} resolved but still open`);
  }
  // A storm that starts or spreads is remembered; one that ended is forgotten.
  const storm = out.notification?.storm;
  if (storm !== undefined) {
    assert.equal(after.storm === null, storm.state === 'ended', 'storm notice and state disagree');
  }
  if (before.storm === null && after.storm !== null) assert.equal(storm?.state, 'active');
  if (before.storm !== null && after.storm === null) assert.equal(storm?.state, 'ended');
  // Stuck-removal clocks are kept only for nodes held silently by an expected removal (or, in a
  // degraded check, for nodes it does not list).
  for (const name of Object.keys(after.removals ?? {})) {
    const node = nodes.find((n) => n.name === name);
    assert.ok(node === undefined ? before.removals?.[name] !== undefined : heldSilent(node), name);
  }
  // The same object comes back exactly when nothing in it changed.
  assert.equal(after === before, isDeepStrictEqual(after, before), 'state identity');
}

/** Runs one sequence of checks, asserting every check; a broken promise names its check. */
function runSequence(alertPolicy: AlertPolicy, checks: readonly (CheckDraw | null)[]): void {
  let state: AlertState = EMPTY_ALERT_STATE;
  let now = T0;
  let chosen = new Map<string, Verdict | 'absent'>();
  for (const [i, check] of checks.entries()) {
    if (check === null) continue;
    now += check.step;
    try {
      if (check.kind === 'failure') {
        const out = alertsForReadFailure(
          { cluster: CLUSTER, failure: check.failure, message: check.failure },
          state,
          alertPolicy,
          now,
        );
        // A failed read never touches node incidents, flap records or the storm.
        assert.equal(out.state.incidents, state.incidents);
        assert.equal(out.state.flaps, state.flaps);
        assert.equal(out.state.storm, state.storm);
        assert.equal(out.state === state, isDeepStrictEqual(out.state, state), 'state identity');
        state = out.state;
        continue;
      }
      chosen = chosenVerdicts(chosen, check.nodes);
      const nodes = verdictsOf(chosen, check.nodes);
      const degraded = check.degraded ? { degraded: 'cannot list Nodes' } : {};
      const out = alertsForEvaluation(
        evaluation({ nodes, checkedAt: now, ...degraded }),
        state,
        alertPolicy,
        now,
      );
      assertCheck(state, nodes, out);
      state = check.viaJson ? (JSON.parse(JSON.stringify(out.state)) as AlertState) : out.state;
    } catch (error) {
      if (error instanceof Error) error.message = `check ${i}: ${error.message}`;
      throw error;
    }
  }
}

/** Sequences, checks in each, and the seed that replays them. */
const SEQUENCES = 300;
const CHECKS = 40;
const SEED = 2026;

/**
 * CHECKS checks. Each may shrink away (null: no check, no time passes; hardly ever generated), so
 * that a counter-example keeps only the checks that matter, in order.
 */
const SEQUENCE = fc.array(fc.option(CHECK, { nil: null, freq: 1_000 }), {
  minLength: CHECKS,
  maxLength: CHECKS,
});

describe('incidents: invariants over random check sequences', () => {
  test('every check keeps the promises: opening, resolving, storm state, state identity', () => {
    fc.assert(
      fc.property(POLICY, SEQUENCE, (alertPolicy, checks) => runSequence(alertPolicy, checks)),
      { seed: SEED, numRuns: SEQUENCES },
    );
  });
});
