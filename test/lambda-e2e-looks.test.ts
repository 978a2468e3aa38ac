/**
 * The watchdog's own looks (routine looks between scheduled runs, a suspect's re-check), through
 * the real handler, the sim over HTTPS and dynalite: a look lists the Leases alone and GETs only
 * the nodes that may page now (no Table of Nodes, no Node list), and a look that changes nothing
 * that must survive writes nothing; a look that finds a suspect saves it, and a cold container
 * that takes over pages it once, on time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countUnits } from '../testkit/capacity-units.js';
import { renewTimeOf } from '../testkit/schedule-runs.js';
import {
  type Container,
  type Harness,
  kindOf,
  SCHEDULE_MS,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

let looks = 0;
/** One look, as the SQS event source mapping delivers it (`run`: a routine look's run). */
function look(lambda: Container, suspects: readonly string[] = [], run?: number) {
  const body = JSON.stringify({ cluster: 'prod', look: { suspects, run } });
  return lambda.invoke({ Records: [{ messageId: `look-${++looks}`, body }] });
}

/** The requests the sim answered since its stats were reset: method and path. */
function requests(h: Harness): string[] {
  return h.target().server.sent.map((a) => `${a.method} ${a.url.split('?')[0]}`);
}

/** Moves the clock (100 ms steps) to just after `node`'s next renewal; its time. */
function nextRenewal(h: Harness, node: string): number {
  const from = renewTimeOf(h, 'prod', node);
  while (renewTimeOf(h, 'prod', node) === from) h.clock.advance(100);
  return renewTimeOf(h, 'prod', node);
}

/** Scheduled runs just after `node`'s renewals: the saved state knows its clock to 0.1 s. */
async function learnClock(h: Harness, lambda: Container, node: string): Promise<void> {
  for (let i = 0; i < 3; i++) {
    h.clock.advance(SCHEDULE_MS - 11_000);
    nextRenewal(h, node);
    await lambda.invoke();
  }
}

/** A look that finds a suspect; asserts it asked for the re-check at the grace (50.6 s). */
async function recheckAskedAt(lambda: Container, lastRenewal: number): Promise<number> {
  const logged = lambda.logger.entries.length;
  await look(lambda);
  const asked = lambda.logger.entries
    .slice(logged)
    .find((e) => e.message === 'suspects: looking again');
  const at = Number(asked?.fields.at);
  assert.ok(
    at - lastRenewal <= 50_600,
    `re-check asked ${(at - lastRenewal) / 1000} s after the last renewal`,
  );
  return at;
}

/** `node` dies just after a renewal, once saved runs know its clock: its last renewal. */
async function diesOnceKnown(h: Harness, lambda: Container, node: string): Promise<number> {
  await learnClock(h, lambda, node);
  const lastRenewal = nextRenewal(h, node);
  h.target().sim.stopKubelet(node);
  return lastRenewal;
}

/** A FIRING names `node` at most `seconds` after its last renewal. */
function pagedWithin(h: Harness, node: string, lastRenewal: number, seconds: number): void {
  const firing = h.messages('FIRING').find((m) => m.message.includes(node));
  assert.ok(firing, `no FIRING at the grace: ${summary(h.messages())}`);
  const latency = (firing.receivedAt - lastRenewal) / 1000;
  assert.ok(latency <= seconds, `paged ${latency} s after the last renewal`);
}

