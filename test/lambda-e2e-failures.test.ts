/**
 * The scheduled function end to end when things fail around it (see
 * testkit/watchdog-harness.ts): the cluster API refuses or hangs (a WATCHDOG notification,
 * once, then its resolution), SNS fails or throttles (the alert arrives once, later), and two
 * invocations run at the same time (one notification).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimFault } from '../sim/server.js';
import { waitUntil } from '../testkit/wait-until.js';
import {
  attributesOf,
  type Harness,
  kindOf,
  type SimTarget,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

describe('lambda e2e: the cluster API fails', () => {
  let h: Harness;
  let target: SimTarget;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, requestTimeoutSeconds: 1 });
    target = h.target('prod');
    await h.run();
  });
  after(() => h.close());

  const faults: { name: string; fault: SimFault; failure: string; body: RegExp }[] = [
    {
      name: '401',
      fault: { kind: 'status', status: 401 },
      failure: 'unauthorized',
      body: /401|unauthori[sz]ed|credentials/i,
    },
    {
      name: '403',
      fault: { kind: 'status', status: 403 },
      failure: 'forbidden',
      body: /403|forbidden/i,
    },
    {
      name: '503',
      fault: { kind: 'status', status: 503 },
      failure: 'server',
      body: /503/,
    },
    {
      name: 'a hang',
      fault: { kind: 'hang' },
      failure: 'timeout',
      body: /no answer .* within 1s/,
    },
    {
      name: 'a dropped connection',
      fault: { kind: 'close' },
      failure: 'unreachable',
      body: /listing (leases|nodes)/,
    },
  ];

  for (const { name, fault, failure, body } of faults) {
    it(`answers ${name}: one WATCHDOG, no duplicates while failing, then WATCHDOG RESOLVED`, async () => {
      const before = h.sns.messages.length;
      const mark = h.metrics.mark();
      target.server.setFault(fault);

      // Failing, three runs in a row: the runs succeed (the watchdog is fine), one WATCHDOG.
      for (let i = 0; i < 3; i++) {
        const report = await h.tick();
        assert.equal(report.clusters[0]?.lastStatus, 'unreadable');
      }
      const failing = h.sns.messages.slice(before);
      assert.equal(failing.length, 1, `one WATCHDOG: ${summary(failing)}`);
      const [watchdog] = failing;
      assert.ok(watchdog);
      assert.deepEqual(attributesOf(watchdog), {
        cluster: 'prod',
        kind: 'WATCHDOG',
        severity: 'critical',
      });
      assert.equal(watchdog.subject, `[prod] WATCHDOG: cannot read cluster (${failure})`);
      assert.match(watchdog.message, body, 'the body says what failed');
      assert.ok(watchdog.message.includes(failure), `the body names the failure ${failure}`);
      assert.equal(h.metrics.countSince(mark, 'ClusterReadFailures', 'prod'), 3);
      assert.equal(h.metrics.countSince(mark, 'CheckSucceeded', 'prod'), 0);

      // Healed: one WATCHDOG RESOLVED, and the check counts as succeeded again.
      target.server.setFault(null);
      const healedMark = h.metrics.mark();
      const report = await h.tick();
      assert.equal(report.clusters[0]?.lastStatus, 'checked');
      await h.tick();
      const all = h.sns.messages.slice(before);
      assert.equal(all.length, 2, summary(all));
      const resolved = all[1];
      assert.ok(resolved);
      assert.deepEqual(attributesOf(resolved), {
        cluster: 'prod',
        kind: 'WATCHDOG',
        severity: 'info',
      });
      assert.match(resolved.subject ?? '', /^\[prod\] WATCHDOG RESOLVED: cluster readable again/);
      assert.equal(h.metrics.countSince(healedMark, 'CheckSucceeded', 'prod'), 2);
      assert.equal(h.metrics.countSince(healedMark, 'ClusterReadFailures', 'prod'), 0);
    });
  }

  it('a rotated token: 401 until the secret is fixed, then fetched afresh and RESOLVED', async () => {
    const before = h.sns.messages.length;
    h.secrets.put(target.tokenSecretId, 'a-revoked-token');
    // The token is cached for 5 minutes: a 401 must make the next check fetch it again.
    target.server.setFault({ kind: 'status', status: 401 });
    await h.tick();
    target.server.setFault(null);
    const calls = h.secrets.callsFor(target.tokenSecretId);
    await h.tick(); // fetched afresh: the revoked token, 401 from the API server itself
    await h.tick();
    assert.equal(h.secrets.callsFor(target.tokenSecretId), calls + 2, 'refetched after each 401');
    assert.deepEqual(h.sns.messages.slice(before).map(kindOf), ['WATCHDOG']);

    h.secrets.put(target.tokenSecretId, target.server.token);
    await h.tick();
    const all = h.sns.messages.slice(before);
    assert.equal(all.length, 2, summary(all));
    assert.match(all[1]?.subject ?? '', /WATCHDOG RESOLVED/);
  });

  it('a node that dies while the API is unreadable still fires once it is readable', async () => {
    const before = h.sns.messages.length;
    const victim = target.nodes[2] as string;
    await h.tick();
    target.sim.stopKubelet(victim);
    target.server.setFault({ kind: 'status', status: 503 });
    await h.tick();
    await h.tick();
    target.server.setFault(null);
    await h.tick();
    // The first look after failed reads confirms no silence (an API stall stops every kubelet):
    // it says the cluster is readable again; the next look (a re-check 12 s later, in the cloud)
    // confirms the node down.
    await h.tick();
    const all = h.sns.messages.slice(before);
    assert.equal(all.length, 3, summary(all));
    assert.deepEqual(all.map(kindOf), ['WATCHDOG', 'WATCHDOG', 'FIRING'], summary(all));
    assert.match(all[1]?.subject ?? '', /WATCHDOG RESOLVED: cluster readable again/);
    assert.ok(all[2]?.message.includes(victim));
  });
});

describe('lambda e2e: SNS fails and throttles', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, snsMaxAttempts: 1 });
  });
  after(() => h.close());

  it('keeps the FIRING through a 500 and a throttle, delivers it once on a later check', async () => {
    const t = h.target('prod');
    const victim = t.nodes[0] as string;
    await h.run();
    t.sim.stopKubelet(victim);

    const mark = h.metrics.mark();
    h.sns.failNext(1, 'internal');
    let report = await h.tick();
    assert.equal(report.clusters[0]?.pending, 1, 'the FIRING waits in the outbox');
    assert.equal(h.sns.messages.length, 0);
    assert.equal(h.metrics.countSince(mark, 'CheckSucceeded'), 0, 'not a success: not sent');
    assert.equal(h.metrics.countSince(mark, 'NotificationsFailed'), 1);

    const mark2 = h.metrics.mark();
    h.sns.failNext(1, 'throttled');
    report = await h.tick();
    assert.equal(report.clusters[0]?.pending, 1);
    assert.equal(h.sns.messages.length, 0);
    assert.equal(h.metrics.countSince(mark2, 'CheckSucceeded'), 0);
    assert.deepEqual(
      h.sns.rejections.map((r) => r.code),
      ['InternalError', 'Throttled'],
    );

    const mark3 = h.metrics.mark();
    report = await h.tick();
    assert.equal(report.clusters[0]?.pending, 0);
    assert.equal(report.clusters[0]?.published, 1);
    assert.equal(h.metrics.countSince(mark3, 'CheckSucceeded'), 1, 'a success once drained');
    for (let i = 0; i < 3; i++) await h.tick();
    assert.deepEqual(h.sns.messages.map(kindOf), ['FIRING'], summary(h.messages()));
    assert.ok(h.sns.messages[0]?.message.includes(victim));
    assert.match(h.sns.messages[0]?.subject ?? '', /^\[prod\] FIRING: 1 node down/);

    // Recovery while SNS fails again: the RESOLVED waits too, and arrives once.
    t.sim.startKubelet(victim);
    h.sns.failNext(2, 'throttling');
    await h.tick();
    await h.tick();
    await h.tick();
    assert.deepEqual(h.sns.messages.map(kindOf), ['FIRING', 'RESOLVED'], summary(h.messages()));
  });

  it('a FIRING and a RESOLVED both held back leave the outbox oldest first', async () => {
    const t = h.target('prod');
    const victim = t.nodes[1] as string;
    const before = h.sns.messages.length;
    t.sim.stopKubelet(victim);
    h.sns.failNext(10, 'internal');
    for (let i = 0; i < 3; i++) await h.tick();
    t.sim.startKubelet(victim);
    await h.tick();
    assert.equal(h.sns.messages.length, before, 'nothing got through');
    h.sns.reset();
    const report = await h.tick();
    assert.equal(report.clusters[0]?.published, 2);
    assert.deepEqual(h.sns.messages.map(kindOf), ['FIRING', 'RESOLVED']);
  });
});

describe('lambda e2e: SNS fails on the first attempts, the SDK retries', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, snsMaxAttempts: 3 });
  });
  after(() => h.close());

  it('a 500 then a throttle inside one publish: the FIRING arrives once', async () => {
    const t = h.target('prod');
    await h.run();
    t.sim.stopKubelet(t.nodes[0] as string);
    h.sns.failNext(1, 'internal');
    h.sns.failNext(1, 'throttled');
    const report = await h.tick();
    assert.equal(report.clusters[0]?.published, 1);
    assert.equal(h.sns.requests, 3, 'two failed attempts, then the accepted one');
    await h.tick();
    assert.deepEqual(h.sns.messages.map(kindOf), ['FIRING'], summary(h.messages()));
  });
});

describe('lambda e2e: two invocations at the same time', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } } });
  });
  after(() => h.close());

  it('send each notification exactly once', async () => {
    const t = h.target('prod');
    const a = h.container();
    const b = h.container();
    const both = () => Promise.all([a.invoke(), b.invoke()]);
    await both();
    const statuses: string[] = [];
    // Three deaths and recoveries, each check raced by two containers.
    for (const victim of t.nodes.slice(0, 3)) {
      t.sim.stopKubelet(victim);
      for (let i = 0; i < 3; i++) {
        h.clock.advance(60_000);
        const reports = await both();
        statuses.push(...reports.map((r) => r.clusters[0]?.lastStatus ?? '?'));
      }
      t.sim.startKubelet(victim);
      h.clock.advance(60_000);
      await both();
    }
    assert.deepEqual(
      h.sns.messages.map(kindOf),
      ['FIRING', 'RESOLVED', 'FIRING', 'RESOLVED', 'FIRING', 'RESOLVED'],
      summary(h.messages()),
    );
    for (const [i, victim] of t.nodes.slice(0, 3).entries()) {
      assert.ok(h.sns.messages[2 * i]?.message.includes(victim));
      assert.ok(h.sns.messages[2 * i + 1]?.message.includes(victim));
    }
    // Not vacuous: the runs did overlap, and the loser backed off.
    assert.ok(statuses.includes('busy'), `some run backed off: ${statuses.join(',')}`);
  });

  it('one container wins the outbox even while its publish is slow', async () => {
    const t = h.target('prod');
    const a = h.container();
    const b = h.container();
    const before = h.sns.messages.length;
    const victim = t.nodes[4] as string;
    t.sim.stopKubelet(victim);
    h.clock.advance(60_000);
    // A's publish hangs until its own deadline (3 s before the 5 s it has left: a budget to
    // record the delivery, and middy's last resort); B runs in the meantime.
    h.sns.failNext(1, 'hang');
    const requests = h.sns.requests;
    const first = a.invoke(null, { remainingMs: 5_000 });
    // A has claimed the outbox once its publish reached SNS (the claim is saved before).
    await waitUntil(() => h.sns.requests !== requests, "A's publish reached SNS");
    const busy = await b.invoke();
    assert.equal(busy.clusters[0]?.lastStatus, 'busy', 'B backs off while A holds the outbox');
    // Cut off by its deadline, A still records that nothing was sent, and resolves.
    assert.equal((await first).clusters[0]?.pending, 1);
    assert.equal(h.sns.messages.length, before, 'nothing delivered yet');
    // The next scheduled run (A's lock has run out by then) delivers it, once.
    h.clock.advance(60_000);
    await b.invoke();
    h.clock.advance(60_000);
    await a.invoke();
    assert.deepEqual(h.sns.messages.slice(before).map(kindOf), ['FIRING']);
  });
});
