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

describe('state document: refusals (when each was first refused)', () => {
  it('reads a document written before refusals were kept: none', () => {
    const old = JSON.stringify({
      format: 1,
      observations: { names: [], renewTimes: [], changedAt: [] },
      alerts: EMPTY_ALERT_STATE,
      outbox: [notification('n1')],
      lock: null,
    });
    const state = parseClusterState(old);
    assert.deepEqual(state.refusedSince, {});
    assert.equal(state.outbox.length, 1);
  });

  it('drops the refusal counts of older documents: the give-up time starts afresh', () => {
    const old = JSON.stringify({
      format: 1,
      observations: { names: [], renewTimes: [], changedAt: [] },
      alerts: EMPTY_ALERT_STATE,
      outbox: [notification('n1')],
      lock: null,
      refusals: { n1: 4 },
    });
    assert.deepEqual(parseClusterState(old).refusedSince, {});
  });

  it('keeps the first refusal of each notification still in the outbox, and drops the others', () => {
    const state = {
      observations: new Map(),
      alerts: EMPTY_ALERT_STATE,
      outbox: [notification('n1'), notification('n2')],
      refusedSince: { n1: 1_764_000_000_000, gone: 1_764_000_000_000 },
    };
    assert.deepEqual(toStateDocument(state).refusedSince, { n1: 1_764_000_000_000 });
    assert.deepEqual(parseClusterState(serializeClusterState(state)).refusedSince, {
      n1: 1_764_000_000_000,
    });
  });

  it('keeps when the refusals were last counted while some are kept, and only then', () => {
    const state = {
      observations: new Map(),
      alerts: EMPTY_ALERT_STATE,
      outbox: [notification('n1')],
      refusedSince: { n1: 1_764_000_000_000 },
      refusedAt: 1_764_000_060_000,
    };
    assert.equal(parseClusterState(serializeClusterState(state)).refusedAt, 1_764_000_060_000);
    const none = { ...state, refusedSince: {} };
    assert.equal(parseClusterState(serializeClusterState(none)).refusedAt, undefined);
    const doc = JSON.parse(serializeClusterState(state));
    doc.refusedAt = 'soon';
    assert.throws(() => parseClusterState(JSON.stringify(doc)), /refusedAt must be/);
  });

  it('refuses refusals that are not whole numbers', () => {
    const doc = JSON.parse(
      serializeClusterState({ observations: new Map(), alerts: EMPTY_ALERT_STATE, outbox: [] }),
    );
    doc.refusedSince = { n1: 'three' };
    assert.throws(() => parseClusterState(JSON.stringify(doc)), /refusedSince must be/);
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
