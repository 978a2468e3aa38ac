/**
 * What the DynamoDB store remembers of an observation snapshot (snapshot-fingerprints.ts): it holds
 * a lease exactly when `sameObservation` would find the lease in it as it is.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sameObservation } from '../lambda/adapters/state/dynamodb/observation-snapshot.js';
import {
  fingerprint,
  SnapshotFingerprints,
} from '../lambda/adapters/state/dynamodb/snapshot-fingerprints.js';
import type { Observation } from '../lambda/core/model.js';

const T0 = Date.parse('2026-12-03T07:00:00Z');
const seen: Observation = {
  renewTime: '2026-12-03T06:59:58.123456Z',
  changedAt: T0 - 1500.5,
  estimated: false,
  renewedAt: T0 - 1700,
  offsetMs: 200,
};

describe('SnapshotFingerprints', () => {
  it('holds each lease as stored, and no lease as it is after any field moved', () => {
    const stored = new Map<string, Observation>([
      ['node-a', seen],
      ['node-b', { renewTime: null, changedAt: T0 }],
      ['node-c', { ...seen, suspectSince: T0 - 40_000 }],
    ]);
    const holds = SnapshotFingerprints.of(stored);

    assert.equal(holds.size, 3);
    for (const [name, observation] of stored) assert.ok(holds.holds(name, observation), name);
    const moved: [string, Observation][] = [
      ['node-a', { ...seen, renewTime: '2026-12-03T06:59:58.123457Z' }],
      ['node-a', { ...seen, changedAt: seen.changedAt + 1 }],
      ['node-a', { ...seen, estimated: true }],
      ['node-a', { ...seen, suspectSince: T0 }],
      ['node-a', { ...seen, expiredSince: T0 }],
      ['node-c', { ...seen, suspectSince: T0 - 40_001 }],
      ['node-b', { renewTime: 'null', changedAt: T0 }],
      // The right observation under another lease's name.
      ['node-b', seen],
      ['node-d', seen],
    ];
    for (const [name, observation] of moved) {
      assert.equal(holds.holds(name, observation), false, `${name} ${JSON.stringify(observation)}`);
    }
  });

  it('counts fields as sameObservation does: absent, undefined and false alike, in any order', () => {
    const reordered: Observation = {
      offsetMs: 200,
      renewedAt: T0 - 1700,
      changedAt: T0 - 1500.5,
      renewTime: '2026-12-03T06:59:58.123456Z',
      suspectSince: undefined,
    };
    const holds = SnapshotFingerprints.of(new Map([['node-a', seen]]));

    assert.ok(sameObservation(seen, reordered));
    assert.ok(holds.holds('node-a', reordered));
  });

  it('agrees with sameObservation over many observations, and tells 100,000 of them apart', () => {
    const names = Array.from({ length: 100_000 }, (_, i) => `ip-10-0-${i >> 8}-${i & 255}`);
    const at = (i: number): Observation => ({
      renewTime: new Date(T0 - i * 7).toISOString().replace('Z', '123Z'),
      changedAt: T0 - i * 7 + 0.5,
      renewedAt: T0 - i * 7,
      ...(i % 3 === 0 ? { offsetMs: i % 11 } : {}),
    });
    const stored = new Map(names.map((name, i) => [name, at(i)]));
    const holds = SnapshotFingerprints.of(stored);
    const distinct = new Set(names.map((name, i) => fingerprint(name, at(i))));

    assert.equal(distinct.size, names.length);
    for (let i = 0; i < names.length; i += 997) {
      const name = names[i] as string;
      assert.ok(holds.holds(name, at(i)), name);
      // The next check's observation of the same lease: renewed since.
      assert.equal(holds.holds(name, at(i + 1)), sameObservation(at(i), at(i + 1)), name);
    }
  });
});
