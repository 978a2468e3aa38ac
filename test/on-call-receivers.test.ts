/**
 * The paging receivers as one table (lambda/adapters/on-call/receivers.ts): a receiver added by
 * its row alone, through the real handler, gets its lane — a trigger when a node dies and the
 * resolve under the same key when it recovers, its refusals retried on its own lane and counted
 * under its own `receiver` dimension, while SNS and the other receivers go on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RECEIVERS, type Receiver } from '../lambda/adapters/on-call/receivers.js';
import type { OnCallEvent } from '../lambda/core/on-call-events.js';
import { OnCallSendError } from '../lambda/ports/index.js';
import { tickUntil } from '../testkit/on-call-fixture.js';
import { type Harness, startWatchdogHarness } from '../testkit/watchdog-harness.js';

describe('on-call receivers: one row adds one', () => {
  const got: OnCallEvent[] = [];
  let refusing = false;
  const fake: Receiver = {
    tool: 'fake',
    label: 'Fake',
    settingsOf: () => ({}),
    secrets: () => ({}),
    send: () => async (event) => {
      if (refusing) throw new OnCallSendError('fake answered 503', true, 503);
      got.push(event);
      return undefined;
    },
  };
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 4 } },
      pagerDuty: true,
      receivers: [...RECEIVERS, fake],
    });
  });
  after(() => h.close());

  it('its own lane: trigger, refusals retried and counted as its own, resolve under the key', async () => {
    const target = h.target('prod');
    const victim = target.nodes[0] as string;
    await h.run();
    target.sim.stopKubelet(victim);
    await tickUntil(h, 'FIRING', 1);
    assert.deepEqual(
      got.map((e) => [e.action, e.source]),
      [['trigger', victim]],
    );
    const key = got[0]?.key;
    assert.equal(h.pagerDuty?.accepted[0]?.dedup_key, key, 'PagerDuty has the same incident');

    refusing = true;
    target.sim.startKubelet(victim);
    await tickUntil(h, 'RESOLVED', 1);
    await h.tick();
    const failed = h.metrics.of('OnCallEventsFailed').map((m) => m.extra?.receiver);
    assert.ok(failed.length >= 1 && failed.every((r) => r === 'fake'), String(failed));
    assert.deepEqual(
      h.pagerDuty?.accepted.map((e) => e.event_action),
      ['trigger', 'resolve'],
      'PagerDuty resolved while the fake refused',
    );
    refusing = false;
    await h.tick();
    assert.deepEqual(
      got.map((e) => [e.action, e.key]),
      [
        ['trigger', key],
        ['resolve', key],
      ],
    );
  });
});
