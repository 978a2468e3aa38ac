/**
 * A check looks each lease up by name once: at 100,000 leases every lookup by name is 100,000 Map
 * probes, and a check that repeats them per phase (suspect lists, observing, judging) spends its
 * CPU there (docs/BENCHMARKS.md). The lookups are counted on the observations the check is given.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluate } from '../lambda/core/evaluate.js';
import type { Observation } from '../lambda/core/model.js';
import { DEFAULT_POLICY } from '../lambda/settings/index.js';
import { lease, microTime, node, snapshot, T0 } from '../testkit/builders.js';

/** Observations that count how often a check asks them about one lease. */
class CountedObservations extends Map<string, Observation> {
  lookups = 0;
  override get(name: string): Observation | undefined {
    this.lookups++;
    return super.get(name);
  }
  override has(name: string): boolean {
    this.lookups++;
    return super.has(name);
  }
}

describe('evaluate: lookups by name', () => {
  it('asks the last observations about each lease once per check', () => {
    const names = ['a', 'b', 'c', 'd'];
    const first = evaluate(
      snapshot({
        leases: names.map((n) => lease(n, { renewTime: microTime(T0 - 1000) })),
        nodes: names.map((n) => node(n)),
      }),
      new Map(),
      DEFAULT_POLICY,
      { now: T0 },
    );
    const previous = new CountedObservations(first.observations);
    const later = T0 + 30_000;
    const second = evaluate(
      snapshot({
        leases: names.map((n) => lease(n, { renewTime: microTime(later - 2000) })),
        nodes: names.map((n) => node(n)),
        serverTime: later,
      }),
      previous,
      DEFAULT_POLICY,
      { now: later },
    );
    assert.deepEqual(
      second.nodes.map((v) => v.verdict),
      ['healthy', 'healthy', 'healthy', 'healthy'],
    );
    assert.equal(previous.lookups, names.length);
  });
});