describe('looks between scheduled runs', () => {
  it('a look lists the Leases alone, and GETs only a node that may page now', async () => {
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } } });
    try {
      const lambda = h.container();
      for (let i = 0; i < 3; i++) {
        h.clock.advance(SCHEDULE_MS);
        await lambda.invoke();
      }
      h.clock.advance(40_000);
      h.target().server.resetStats();
      await look(lambda);
      assert.deepEqual(requests(h), [
        'GET /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
      ]);

      // A node goes silent and is being deleted: the next look reads it afresh, and it alone.
      h.clock.advance(20_000);
      await lambda.invoke();
      const victim = h.target().nodes[2] as string;
      h.target().sim.stopKubelet(victim);
      h.target().sim.markDeleting(victim);
      h.clock.advance(55_000);
      h.target().server.resetStats();
      await look(lambda);
      assert.deepEqual(requests(h), [
        'GET /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
        `GET /api/v1/nodes/${victim}`,
      ]);
      const verdict = lambda.logger.entries.findLast(
        (e) => e.message === 'node verdict' && e.fields.node === victim,
      );
      assert.equal(verdict?.fields.verdict, 'suppressed', 'judged on the deletion the GET saw');
    } finally {
      await h.close();
    }
  });

  it('a look that changes nothing writes nothing and logs a short line; one that finds a suspect saves it', async () => {
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } } });
    try {
      const lambda = h.container();
      const units = countUnits(lambda.dynamodb);
      for (let i = 0; i < 3; i++) {
        h.clock.advance(SCHEDULE_MS);
        await lambda.invoke();
      }
      for (let i = 0; i < 3; i++) {
        h.clock.advance(20_000);
        const before = { ...units };
        const logged = lambda.logger.entries.length;
        await look(lambda);
        assert.equal(units.write - before.write, 0, 'a quiet look writes nothing');
        assert.ok(units.read - before.read >= 1, 'it loads the state');
        assert.deepEqual(
          lambda.logger.entries.slice(logged).map((e) => e.message),
          ['cluster looked at: unchanged'],
          'and logs one short line, not the full `cluster checked`',
        );
      }
      h.clock.advance(20_000);
      let before = { ...units };
      let logged = lambda.logger.entries.length;
      await lambda.invoke();
      assert.ok(units.write - before.write >= 1, 'a scheduled check still saves');
      assert.ok(
        lambda.logger.entries.slice(logged).some((e) => e.message === 'cluster checked'),
        'and logs its full line',
      );

      const victim = h.target().nodes[1] as string;
      h.target().sim.stopKubelet(victim);
      h.clock.advance(15_000);
      before = { ...units };
      logged = lambda.logger.entries.length;
      await look(lambda);
      assert.ok(units.write - before.write >= 1, 'a look that finds a suspect saves it');
      assert.ok(
        lambda.logger.entries.slice(logged).some((e) => e.message === 'cluster checked'),
        'and logs the full line',
      );
    } finally {
      await h.close();
    }
  });

  it('a routine look a later run superseded reads nothing; a container that did not see that run reads', async () => {
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } }, withLooks: true });
    try {
      const queue = h.looks as NonNullable<Harness['looks']>;
      const lambda = h.container();
      h.clock.advance(SCHEDULE_MS);
      const first = h.clock.now();
      await lambda.invoke();
      const asked = queue.asked.slice(-3);
      assert.deepEqual(
        asked.map((l) => [(l.wanted - first) / 1000, l.run]),
        [
          [32, first],
          [64, first],
          [96, first],
        ],
        'a run asks for three routine looks, each carrying the run',
      );
      h.clock.advance(SCHEDULE_MS);
      await lambda.invoke();
      h.clock.advance(4_000);
      const reads = () => requests(h).filter((r) => r.endsWith('/leases')).length;
      h.target().server.resetStats();
      const units = countUnits(lambda.dynamodb);
      const logged = lambda.logger.entries.length;
      const skipped = await look(lambda, [], first);
      assert.equal(reads(), 0, 'the first run’s +64 look, after the next run: no read');
      assert.deepEqual(
        skipped.batchItemFailures ?? [],
        [],
        'and SQS deletes it (not delivered again)',
      );
      assert.deepEqual(units, { read: 0, write: 0 }, 'nor of the state');
      assert.deepEqual(
        lambda.logger.entries.slice(logged).map((e) => e.message),
        ['look not needed: a later scheduled run looked and asked for its own'],
      );
      await look(lambda, [], first + SCHEDULE_MS);
      assert.equal(reads(), 1, 'the later run’s own look reads');
      await look(h.container(), [], first);
      assert.equal(reads(), 2, 'a cold container, which did not see the later run, reads');

      // A run whose looks the queue refused supersedes nothing: the looks asked before it read.
      queue.refusing = true;
      h.clock.advance(SCHEDULE_MS - 4_000);
      await lambda.invoke();
      queue.refusing = false;
      h.target().server.resetStats();
      await look(lambda, [], first + SCHEDULE_MS);
      assert.equal(reads(), 1, 'the looks of the run before it still read');
    } finally {
      await h.close();
    }
  });

  it('a suspect saved by a look is paged once, on time, by a cold container that takes over', async () => {
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } } });
    try {
      const first = h.container();
      for (let i = 0; i < 3; i++) {
        h.clock.advance(SCHEDULE_MS);
        await first.invoke();
      }
      const victim = h.target().nodes[3] as string;
      h.clock.advance(500);
      h.target().sim.stopKubelet(victim);
      const lastRenewal = renewTimeOf(h, 'prod', victim);
      // Looks of the warm container find it suspect (and quiet looks before save nothing)...
      for (let i = 0; i < 3; i++) {
        h.clock.advance(10_000);
        await look(first);
      }
      // ...then a cold container (a restart) runs the re-checks and the schedule.
      const second = h.container();
      for (let i = 0; i < 6; i++) {
        h.clock.advance(10_000);
        await look(second, [victim]);
      }
      h.clock.advance(SCHEDULE_MS);
      await second.invoke();
      await look(first);
      const firing = h.messages().filter((m) => ['FIRING', 'STORM'].includes(kindOf(m) ?? ''));
      assert.equal(firing.length, 1, summary(h.messages()));
      const latency = ((firing[0]?.receivedAt ?? 0) - lastRenewal) / 1000;
      assert.ok(latency <= 65 && latency >= 50, `paged ${latency} s after the last renewal`);
    } finally {
      await h.close();
    }
  });

  it('a look that first sees a renewal a renew interval old saves it: the run at the grace pages on it', async () => {
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } } });
    try {
      const lambda = h.container();
      const victim = h.target().nodes[2] as string;
      // It renews once more, which no saved check sees, and dies.
      const lastRenewal = await diesOnceKnown(h, lambda, victim);
      const units = countUnits(lambda.dynamodb);
      h.clock.advance(11_500 - (h.clock.now() - lastRenewal));
      await look(lambda);
      assert.ok(units.write >= 1, 'the look that first saw that renewal, 11.5 s old, saved it');

      // The next look comes at the grace (40 s later, as looks may): it pages there and then.
      h.clock.advance(lastRenewal + 50_500 - h.clock.now());
      await lambda.invoke();
      pagedWithin(h, victim, lastRenewal, 51);
    } finally {
      await h.close();
    }
  });

  it('a suspect a look found is in the observation snapshot: a cold container pages it at the grace', async () => {
    // 40 leases: the observations are a snapshot apart from the head (INLINE_OBSERVATIONS).
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 40 } } });
    try {
      const warm = h.container();
      const victim = h.target().nodes[5] as string;
      // Its last renewal is seen first by a look that saves nothing; a later look finds it suspect.
      const lastRenewal = await diesOnceKnown(h, warm, victim);
      h.clock.advance(2_000);
      await look(warm);
      h.clock.advance(lastRenewal + 25_000 - h.clock.now());
      await look(warm);

      // The container is replaced; the re-check at the grace runs in the new one.
      const cold = h.container();
      h.clock.advance(lastRenewal + 51_000 - h.clock.now());
      await look(cold, [victim]);
      pagedWithin(h, victim, lastRenewal, 52);
    } finally {
      await h.close();
    }
  });

  for (const nodes of [6, 40]) {
    it(`a warm container remembers what a look that saved nothing saw: the re-check lands at the grace (${nodes} leases)`, async () => {
      // 6 leases: the observations are in the head; 40: in a snapshot apart (INLINE_OBSERVATIONS).
      const h = await startWatchdogHarness({ clusters: { prod: { nodes } } });
      try {
        const lambda = h.container();
        const victim = h.target().nodes[3] as string;
        const lastRenewal = await diesOnceKnown(h, lambda, victim);
        // Its last renewal is seen first by a look that saves nothing...
        const units = countUnits(lambda.dynamodb);
        h.clock.advance(2_000);
        await look(lambda);
        assert.equal(units.write, 0, 'that look saves nothing');
        // ...and the next look, 38 s later (looks may be 40 s apart), finds it suspect: it knows
        // the renewTime was seen 36 s ago, so it asks for the re-check at the grace, not 12 s on.
        h.clock.advance(lastRenewal + 40_000 - h.clock.now());
        const at = await recheckAskedAt(lambda, lastRenewal);
        h.clock.advance(at + 500 - h.clock.now());
        await look(lambda, [victim]);
        pagedWithin(h, victim, lastRenewal, 51.5);
      } finally {
        await h.close();
      }
    });
  }

  it('a tight clock offset stays tight through checks that see renewals late: the re-check lands at the grace', async () => {
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } } });
    try {
      const lambda = h.container();
      const victim = h.target().nodes[4] as string;
      // One run just after a renewal learns the offset to 0.1 s; ten more see renewals 9.5 s old.
      nextRenewal(h, victim);
      await lambda.invoke();
      for (let i = 0; i < 10; i++) {
        h.clock.advance(SCHEDULE_MS - 20_000);
        nextRenewal(h, victim);
        h.clock.advance(9_500);
        await lambda.invoke();
      }
      const lastRenewal = nextRenewal(h, victim);
      h.target().sim.stopKubelet(victim);
      h.clock.advance(lastRenewal + 15_000 - h.clock.now());
      await recheckAskedAt(lambda, lastRenewal);
    } finally {
      await h.close();
    }
  });
});

