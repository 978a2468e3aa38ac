/**
 * A check joins leases with their Nodes and last observations as two sorted lists merge when the
 * API lists both by name (lease-observations.ts, latestLeases), and through Maps by name in any
 * other order. The two joins must judge alike: the same cluster, listed sorted, shuffled, or with
 * the Nodes alone out of order, gets the same verdicts, observations and suspicions.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { evaluate } from '../lambda/core/evaluate.js';
import type { Evaluation, LeaseInfo, NodeInfo, Observations } from '../lambda/core/model.js';
import { DEFAULT_POLICY } from '../lambda/settings/index.js';
import { lease, microTime, node, snapshot, T0 } from '../testkit/builders.js';

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'ip-10', 'ip-9', 'z'];

/** A cluster: which names have a Node, and each lease (a name may have two) with its silence. */
const clusterOf = fc.record({
  nodes: fc.subarray(NAMES),
  leases: fc.array(fc.record({ name: fc.constantFrom(...NAMES), silentS: fc.nat(400) }), {
    maxLength: 14,
  }),
  // The leases of the last check, as silences, or none.
  before: fc.subarray(NAMES),
  shuffle: fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
});

function shuffled<T>(items: readonly T[], keys: readonly number[]): T[] {
  return items
    .map((item, i) => ({ item, key: keys[i % keys.length] as number, i }))
    .sort((x, y) => x.key - y.key || x.i - y.i)
    .map(({ item }) => item);
}

const byName = (x: { name: string }, y: { name: string }) =>
  x.name < y.name ? -1 : x.name > y.name ? 1 : 0;

/** What a check decided, in a form two checks can be compared by. */
function decided(evaluation: Evaluation) {
  return {
    nodes: evaluation.nodes.map((v) => ({ ...v })),
    summary: evaluation.summary,
    suspect: evaluation.suspect,
    observations: [...evaluation.observations.entries()].sort(([a], [b]) => (a < b ? -1 : 1)),
    rechecks: evaluation.rechecks,
  };
}

describe('evaluate: leases joined with their Nodes', () => {
  test('sorted (merged), shuffled and half-sorted lists are judged alike', () => {
    fc.assert(
      fc.property(clusterOf, ({ nodes, leases, before, shuffle }) => {
        const now = T0 + 120_000;
        // Two copies of one lease never tie: the copy renewed last wins whatever the order.
        const seen = new Set<string>();
        const leaseInfos: LeaseInfo[] = [];
        for (const { name, silentS } of leases) {
          const ms = now - silentS * 1000 - (seen.has(name) ? 1 : 0);
          seen.add(name);
          leaseInfos.push(lease(name, { renewTime: microTime(ms) }));
        }
        const nodeInfos: NodeInfo[] = nodes.map((name) => node(name));
        const previous: Observations = evaluate(
          snapshot({
            leases: before.map((name) => lease(name, { renewTime: microTime(T0 - 5_000) })),
            nodes: before.map((name) => node(name)),
          }),
          new Map(),
          DEFAULT_POLICY,
          { now: T0 },
        ).observations;
        const check = (ls: LeaseInfo[], ns: NodeInfo[]) =>
          decided(
            evaluate(
              snapshot({ leases: ls, nodes: ns, serverTime: now }),
              previous,
              DEFAULT_POLICY,
              { now },
            ),
          );
        // Sorted leases keep the listed order of a name's copies (a stable sort).
        const sortedLeases = [...leaseInfos].sort(byName);
        const sortedNodes = [...nodeInfos].sort(byName);
        const merged = check(sortedLeases, sortedNodes);
        assert.deepEqual(
          check(shuffled(leaseInfos, shuffle), shuffled(nodeInfos, shuffle)),
          merged,
        );
        assert.deepEqual(check(sortedLeases, shuffled(nodeInfos, shuffle)), merged);
        assert.deepEqual(check(shuffled(leaseInfos, shuffle), sortedNodes), merged);
      }),
      { numRuns: 300 },
    );
  });

  test('a Node without a lease and a lease without a Node are found by the merge', () => {
    const evaluation = evaluate(
      snapshot({
        leases: ['a', 'c', 'e'].map((n) => lease(n)),
        nodes: ['b', 'c', 'd', 'f'].map((n) => node(n)),
      }),
      new Map(),
      DEFAULT_POLICY,
      { now: T0 },
    );
    assert.deepEqual(
      evaluation.nodes.map((v) => `${v.name}:${v.verdict}`),
      [
        'a:orphaned-lease',
        'b:missing-lease',
        'c:healthy',
        'd:missing-lease',
        'e:orphaned-lease',
        'f:missing-lease',
      ],
    );
  });
});
