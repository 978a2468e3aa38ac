/**
 * The fleet's dispatcher and its dead-man's switch, through the real handler (three simulated
 * clusters over HTTPS, the local SNS endpoint, the fake clock), with its state on dynalite and
 * again on moto, which validates requests as DynamoDB does: one `dispatch` run a
 * minute sends each cluster's check on the queue, each check runs in an invocation of its own and
 * records its success in the ledger; a cluster whose checks stop while the others run is counted
 * in `ClustersOverdue` and named by one NOTICE within minutes, and named again when it is checked
 * again; none of it while every cluster runs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEAD_MAN_PERIODS } from '../lambda/settings/defaults.js';
import { MOTO_SKIP } from '../testkit/dynalite.js';
import { MINUTE } from '../testkit/schedule-runs.js';
import { type Harness, startWatchdogHarness, summary } from '../testkit/watchdog-harness.js';

const DISPATCH = { dispatch: { periodSeconds: 60 } };

/** The dispatcher's schedule for `count` minutes, each run `offset` ms into its minute. */
async function dispatchFor(h: Harness, count: number, offset = 17_000): Promise<void> {
  const from = h.clock.now();
  for (let k = 0; k < count; k++) {
    await h.advanceTo(from + k * MINUTE + offset);
    await h.run(DISPATCH);
  }
  await h.advanceTo(from + count * MINUTE);
}

const overdueValues = (h: Harness) =>
  h.metrics.service.filter((m) => m.name === 'ClustersOverdue').map((m) => m.value);

const fleetNotices = (h: Harness) =>
  h.messages('NOTICE').filter((m) => (m.subject ?? '').startsWith('[(fleet)]'));

for (const dynamoDb of ['dynalite', 'moto'] as const) {
  describe(`the fleet dispatcher (state on ${dynamoDb})`, {
    skip: dynamoDb === 'moto' ? MOTO_SKIP : false,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startWatchdogHarness({
        clusters: { alpha: { nodes: 3 }, bravo: { nodes: 3 }, charlie: { nodes: 3 } },
        settings: { dispatch: true },
        withLooks: true,
        withDispatch: true,
        dynamoDb,
      });
    });
    after(() => h.close());

    it('checks every cluster each minute in an invocation of its own; none is overdue while all run', async () => {
      await dispatchFor(h, 5);
      const looks = h.looks as NonNullable<Harness['looks']>;
      for (const name of ['alpha', 'bravo', 'charlie']) {
        const sent = looks.checks.filter((c) => c.cluster === name);
        assert.equal(sent.length, 5, `${name}: one check a minute`);
        // The same offset every minute: the gaps between its checks are the schedule's.
        assert.equal(new Set(sent.map((c) => (c.visible - c.wanted + c.at) % MINUTE)).size, 1);
        assert.ok(
          looks.delivered.filter((l) => l.cluster === name).length >= 8,
          `${name}: its routine looks follow each dispatched check`,
        );
      }
      assert.deepEqual(overdueValues(h), [0, 0, 0, 0, 0]);
      assert.deepEqual(fleetNotices(h), [], summary(h.messages()));
      // The fleet's switch replaces the $0.30 metric of each cluster.
      assert.equal(h.metrics.records.filter((m) => m.name === 'CheckSucceeded').length, 0);
    });

    it('names a cluster whose checks stop, once, within minutes, and again when it is back', async () => {
      const stopped = h.clock.now();
      h.target('bravo').server.setFault({ kind: 'status', status: 503 });
      await dispatchFor(h, 7);
      const started = fleetNotices(h);
      assert.equal(started.length, 1, summary(h.messages()));
      const notice = started[0];
      assert.ok(notice);
      assert.match(notice.subject ?? '', /NOTICE: checks stopped for 1 cluster \(bravo\)$/);
      assert.match(notice.message, /bravo/);
      assert.doesNotMatch(notice.message, /alpha|charlie/);
      const after = (notice.receivedAt - stopped) / MINUTE;
      assert.ok(
        after > DEAD_MAN_PERIODS - 1 && after <= DEAD_MAN_PERIODS + 2,
        `named ${after.toFixed(1)} minutes after its checks stopped`,
      );
      assert.deepEqual(overdueValues(h).slice(-7), [0, 0, 0, 1, 1, 1, 1]);
      assert.ok(h.messages('WATCHDOG').some((m) => m.message.includes('bravo')));

      h.target('bravo').server.setFault(null);
      await dispatchFor(h, 2);
      const notices = fleetNotices(h);
      assert.equal(notices.length, 2, summary(h.messages()));
      assert.match(
        notices[1]?.subject ?? '',
        /NOTICE: checks succeed again for 1 cluster \(bravo\)$/,
      );
      assert.equal(overdueValues(h).at(-1), 0);
    });
  });
}
