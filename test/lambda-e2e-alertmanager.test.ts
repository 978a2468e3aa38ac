/**
 * Alertmanager through the real handler (testkit/watchdog-harness.ts) against a real Alertmanager
 * (testkit/alertmanager.ts, Debian's 0.25, basic auth on): a dead node is an active alert with
 * its labels; each further check posts it again and moves its `endsAt` ahead, so Alertmanager
 * never resolves a live incident on its own; the recovery ends it, and Alertmanager's own webhook
 * receiver is told it fired, then that it was resolved. An Alertmanager that hangs (SIGSTOP)
 * never holds PagerDuty's triggers back. A wrong password (first, before
 * the right one is cached) is a refusal retried until the secret is fixed. Skipped, saying so, where the binary is not installed.
 *
 * Alertmanager judges `endsAt` on the real clock, the watchdog stamps it on its own: the fake
 * clock starts an hour before the real time, so that the test's minutes of checks stay behind it
 * (a resolve's `endsAt` is past) and a firing alert's `endsAt` (two hours ahead) is not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ALERTMANAGER_MISSING,
  ALERTMANAGER_PASSWORD,
  ALERTMANAGER_USER,
  type Alertmanager,
  startAlertmanager,
} from '../testkit/alertmanager.js';
import { tickUntil } from '../testkit/on-call-fixture.js';
import { waitUntil } from '../testkit/wait-until.js';
import { type Harness, SCHEDULE_MS, startWatchdogHarness } from '../testkit/watchdog-harness.js';

const SECRET_ID = 'lease-watchdog/alertmanager-auth';

describe('lambda e2e: Alertmanager', { skip: ALERTMANAGER_MISSING }, () => {
  let am: Alertmanager;
  let h: Harness;
  before(async () => {
    am = await startAlertmanager();
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 6 } },
      pagerDuty: true,
      clockStart: Math.floor(Date.now() / 1000) * 1000 - 60 * 60_000,
      settings: {
        alertmanager: {
          url: 'https://alertmanager.example.com:9093',
          authSecret: SECRET_ID,
          endsAfterMinutes: 120,
        },
      },
      onCallBaseUrls: { alertmanager: am.url },
    });
    h.secrets.put(SECRET_ID, `${ALERTMANAGER_USER}:${ALERTMANAGER_PASSWORD}`);
  });
  after(async () => {
    await h?.close();
    await am?.close();
  });

  const alertOf = async (node: string) => (await am.alerts()).filter((a) => a.labels.node === node);

  it('a wrong password: refused (401), retried, delivered once the secret is fixed', async () => {
    const target = h.target('prod');
    const victim = target.nodes[1] as string;
    h.secrets.put(SECRET_ID, `${ALERTMANAGER_USER}:wrong`);
    await h.run();
    target.sim.stopKubelet(victim);
    await tickUntil(h, 'FIRING', 1);
    assert.deepEqual(await alertOf(victim), []);
    const failed = h.metrics.of('OnCallEventsFailed').map((m) => m.extra?.receiver);
    assert.ok(failed.length >= 1 && failed.every((r) => r === 'alertmanager'), String(failed));
    assert.match(JSON.stringify(h.logger.entries), /Alertmanager answered 401/);
    h.secrets.put(SECRET_ID, `${ALERTMANAGER_USER}:${ALERTMANAGER_PASSWORD}`);
    await h.tick();
    assert.equal((await alertOf(victim))[0]?.status.state, 'active');
    target.sim.startKubelet(victim);
    await tickUntil(h, 'RESOLVED', 1);
    assert.deepEqual(await alertOf(victim), []);
  });

  it('a dead node is an active alert, kept alive at each check, ended by the recovery', async () => {
    const target = h.target('prod');
    const victim = target.nodes[0] as string;
    const failedBefore = h.metrics.of('OnCallEventsFailed').length;
    const [firing, resolved] = [h.messages('FIRING').length, h.messages('RESOLVED').length];
    target.sim.stopKubelet(victim);
    await tickUntil(h, 'FIRING', firing + 1);
    const [fired, ...more] = await alertOf(victim);
    assert.deepEqual(more, []);
    assert.equal(fired?.status.state, 'active');
    const { zone, nodegroup, ...labels } = fired?.labels ?? {};
    assert.deepEqual(labels, {
      alertname: 'LeaseWatchdogNodeDown',
      cluster: 'prod',
      node: victim,
      severity: 'critical',
    });
    assert.match(zone ?? '', /^eu-west-1[abc]$/);
    assert.ok(nodegroup, 'the node group label');
    assert.match(
      fired?.annotations.summary ?? '',
      new RegExp(`^\\[prod\\] node ${victim} expired`),
    );
    assert.match(fired?.annotations.incident_key ?? '', /^lw-node-[0-9a-f]{24}$/);
    assert.equal(Date.parse(fired?.endsAt ?? ''), h.clock.now() + 120 * 60_000);

    await h.tick();
    await h.tick();
    const [kept] = await alertOf(victim);
    assert.equal(kept?.fingerprint, fired?.fingerprint, 'the same alert');
    assert.equal(kept?.status.state, 'active');
    assert.equal(kept?.startsAt, fired?.startsAt);
    assert.equal(Date.parse(kept?.endsAt ?? ''), Date.parse(fired?.endsAt ?? '') + 2 * SCHEDULE_MS);

    target.sim.startKubelet(victim);
    await tickUntil(h, 'RESOLVED', resolved + 1);
    assert.deepEqual(await alertOf(victim), [], 'ended: no longer among the alerts that have not');
    // Its routes took it: the webhook receiver was told it fired, then that it was resolved.
    const told = () => am.notified.filter((a) => a.labels.node === victim).map((a) => a.status);
    await waitUntil(() => told().includes('resolved'), 'the resolved notification');
    assert.deepEqual([...new Set(told())], ['firing', 'resolved']);
    assert.equal(h.metrics.of('OnCallEventsFailed').length, failedBefore);
  });

  it('Alertmanager hanging never holds PagerDuty back: its posts go last, and stop at its first failure', async () => {
    const target = h.target('prod');
    const [a, b] = [target.nodes[2] as string, target.nodes[3] as string];
    const paged = () =>
      (h.pagerDuty?.accepted ?? [])
        .filter((e) => e.event_action === 'trigger')
        .map((e) => e.payload?.source);
    const firing = h.messages('FIRING').length;
    am.pause();
    try {
      target.sim.stopKubelet(a);
      await tickUntil(h, 'FIRING', firing + 1);
      // Now Alertmanager's lane holds a's trigger, each attempt of it waiting out its timeout.
      target.sim.stopKubelet(b);
      await tickUntil(h, 'FIRING', firing + 2);
      assert.deepEqual(
        paged().slice(-2),
        [a, b],
        "PagerDuty got each trigger at its node's FIRING",
      );
    } finally {
      am.resume();
    }
    await h.tick();
    assert.equal((await alertOf(b))[0]?.status.state, 'active', 'posted once it answers again');
  });
});
