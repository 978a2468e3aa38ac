/**
 * A state document written in parts (json-parts.ts, gzipped part by part by the DynamoDB store):
 * the same text as JSON.stringify, and no part holding a long column whole.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonParts } from '../lambda/adapters/state/json-parts.js';
import {
  serializeClusterState,
  serializeClusterStateParts,
} from '../lambda/adapters/state/state-document.js';
import { EMPTY_ALERT_STATE } from '../lambda/core/alert-state.js';
import type { Observation } from '../lambda/core/model.js';

const T0 = Date.parse('2026-12-03T07:00:00Z');

describe('jsonParts', () => {
  it('writes what JSON.stringify writes, whatever the values and however small the batch', () => {
    const values: unknown[] = [
      null,
      'a "quoted" line\nwith \u0000 and \u2028 and ☃',
      [1, undefined, () => 1, null, Number.NaN, -0, 1e21, 'x', [2, [3, 4, 5, 6]], { a: undefined }],
      {
        kept: 1,
        gone: undefined,
        fn: () => 1,
        sym: Symbol('s'),
        at: new Date(T0),
        map: new Map([[1, 2]]),
        nested: { list: Array.from({ length: 11 }, (_, i) => ({ i, half: i / 2 })), empty: [] },
        withToJson: { toJSON: () => ['replaced'] },
        bare: Object.assign(Object.create(null) as object, { b: [1, 2, 3, 4, 5] }),
      },
      Array.from({ length: 10 }, () => undefined),
    ];
    for (const value of values) {
      for (const batch of [1, 3, 4096]) {
        assert.equal([...jsonParts(value, batch)].join(''), JSON.stringify(value), String(batch));
      }
    }
  });

  it('writes a state of 100,000 leases as serializeClusterState does, its columns in parts', () => {
    const observations = new Map<string, Observation>();
    for (let i = 0; i < 100_000; i++) {
      observations.set(`ip-10-0-${i >> 8}-${i & 255}.ec2.internal`, {
        renewTime: new Date(T0 - i).toISOString().replace('Z', '123Z'),
        changedAt: T0 - i + 0.5,
        ...(i % 2 ? { renewedAt: T0 - i, offsetMs: i % 13 } : {}),
        ...(i % 1000 === 0 ? { suspectSince: T0 - 30_000, estimated: true } : {}),
      });
    }
    const state = { observations, alerts: EMPTY_ALERT_STATE, outbox: [] };

    const parts = [...serializeClusterStateParts(state)];
    const whole = serializeClusterState(state);

    assert.equal(parts.join(''), whole);
    const longest = Math.max(...parts.map((part) => part.length));
    assert.ok(longest < whole.length / 10, `a part of ${longest} of ${whole.length} characters`);
  });
});
