/**
 * What the state costs DynamoDB per check, through the handler (the sim over HTTPS, dynalite, which
 * reports ConsumedCapacity by DynamoDB's rules): a steady check of 5,000 healthy nodes writes the
 * head item alone; and a Lambda container that starts cold, reading an older observation snapshot,
 * pages a node that went silent before it no later than the container that stayed warm
 * (docs/STATE.md, "Observations: written when they matter").
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countUnits } from '../testkit/capacity-units.js';
import { type Container, SCHEDULE_MS, startWatchdogHarness } from '../testkit/watchdog-harness.js';

describe('lambda e2e: DynamoDB writes per check', () => {
  it('a steady check of 5,000 healthy nodes writes at most 4 units (the head item)', async () => {
    const h = await startWatchdogHarness({
      clusters: { prod: { nodes: 5_000 } },
      requestTimeoutSeconds: 60,
    });
    try {
      const lambda = h.container();
      const units = countUnits(lambda.dynamodb);
      const check = async (): Promise<{ read: number; write: number }> => {
        const before = { ...units };
        h.clock.advance(SCHEDULE_MS);
        const report = await lambda.invoke();
        assert.equal(report.clusters[0]?.lastStatus, 'checked', JSON.stringify(report.clusters[0]));
        return { read: units.read - before.read, write: units.write - before.write };
      };
      // The first checks see every lease for the first time, then change from first-sight
      // estimates: those write the observations.
      await check();
      await check();
      const steady = [await check(), await check(), await check(), await check()];

      assert.equal(h.sns.messages.length, 0, 'a healthy cluster sends nothing');
      for (const cost of steady) {
        assert.ok(cost.write <= 4, `steady checks cost ${JSON.stringify(steady)} units`);
        assert.ok(cost.read <= 1, `steady checks cost ${JSON.stringify(steady)} units`);
      }
    } finally {
      await h.close();
    }
  });

  it('a container started cold after the node went silent pages it when a warm one would', async () => {
    // Silent for 5 minutes: the FIRING comes several checks after the node stopped, past the
    // container change.
    const firingAfter = async (restart: boolean): Promise<number> => {
      const h = await startWatchdogHarness({
        clusters: { prod: { nodes: 100 } },
        settings: { gracePeriodSeconds: 300 },
      });
      try {
        let lambda: Container = h.container();
        const check = async (): Promise<void> => {
          h.clock.advance(SCHEDULE_MS);
          await lambda.invoke();
        };
        for (let i = 0; i < 5; i++) await check();
        const target = h.target('prod');
        const stoppedAt = h.clock.now() + 23_000;
        h.clock.at(stoppedAt, () => target.sim.stopKubelet(target.nodes[3] as string));
        // The check after it stopped sees its last renewal; the next one sees it unchanged.
        await check();
        await check();
        assert.equal(h.messages('FIRING').length, 0, 'not yet');
        // A new Lambda container: nothing in memory, the state as DynamoDB holds it.
        if (restart) lambda = h.container();
        for (let i = 0; i < 15 && h.messages('FIRING').length === 0; i++) await check();
        const [firing] = h.messages('FIRING');
        assert.ok(firing, 'a FIRING');
        return h.clock.now() - stoppedAt;
      } finally {
        await h.close();
      }
    };

    const warm = await firingAfter(false);
    const cold = await firingAfter(true);

    assert.ok(warm > 300_000, `FIRING ${warm} ms after the node stopped`);
    assert.equal(cold, warm, 'the cold container pages at the same check');
  });
});
