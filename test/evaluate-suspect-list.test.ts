/**
 * A lease list that suddenly lacks most of the leases the last check saw (≥ half, ≥ 3), or a Node
 * list that lacks most of the nodes whose leases are being renewed, is suspect: the check is suspect, open incidents of the nodes missing from it are kept (no RESOLVED
 * "removed", and no second FIRING when they come back), nodes whose lease vanished are not judged
 * missing-lease; the next check, compared with this one, confirms. Found by the fault matrix of
 * docs/RELIABILITY.md ("Most nodes vanish from one list").
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AlertState, EMPTY_ALERT_STATE } from '../lambda/core/alert-state.js';
import { evaluate } from '../lambda/core/evaluate.js';
import { alertsForEvaluation } from '../lambda/core/incidents.js';
import type { Observations, Snapshot } from '../lambda/core/model.js';
import { DEFAULT_ALERT_POLICY, DEFAULT_POLICY } from '../lambda/settings/index.js';
import { lease, microTime, node, snapshot, T0 } from '../testkit/builders.js';

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f'];
const DEAD_SINCE = T0 - 10 * 60_000;
const DEAD = new Set(['c', 'e']);
const at = (minutes: number) => T0 + minutes * 60_000;

/** The cluster at `at`, listing only `listed` leases (and `nodes` Nodes, default the same). */
function cluster(
  at: number,
  listed: readonly string[],
  nodes: readonly string[] = listed,
): Snapshot {
  return snapshot({
    leases: listed.map((n) =>
      lease(n, { renewTime: microTime(DEAD.has(n) ? DEAD_SINCE : at - 2_000) }),
    ),
    nodes: nodes.map((n) => node(n)),
    serverTime: at,
  });
}

interface Carried {
  observations: Observations;
  alerts: AlertState;
}

/** One check: the notification's kind and named nodes (or null), and the evaluation's suspect. */
function check(carried: Carried, snap: Snapshot, at: number) {
  const evaluation = evaluate(snap, carried.observations, DEFAULT_POLICY, { now: at });
  const outcome = alertsForEvaluation(evaluation, carried.alerts, DEFAULT_ALERT_POLICY, at);
  carried.observations = evaluation.observations;
  carried.alerts = outcome.state;
  const n = outcome.notification;
  return {
    sent: n
      ? `${n.kind} firing=${n.firing.map((x) => x.name).join(',')} resolved=${n.resolved.map((x) => x.name).join(',')}`
      : null,
    suspect: evaluation.suspect,
    verdicts: evaluation.nodes.map((v) => `${v.name}:${v.verdict}`).join(' '),
  };
}

function paged(): Carried {
  const carried: Carried = { observations: new Map(), alerts: EMPTY_ALERT_STATE };
  const first = check(carried, cluster(at(-1), NAMES), at(-1));
  const second = check(carried, cluster(T0, NAMES), T0);
  assert.deepEqual([first.sent, second.sent], [null, 'FIRING firing=c,e resolved=']);
  return carried;
}

describe('evaluate: a list that lacks most of the last check', () => {
  it('is suspect; the incidents of the missing nodes are kept; the full list back sends nothing', () => {
    const carried = paged();
    const suspect = check(carried, cluster(at(1), ['a']), at(1));
    assert.equal(suspect.sent, null, 'no wave of RESOLVED "removed"');
    assert.match(suspect.suspect ?? '', /lease list lacks 5 of the 6 leases the last check saw/);
    const back = check(carried, cluster(at(2), NAMES), at(2));
    assert.equal(back.sent, null, 'no second FIRING for c and e');
    assert.equal(back.suspect, undefined);
  });

  it('the next check confirms a list that stays short: the nodes are gone', () => {
    const carried = paged();
    check(carried, cluster(at(1), ['a']), at(1));
    const confirmed = check(carried, cluster(at(2), ['a']), at(2));
    assert.equal(confirmed.suspect, undefined);
    assert.equal(confirmed.sent, 'RESOLVED firing= resolved=c,e');
  });

  it('leases missing while the Nodes are listed: not a wave of missing-lease', () => {
    const carried = paged();
    const suspect = check(carried, cluster(at(1), ['a', 'b'], NAMES), at(1));
    assert.equal(suspect.sent, null);
    assert.equal(suspect.verdicts, 'a:healthy b:healthy');
    // Still missing on the next check: now it is what it looks like.
    const confirmed = check(carried, cluster(at(2), ['a', 'b'], NAMES), at(2));
    assert.match(confirmed.verdicts, /d:missing-lease/);
  });

  it('Nodes missing while their leases renew: checked on leases alone, no lease orphaned', () => {
    const carried = paged();
    const suspect = check(carried, cluster(at(1), NAMES, ['a']), at(1));
    assert.equal(suspect.sent, null, 'no wave of RESOLVED "deleted"');
    assert.match(
      suspect.suspect ?? '',
      /Node list lacks 3 of the 4 nodes whose leases were renewed/,
    );
    assert.doesNotMatch(suspect.verdicts, /orphaned-lease/);
    const back = check(carried, cluster(at(2), NAMES), at(2));
    assert.equal(back.sent, null, 'no second FIRING for c and e');
    assert.equal(back.suspect, undefined);
  });

  it('a deleted node (its kubelet stopped) is still gone', () => {
    const carried = paged();
    // c and e are dead: their leases do not renew, so their Nodes missing is believed.
    const deleted = check(carried, cluster(at(1), NAMES, ['a', 'b', 'd', 'f']), at(1));
    assert.equal(deleted.suspect, undefined);
    assert.equal(deleted.sent, 'RESOLVED firing= resolved=c,e');
  });

  it('fewer than half, or fewer than 3, missing: an ordinary check', () => {
    const carried = paged();
    const two = check(carried, cluster(at(1), ['a', 'b', 'd', 'f']), at(1));
    assert.equal(two.suspect, undefined);
    assert.equal(two.sent, 'RESOLVED firing= resolved=c,e');

    const small: Carried = { observations: new Map(), alerts: EMPTY_ALERT_STATE };
    check(small, cluster(T0, ['a', 'b', 'c']), T0);
    const halfOfThree = check(small, cluster(at(1), ['a']), at(1));
    assert.equal(halfOfThree.suspect, undefined, 'two of three is not enough');
  });
});
