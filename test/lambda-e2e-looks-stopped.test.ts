/**
 * When the watchdog's own looks cannot be delivered — the queue refuses SendMessage, or the event
 * source mapping is disabled — the schedule alone still pages a death, and the refusal is logged
 * (the stack's `LooksStoppedAlarm` reads the look queue's own NumberOfMessagesDeleted, which then
 * stops: test/infra-stack.test.ts): through the real handler, the sim over HTTPS and dynalite, on
 * the fake clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MINUTE, renewTimeOf, runSchedule } from '../testkit/schedule-runs.js';
import { type Harness, startWatchdogHarness, summary } from '../testkit/watchdog-harness.js';

/** Kills `victim`, runs the schedule for four minutes; the detection time, in seconds. */
async function deathPagedAfter(h: Harness, victim: string): Promise<number> {
  const from = h.clock.now();
  h.clock.advance(500);
  h.target().sim.stopKubelet(victim);
  const lastRenewal = renewTimeOf(h, 'prod', victim);
  await runSchedule(h, from, from + 4 * MINUTE, (k) => (k * 23_000) % MINUTE);
  const firing = h.messages('FIRING').find((m) => m.message.includes(victim));
  assert.ok(firing, summary(h.messages()));
  h.target().sim.startKubelet(victim);
  await runSchedule(h, h.clock.now(), h.clock.now() + 2 * MINUTE, () => 0);
  return (firing.receivedAt - lastRenewal) / 1000;
}

describe('when the looks stop', () => {
  it('the schedule alone pages while the queue refuses the looks or the mapping is off', async () => {
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, withLooks: true });
    try {
      const looks = h.looks as NonNullable<Harness['looks']>;
      const delivered = () => looks.delivered.length;
      const start = h.clock.now();
      await runSchedule(h, start, start + 3 * MINUTE, () => 0);
      assert.ok(delivered() >= 4, `${delivered()} looks delivered in 3 minutes`);

      looks.refusing = true;
      // The looks already in the queue still arrive; no other does.
      let before = delivered() + looks.pending.length;
      const refused = await deathPagedAfter(h, h.target().nodes[1] as string);
      assert.equal(delivered(), before, 'no look asked for while the queue refuses arrived');
      assert.ok(refused >= 50 && refused <= 125, `paged ${refused} s after the last renewal`);
      assert.ok(
        h.logger.entries.some((e) => e.message.startsWith('could not ask for another look')),
        'the refusal is logged',
      );

      looks.refusing = false;
      looks.mappingEnabled = false;
      before = delivered();
      const disabled = await deathPagedAfter(h, h.target().nodes[2] as string);
      assert.equal(delivered(), before, 'no look delivered while the mapping is disabled');
      assert.ok(disabled >= 50 && disabled <= 125, `paged ${disabled} s after the last renewal`);
    } finally {
      await h.close();
    }
  });
});
