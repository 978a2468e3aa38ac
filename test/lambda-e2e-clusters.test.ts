/**
 * The scheduled function end to end (see testkit/watchdog-harness.ts): hostile node names
 * against the SNS endpoint's validation, and several clusters per function.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InvocationError } from '../lambda/use-cases/invocation.js';
import {
  attributesOf,
  type Harness,
  kindOf,
  RecordingMetrics,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

describe('lambda e2e: hostile node names', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 15 } } });
  });
  after(() => h.close());

  // Not valid Kubernetes names, but nothing stops a broken or hostile API from serving them.
  const hostile = [
    'evil\nSubject: injected\r\nBcc: victim@example.com',
    'bell\u0007esc\u001b[31mred\u0000nul\u007fdel',
    // The longest name Kubernetes allows (a longer one is cut where it is read, and invalid:
    // test/lambda-e2e-long-names.test.ts).
    'n'.repeat(253),
    '\u202Egnp.exe-rtl-override',
    'ノード-壊れた\u2028line-separator',
  ];

  it('the FIRING and RESOLVED pass SNS validation: subject one ASCII line < 100, body clean', async () => {
    const t = h.target('prod');
    const zones = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];
    hostile.forEach((name, i) => {
      t.sim.addNode({ name, zone: zones[i % 3], createdAt: h.clock.now() - 86_400_000 });
    });
    await h.run();
    await h.tick();
    for (const name of hostile) t.sim.stopKubelet(name);
    for (let i = 0; i < 2; i++) await h.tick();
    for (const name of hostile) t.sim.startKubelet(name);
    await h.tick();

    assert.deepEqual(h.sns.rejections, [], 'SNS rejected nothing');
    assert.deepEqual(h.sns.messages.map(kindOf), ['FIRING', 'RESOLVED'], summary(h.messages()));
    for (const message of h.sns.messages) {
      const subject = message.subject ?? '';
      assert.ok(subject.length > 0 && subject.length < 100, `subject length ${subject.length}`);
      assert.match(subject, /^\[prod\] (FIRING: 5 nodes down|RESOLVED: 5 nodes recovered)/);
      assert.match(subject, /^[\x20-\x7e]+$/, 'printable ASCII, one line');
      assert.doesNotMatch(subject, /Bcc|Subject: injected\s/);
      const body = message.message;
      assert.doesNotMatch(
        body.replaceAll('\n', ''),
        /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u,
        'no control, format (bidi), or separator characters in the body, newlines aside',
      );
      assert.doesNotMatch(body, /^Bcc:/m, 'a name cannot start a line of its own');
      assert.ok(body.includes('n'.repeat(253)), 'the 253-character name, whole');
      assert.ok(!body.includes('n'.repeat(254)));
      assert.ok(body.includes('ノード-壊れた'), 'non-ASCII names are kept in the body');
      assert.ok(body.includes('gnp.exe-rtl-override'), 'the RTL name, without its override');
      assert.equal(attributesOf(message).cluster, 'prod');
    }
  });
});

/**
 * A container that notes in `events` each cluster's read as it starts (`reading <cluster>`) and
 * each check as it ends (`checked <cluster>`, then `onChecked`).
 */
function tracedContainer(h: Harness, events: string[], onChecked: () => void = () => {}) {
  const metrics = new RecordingMetrics();
  metrics.onRecord = (m) => {
    if (m.name !== 'CheckDuration') return;
    events.push(`checked ${m.cluster}`);
    onChecked();
  };
  return h.container({
    metrics,
    credentials: (provider) => ({
      kubeConfigFor(cluster, signal) {
        events.push(`reading ${cluster.name}`);
        return provider.kubeConfigFor(cluster, signal);
      },
      forget: (cluster) => provider.forget(cluster),
    }),
  });
}

