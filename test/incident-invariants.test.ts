/**
 * Property-style tests of the alert lifecycle: a seeded PRNG drives random sequences of checks
 * (verdicts for a few nodes in two zones, some absent, some degraded evaluations, some failed
 * reads) and every check is held to what incidents.ts and node-step.ts promise, whatever the
 * sequence. Seeded, so a failure names a sequence that replays exactly; no timing involved.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { type AlertState, EMPTY_ALERT_STATE } from '../lambda/core/alert-state.js';
import {
  type AlertOutcome,
  type AlertPolicy,
  alertsForEvaluation,
  alertsForReadFailure,
} from '../lambda/core/incidents.js';
import { isAlerting, isSilent, type NodeVerdict, type Verdict } from '../lambda/core/model.js';
import { CLUSTER, evaluation, MINUTE, nv, policy, SECOND, T0 } from '../testkit/alert-builders.js';
import { random as seeded } from '../testkit/state-fixtures.js';

type Pick = <T>(choices: readonly T[]) => T;

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

/** Policies small enough for flapping, reminders and storms to happen within a sequence. */
function randomPolicy(pick: Pick): AlertPolicy {
  return policy({
    reminderIntervalSeconds: pick([0, 5 * 60, 20 * 60]),
    flapping: {
      transitions: pick([0, 2, 3]),
      windowSeconds: pick([10 * 60, 30 * 60]),
      stableSeconds: pick([5 * 60, 15 * 60]),
    },
    storm: { zoneMinNodes: pick([2, 3]), clusterMinNodes: pick([3, 4]) },
    stuckRemovalSeconds: pick([300, 600, 1800]),
  });
}

/**
 * This check's nodes. Each keeps its verdict of the previous check half the time, so incidents
 * stay open for a while and some checks change nothing.
 */
function randomNodes(
  previous: ReadonlyMap<string, Verdict | 'absent'>,
  random: () => number,
  pick: Pick,
): Map<string, Verdict | 'absent'> {
  const next = new Map<string, Verdict | 'absent'>();
  for (const name of NAMES) {
    const kept = previous.get(name);
    next.set(name, kept !== undefined && random() < 0.5 ? kept : pick(CHOICES));
  }
  return next;
}

function verdictsOf(
  chosen: ReadonlyMap<string, Verdict | 'absent'>,
  random: () => number,
): NodeVerdict[] {
  const list: NodeVerdict[] = [];
  for (const [i, name] of NAMES.entries()) {
    const verdict = chosen.get(name) ?? 'absent';
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
        renewTime: random() < 0.8 ? '2026-11-29T17:58:47.065888Z' : '2026-11-29T17:59:27.102934Z',
        ...(random() < 0.15 ? { newlySeen: true } : {}),
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

/** Runs one random sequence of checks, asserting every check. */
function runSequence(seed: number, checks: number): void {
  const random = seeded(seed);
  const pick: Pick = (choices) => choices[Math.floor(random() * choices.length)] as never;
  const alertPolicy = randomPolicy(pick);
  let state: AlertState = EMPTY_ALERT_STATE;
  let now = T0;
  let chosen = new Map<string, Verdict | 'absent'>();
  for (let i = 0; i < checks; i++) {
    now += pick([30 * SECOND, 1 * MINUTE, 2 * MINUTE, 5 * MINUTE]);
    if (random() < 0.08) {
      const failure = pick(['timeout', 'unreachable'] as const);
      const out = alertsForReadFailure(CLUSTER, failure, failure, state, alertPolicy, now);
      // A failed read never touches node incidents, flap records or the storm.
      assert.equal(out.state.incidents, state.incidents);
      assert.equal(out.state.flaps, state.flaps);
      assert.equal(out.state.storm, state.storm);
      assert.equal(out.state === state, isDeepStrictEqual(out.state, state), 'state identity');
      state = out.state;
      continue;
    }
    chosen = randomNodes(chosen, random, pick);
    const nodes = verdictsOf(chosen, random);
    const degraded = random() < 0.1 ? { degraded: 'cannot list Nodes' } : {};
    const out = alertsForEvaluation(
      evaluation({ nodes, checkedAt: now, ...degraded }),
      state,
      alertPolicy,
      now,
    );
    assertCheck(state, nodes, out);
    // Half the time the state goes through JSON, as the stores keep it.
    state = random() < 0.5 ? out.state : (JSON.parse(JSON.stringify(out.state)) as AlertState);
  }
}

describe('incidents: invariants over random check sequences', () => {
  test('every check keeps the promises: opening, resolving, storm state, state identity', () => {
    for (let seed = 1; seed <= 300; seed++) {
      try {
        runSequence(seed, 40);
      } catch (error) {
        if (error instanceof Error) error.message = `seed ${seed}: ${error.message}`;
        throw error;
      }
    }
  });
});
