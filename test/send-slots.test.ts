/**
 * A paging tool's rate limit for the whole deployment (takeSlot over DynamoDbSendSlots): two
 * containers, each with its own client, sending as fast as they are let under one PagerDuty
 * routing key, never put more than 120 events in any 60 s, and keep sending; a second key has
 * its own count. On dynalite and on moto_server (DynamoDB's validation of the UpdateItem).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { takeSlot } from '../lambda/adapters/on-call/on-call-request.js';
import { PAGERDUTY_EVENTS_PER_MINUTE } from '../lambda/adapters/on-call/pagerduty-sender.js';
import { DynamoDbSendSlots } from '../lambda/adapters/state/dynamodb/dynamodb-send-slots.js';
import { OnCallSendError } from '../lambda/ports/index.js';
import {
  type LocalDynamoDb,
  localClient,
  MOTO_SKIP,
  startLocalDynamoDb,
} from '../testkit/dynalite.js';

const T = Date.UTC(2026, 11, 8, 1, 0, 3);

for (const kind of ['dynalite', 'moto'] as const) {
  describe(`send slots on ${kind}`, { skip: kind === 'moto' ? MOTO_SKIP : false }, () => {
    let db: LocalDynamoDb;
    before(async () => {
      db = await startLocalDynamoDb(kind);
      await db.createStateTable('slots');
    });
    after(() => db.stop());

    it('two containers under one key: at most 120 events in any 60 s, and never stuck', async () => {
      let now = T;
      const clock = () => now;
      const containers = [0, 1].map(() => ({
        slots: new DynamoDbSendSlots(localClient(db.endpoint), 'slots', clock),
        clock,
        key: 'pagerduty lease-watchdog/pagerduty',
        perMinute: PAGERDUTY_EVENTS_PER_MINUTE,
      }));
      const sent: number[] = [];
      let refused = 0;
      const signal = AbortSignal.timeout(60_000);
      // Two minutes of both containers trying every second.
      for (; now < T + 120_000; now += 1000) {
        for (const slots of containers) {
          const taken = await takeSlot(slots, 'PagerDuty', signal).then(
            () => true,
            (error: unknown) => {
              assert.ok(error instanceof OnCallSendError && error.status === 429, String(error));
              assert.ok((error.retryAfterMs ?? 0) > 0 && (error.retryAfterMs ?? 0) <= 10_000);
              return false;
            },
          );
          if (taken) sent.push(now);
          else refused++;
        }
      }
      const busiest = Math.max(
        ...sent.map((t) => sent.filter((u) => u >= t && u < t + 60_000).length),
      );
      assert.ok(busiest <= PAGERDUTY_EVENTS_PER_MINUTE, `${busiest} events in one minute`);
      assert.ok(sent.length >= 190, `${sent.length} sent in 2 minutes`);
      assert.ok(refused > 0);
      // This window of the key full, another key still has its own.
      const [first] = containers as [(typeof containers)[0]];
      while (
        await takeSlot(first, 'PagerDuty', signal).then(
          () => true,
          () => false,
        )
      );
      await takeSlot({ ...first, key: 'pagerduty another' }, 'PagerDuty', signal);
    });
  });
}