describe('lambda e2e: several clusters', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({
      clusters: { a: { nodes: 6, seed: 3 }, b: { nodes: 6, seed: 5 } },
      requestTimeoutSeconds: 1,
    });
    await h.run();
  });
  after(() => h.close());

  it('an event naming b checks b only', async () => {
    const a = h.target('a');
    const b = h.target('b');
    const [aBefore, bBefore] = [a.server.stats.requests, b.server.stats.requests];
    const report = await h.tick({ cluster: 'b' });
    assert.deepEqual(
      report.clusters.map((c) => [c.cluster, c.checks, c.lastStatus]),
      [['b', 1, 'checked']],
    );
    assert.equal(a.server.stats.requests, aBefore, 'cluster a was not read');
    assert.ok(b.server.stats.requests > bBefore, 'cluster b was read');
  });

  it('an event naming no cluster checks all of them, concurrently', async () => {
    // Cluster a hangs until the request timeout: b's check starts before a's ends.
    const events: string[] = [];
    const container = tracedContainer(h, events);
    h.target('a').server.setFault({ kind: 'hang' });
    h.clock.advance(60_000);
    try {
      const report = await container.invoke({});
      assert.deepEqual(report.clusters.map((c) => [c.cluster, c.lastStatus]).sort(), [
        ['a', 'unreadable'],
        ['b', 'checked'],
      ]);
    } finally {
      h.target('a').server.setFault(null);
    }
    assert.ok(
      events.indexOf('reading b') < events.indexOf('checked a'),
      `b starts before a ends: ${events.join(', ')}`,
    );
    // Back to normal for the next test: a is readable again.
    await h.tick();
  });

  it("a batch of looks: a cluster that hangs never holds up another's, nor one cluster's looks each other", async () => {
    // a's look comes first and hangs; b's two looks must be done before a's ends. a's hang is
    // released when b's second look is recorded: handled one after the other, the batch would
    // wait for a's request timeout first.
    const events: string[] = [];
    const container = tracedContainer(h, events, () => {
      if (events.filter((e) => e === 'checked b').length === 2) {
        h.target('a').server.setFault(null);
      }
    });
    h.target('a').server.setFault({ kind: 'hang' });
    h.clock.advance(20_000);
    const body = (cluster: string) => JSON.stringify({ cluster, look: { suspects: [] } });
    try {
      const report = await container.invoke({
        Records: ['a', 'b', 'b'].map((c, i) => ({ messageId: `m${i}`, body: body(c) })),
      });
      assert.deepEqual(report.batchItemFailures, []);
      assert.deepEqual(
        report.clusters.map((c) => [c.cluster, c.lastStatus]),
        [
          ['a', 'checked'],
          ['b', 'checked'],
          ['b', 'checked'],
        ],
      );
    } finally {
      h.target('a').server.setFault(null);
    }
    assert.deepEqual(
      events,
      ['reading a', 'reading b', 'checked b', 'reading b', 'checked b', 'checked a'],
      events.join(', '),
    );
  });

  it("one cluster unreachable never stops the other's FIRING", async () => {
    const before = h.sns.messages.length;
    const b = h.target('b');
    const victim = b.nodes[0] as string;
    h.target('a').server.setFault({ kind: 'close' });
    b.sim.stopKubelet(victim);
    try {
      for (let i = 0; i < 2; i++) await h.tick();
    } finally {
      h.target('a').server.setFault(null);
    }
    const fresh = h.sns.messages.slice(before);
    const byCluster = fresh.map((m) => `${attributesOf(m).cluster} ${kindOf(m)}`).sort();
    assert.deepEqual(byCluster, ['a WATCHDOG', 'b FIRING'], summary(fresh));
    const firing = fresh.find((m) => kindOf(m) === 'FIRING');
    assert.match(firing?.subject ?? '', /^\[b\] FIRING: 1 node down/);
    assert.ok(firing?.message.includes(victim));
    b.sim.startKubelet(victim);
    await h.tick();
  });

  it('an event naming an unknown cluster rejects with WatchdogError, reading nothing', async () => {
    const requests = [h.target('a'), h.target('b')].map((t) => t.server.stats.requests);
    await assert.rejects(h.tick({ cluster: 'c' }), (error: unknown) => {
      assert.ok(error instanceof InvocationError);
      assert.match(error.message, /"c", which is not configured \(clusters: a, b\)/);
      return true;
    });
    assert.deepEqual(
      [h.target('a'), h.target('b')].map((t) => t.server.stats.requests),
      requests,
    );
  });
});
