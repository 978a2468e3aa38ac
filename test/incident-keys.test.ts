/**
 * Incident keys (lambda/core/incident-keys.ts): one key per incident on every notification of it,
 * a new key for a new incident, and keys for the watchdog's own incidents.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readAlertState } from '../lambda/adapters/state/alert-state-document.js';
import type { AlertState } from '../lambda/core/alert-state.js';
import { incidentKey } from '../lambda/core/incident-keys.js';
import type { Notification } from '../lambda/core/notification.js';
import {
  CLUSTER,
  HOUR,
  MINUTE,
  nodes,
  nv,
  policy,
  runChecks,
  T0,
} from '../testkit/alert-builders.js';

const down = [nv('a', 'expired')];
const up = [nv('a', 'healthy')];

/** The key of every node entry of a notification, as `list:name=key`. */
function keys(n: Notification | null): string[] {
  if (n === null) return [];
  const lists = {
    firing: n.firing,
    reminders: n.reminders,
    flapping: n.flapping,
    resolved: n.resolved,
  };
  return Object.entries(lists).flatMap(([list, xs]) => xs.map((x) => `${list}:${x.name}=${x.key}`));
}

describe('incident keys', () => {
  test('one key from FIRING through REMINDER to RESOLVED; a new incident gets a new key', () => {
    // Act
    const run = runChecks([
      { at: T0, nodes: down },
      { at: T0 + 4 * HOUR, nodes: down },
      { at: T0 + 4 * HOUR + MINUTE, nodes: up },
      { at: T0 + 5 * HOUR, nodes: down },
    ]);
    // Assess
    const first = incidentKey('node', CLUSTER, 'a', T0);
    const second = incidentKey('node', CLUSTER, 'a', T0 + 5 * HOUR);
    assert.deepStrictEqual(run.notifications.map(keys), [
      [`firing:a=${first}`],
      [`reminders:a=${first}`],
      [`resolved:a=${first}`],
      [`firing:a=${second}`],
    ]);
    assert.notEqual(first, second);
    assert.match(first, /^lw-node-[0-9a-f]{24}$/);
  });

  test('a flapping node keeps the key of its episode, to the release', () => {
    // Act: FIRING, RESOLVED, FLAPPING (a new incident opens), silent transitions, released down
    const run = runChecks(
      [
        { at: T0, nodes: down },
        { at: T0 + MINUTE, nodes: up },
        { at: T0 + 2 * MINUTE, nodes: down },
        { at: T0 + 3 * MINUTE, nodes: up },
        { at: T0 + 4 * MINUTE, nodes: down },
        { at: T0 + 20 * MINUTE, nodes: down },
        { at: T0 + 21 * MINUTE, nodes: up },
      ],
      policy({ reminderIntervalSeconds: 0 }),
    );
    // Assess
    const first = incidentKey('node', CLUSTER, 'a', T0);
    const episode = incidentKey('node', CLUSTER, 'a', T0 + 2 * MINUTE);
    assert.deepStrictEqual(run.notifications.map(keys), [
      [`firing:a=${first}`],
      [`resolved:a=${first}`],
      [`flapping:a=${episode}`],
      [],
      [],
      [`firing:a=${episode}`],
      [`resolved:a=${episode}`],
    ]);
  });

  test('a flapping node released healthy resolves the key of its episode', () => {
    // Act: FIRING, RESOLVED, FLAPPING, recovered (silently), released up
    const run = runChecks([
      { at: T0, nodes: down },
      { at: T0 + MINUTE, nodes: up },
      { at: T0 + 2 * MINUTE, nodes: down },
      { at: T0 + 3 * MINUTE, nodes: up },
      { at: T0 + 18 * MINUTE, nodes: up },
    ]);
    // Assess
    const episode = incidentKey('node', CLUSTER, 'a', T0 + 2 * MINUTE);
    assert.deepStrictEqual(keys(run.notifications[4] ?? null), [`resolved:a=${episode}`]);
  });

  test('the WATCHDOG keeps one key from its page to its resolution', () => {
    // Act
    const run = runChecks(
      [
        { at: T0, failure: 'unreachable' },
        { at: T0 + MINUTE, failure: 'tls' },
        { at: T0 + 2 * MINUTE, nodes: up },
        { at: T0 + 3 * MINUTE, failure: 'unreachable' },
      ],
      policy({ readFailuresBeforePage: 2, unreadableBeforePageSeconds: 0 }),
    );
    // Assess
    const key = incidentKey('watchdog', CLUSTER, '', T0);
    assert.equal(run.notifications[1]?.watchdog?.key, key);
    assert.equal(run.notifications[2]?.watchdog?.key, key);
    assert.match(key, /^lw-watchdog-[0-9a-f]{24}$/);
    assert.equal(run.notifications[3], null);
  });

  test('a STORM keeps one key from its start to its end', () => {
    // Act
    const run = runChecks([
      { at: T0, nodes: [...nodes('d', 4, 'expired'), ...nodes('ok', 1, 'healthy')] },
      { at: T0 + MINUTE, nodes: [...nodes('d', 4, 'healthy'), ...nodes('ok', 1, 'healthy')] },
    ]);
    // Assess
    const key = incidentKey('storm', CLUSTER, '', T0);
    assert.equal(run.notifications[0]?.storm?.key, key);
    assert.equal(run.notifications[1]?.storm?.state, 'ended');
    assert.equal(run.notifications[1]?.storm?.key, key);
  });

  test('state written before keys existed gives the key its opening time gives', () => {
    // Prepare: an incident and a watchdog incident as stored before keys (no key fields)
    const old = {
      incidents: {
        a: {
          verdict: 'expired',
          zone: 'eu-west-1a',
          instance: 'i-a',
          renewTime: null,
          openedAt: T0 - HOUR,
          lastNotifiedAt: T0 - HOUR,
        },
      },
      flaps: {},
      watchdog: null,
      storm: null,
    } as AlertState;
    // Act
    const run = runChecks([{ at: T0, nodes: up }], undefined, old);
    // Assess
    assert.deepStrictEqual(keys(run.notifications[0] ?? null), [
      `resolved:a=${incidentKey('node', CLUSTER, 'a', T0 - HOUR)}`,
    ]);
  });

  test('the state store reads records with and without keys, and refuses a key that is no string', () => {
    // Prepare
    const incident = { verdict: 'expired', openedAt: T0, lastNotifiedAt: T0 };
    const flapping = { since: T0, lastTransitionAt: T0, node: { verdict: 'expired' } };
    const stored = (key?: unknown) => ({
      incidents: { a: { ...incident, ...(key === undefined ? {} : { key }) } },
      flaps: {
        a: { transitions: [T0], flapping: { ...flapping, ...(key === undefined ? {} : { key }) } },
      },
      watchdog: null,
      storm: null,
    });
    // Act, Assess
    assert.equal(readAlertState(stored()).incidents.a?.key, undefined);
    assert.equal(
      readAlertState(stored('lw-node-0123456789abcdef01234567')).flaps.a?.flapping?.key,
      'lw-node-0123456789abcdef01234567',
    );
    assert.throws(() => readAlertState(stored(42)), {
      message: 'alerts.incidents["a"].key is not a string',
    });
  });
});