describe('a queued batch, through the handler', () => {
  it('a body that is neither a check nor a look is one line naming where; the others run', async () => {
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 3 } } });
    try {
      const lambda = h.container();
      const report = await lambda.invoke({
        Records: [
          { messageId: 'bad', body: '{"cluster": "prod", "look": {"suspects": ["a", 7]}}' },
          { messageId: 'good', body: '{"cluster": "prod", "look": {"suspects": []}}' },
        ],
      });
      assert.deepEqual(report.batchItemFailures, [{ itemIdentifier: 'bad' }]);
      assert.deepEqual(
        report.clusters.map((c) => c.lastStatus),
        ['checked'],
      );
      const failed = lambda.logger.entries.find((e) => e.fields.messageId === 'bad');
      assert.match(String(failed?.fields.error), /^the queued message .*: look\.suspects\[1\]: /);
    } finally {
      await h.close();
    }
  });

  it('a batch whose every message failed fails the invocation (SQS delivers it again)', async () => {
    const h = await startWatchdogHarness({ clusters: { prod: { nodes: 3 } } });
    try {
      const lambda = h.container();
      await assert.rejects(
        lambda.invoke({
          Records: [
            { messageId: 'm1', body: 'nope' },
            { messageId: 'm2', body: '{"cluster": "prod", "recheck": "ip-10-0-1-12"}' },
          ],
        }),
        (error: Error) =>
          error.name === 'QueuedBatchError' &&
          error.message ===
            'every message of the batch failed (2); SQS delivers them again. The first: the message body is not JSON',
      );
    } finally {
      await h.close();
    }
  });
});
