/**
 * A single failed read is not a page (readFailuresBeforePage, default 2), through the real
 * handler: every failure counts in ClusterReadFailures from the first, the WATCHDOG pages on the
 * second failed check in a row, and a change in what fails while it is open is not a second page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MINUTE, runSchedule } from '../testkit/schedule-runs.js';
import {
  type Harness,
  kindOf,
  type SimTarget,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

describe('lambda e2e: a failed read pages once confirmed', () => {
  let h: Harness;
  let target: SimTarget;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 3 } }, requestTimeoutSeconds: 1 });
    target = h.target('prod');
    await h.run();
  });
  after(() => h.close());

  it('one failed read between good checks: counted, not paged, nothing resolved', async () => {
    const before = h.sns.messages.length;
    const mark = h.metrics.mark();
    target.server.setFault({ kind: 'status', status: 503 });
    const failed = await h.tick();
    target.server.setFault(null);
    await h.tick();
    assert.equal(failed.clusters[0]?.lastStatus, 'unreadable');
    assert.equal(h.metrics.countSince(mark, 'ClusterReadFailures', 'prod'), 1);
    assert.deepEqual(h.sns.messages.slice(before).map(kindOf), [], summary(h.sns.messages));
  });

  it('the second failed check in a row pages; a new failure class is not a second page', async () => {
    const before = h.sns.messages.length;
    const mark = h.metrics.mark();
    target.server.setFault({ kind: 'status', status: 503 });
    await h.tick();
    assert.deepEqual(h.sns.messages.slice(before).map(kindOf), []);
    await h.tick();
    target.server.setFault({ kind: 'status', status: 403 });
    await h.tick();
    await h.tick();
    const failing = h.sns.messages.slice(before);
    assert.deepEqual(failing.map(kindOf), ['WATCHDOG'], summary(failing));
    assert.equal(failing[0]?.subject, '[prod] WATCHDOG: cannot read cluster (server)');
    assert.equal(h.metrics.countSince(mark, 'ClusterReadFailures', 'prod'), 4);

    target.server.setFault(null);
    await h.tick();
    const all = h.sns.messages.slice(before);
    assert.deepEqual(all.map(kindOf), ['WATCHDOG', 'WATCHDOG'], summary(all));
    assert.match(all[1]?.subject ?? '', /^\[prod\] WATCHDOG RESOLVED/);
    assert.match(all[1]?.message ?? '', /forbidden/, 'the resolution names the latest failure');
  });
});

describe('lambda e2e: a failed read pages only once the cluster was unreadable past the grace', () => {
  it('with the default looks (a read every ~30 s), a 45 s blip pages nothing; a longer outage pages', async () => {
    const h = await startWatchdogHarness({
      clusters: { prod: { nodes: 3 } },
      requestTimeoutSeconds: 1,
      withLooks: true,
    });
    try {
      const t = h.target('prod');
      const start = h.clock.now();
      const mark = h.metrics.mark();
      // Runs on the minute, looks 32, 64 and 96 s after each, the last two superseded by the next
      // run: reads at +0, +32, +60, +92 s... The blip covers the reads at +32 and +60 s.
      h.clock.at(start + 30_000, () => t.server.setFault({ kind: 'close' }));
      h.clock.at(start + 75_000, () => t.server.setFault(null));
      await runSchedule(h, start, start + 3 * MINUTE, () => 0);
      assert.equal(h.metrics.countSince(mark, 'ClusterReadFailures', 'prod'), 2);
      assert.deepEqual(h.messages().map(kindOf), [], summary(h.messages()));

      // Unreadable for longer than the grace period (50 s): the fourth failed check, 60 s after
      // the first, pages.
      const outage = h.clock.now();
      h.clock.at(outage + 1_000, () => t.server.setFault({ kind: 'close' }));
      await runSchedule(h, outage, outage + 2 * MINUTE, () => 0);
      const failing = h.messages();
      assert.deepEqual(failing.map(kindOf), ['WATCHDOG'], summary(failing));
      assert.match(failing[0]?.message ?? '', /unreachable/);
      assert.ok(
        (failing[0]?.receivedAt ?? 0) - (outage + 20_000) > 50_000,
        'paged after the grace period, on the watchdog clock',
      );
    } finally {
      await h.close();
    }
  });
});

describe('lambda e2e: Secrets Manager throttled', () => {
  let h: Harness;
  let target: SimTarget;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 3 } }, requestTimeoutSeconds: 1 });
    target = h.target('prod');
    await h.run();
  });
  after(() => h.close());

  it('is the failure unavailable (not config) once the cached token is gone', async () => {
    const before = h.sns.messages.length;
    h.secrets.unavailable(target.tokenSecretId, 'throttle');
    // The cached token rides out the throttling; a 401 drops it, then the refetch is throttled.
    await h.tick();
    target.server.setFault({ kind: 'status', status: 401 });
    await h.tick();
    target.server.setFault(null);
    await h.tick();
    const sent = h.sns.messages.slice(before);
    assert.deepEqual(sent.map(kindOf), ['WATCHDOG'], summary(sent));
    assert.equal(sent[0]?.subject, '[prod] WATCHDOG: cannot read cluster (unavailable)');
    assert.match(sent[0]?.message ?? '', /AWS throttled or failed/);

    h.secrets.unavailable(target.tokenSecretId, null);
    await h.tick();
    assert.match(h.sns.messages.at(-1)?.subject ?? '', /^\[prod\] WATCHDOG RESOLVED/);
  });
});
