/** The state document: refusal counts of outbox notifications, and documents written before them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseClusterState,
  serializeClusterState,
  toStateDocument,
} from '../lambda/adapters/state/state-document.js';
import { EMPTY_ALERT_STATE } from '../lambda/core/alert-state.js';
import type { Notification } from '../lambda/core/notification.js';

const notification = (id: string) =>
  ({ id, kind: 'FIRING', cluster: 'prod' }) as unknown as Notification;

describe('state document: refusals', () => {
  it('reads a document written before refusals were kept: none', () => {
    const old = JSON.stringify({
      format: 1,
      observations: { names: [], renewTimes: [], changedAt: [] },
      alerts: EMPTY_ALERT_STATE,
      outbox: [notification('n1')],
      lock: null,
    });
    const state = parseClusterState(old);
    assert.deepEqual(state.refusals, {});
    assert.equal(state.outbox.length, 1);
  });

  it('keeps the count of each notification still in the outbox, and drops the others', () => {
    const state = {
      observations: new Map(),
      alerts: EMPTY_ALERT_STATE,
      outbox: [notification('n1'), notification('n2')],
      refusals: { n1: 3, gone: 2 },
    };
    assert.deepEqual(toStateDocument(state).refusals, { n1: 3 });
    assert.deepEqual(parseClusterState(serializeClusterState(state)).refusals, { n1: 3 });
  });

  it('refuses refusals that are not whole numbers', () => {
    const doc = JSON.parse(
      serializeClusterState({ observations: new Map(), alerts: EMPTY_ALERT_STATE, outbox: [] }),
    );
    doc.refusals = { n1: 'three' };
    assert.throws(() => parseClusterState(JSON.stringify(doc)), /refusals must be/);
  });
});

describe('state document: a silence judged expired', () => {
  it('keeps expiredSince across a save (a dead node stays expired), and reads older documents without it', () => {
    const observations = new Map([
      ['a', { renewTime: '2026-11-29T11:54:00.000000Z', changedAt: 1, expiredSince: 2 }],
      ['b', { renewTime: null, changedAt: 3 }],
    ]);
    const state = { observations, alerts: EMPTY_ALERT_STATE, outbox: [] };
    const read = parseClusterState(serializeClusterState(state)).observations;
    assert.equal(read.get('a')?.expiredSince, 2);
    assert.equal(read.get('b')?.expiredSince, undefined);
    const doc = JSON.parse(serializeClusterState(state));
    doc.observations.expired = [[7, 2]];
    assert.throws(() => parseClusterState(JSON.stringify(doc)), /observations.expired holds/);
  });
});
