/**
 * The check cycle's ordering guarantees, with fakes at its ports (reader, notifier) and the
 * memory store: what SNS accepted is recorded even when the deadline cuts publishing short, a
 * live lock makes another run back off, a stale one does not.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStateStore } from '../lambda/adapters/state/memory/memory-store.js';
import type { Snapshot } from '../lambda/core/model.js';
import type { Notification } from '../lambda/core/notification.js';
import { GROUP_WAIT_MS } from '../lambda/core/storm-forming.js';
import type { Notifier } from '../lambda/ports/index.js';
import { DEFAULT_ALERT_POLICY, DEFAULT_POLICY } from '../lambda/settings/index.js';
import { type CycleDeps, runCheckCycle } from '../lambda/use-cases/check-cycle.js';
import { lease, microTime, node, snapshot, T0 } from '../testkit/builders.js';
import { waitUntil } from '../testkit/wait-until.js';

/** When each node's kubelet stopped: a stopped node's renewTime stays at its last renewal. */
const STOPPED: Record<string, number> = { a: T0 - 62_000, b: T0 - 2_000 };

/** A cluster of three nodes at `at`; the `dead` ones stopped renewing at STOPPED[name]. */
function cluster(at: number, dead: string[]): Snapshot {
  const names = ['a', 'b', 'c'];
  return {
    ...snapshot({
      leases: names.map((n) =>
        lease(n, { renewTime: microTime(dead.includes(n) ? (STOPPED[n] as number) : at - 2_000) }),
      ),
      nodes: names.map((n) => node(n)),
      serverTime: at,
    }),
    cluster: 'prod',
  };
}

class ScriptedNotifier implements Notifier {
  readonly accepted: Notification[] = [];
  /** How each publish behaves, in order: 'ok', 'fail', or 'hang' (until aborted). */
  constructor(private readonly script: ('ok' | 'fail' | 'hang')[] = []) {}
  async publish(notification: Notification, signal?: AbortSignal): Promise<void> {
    const step = this.script.shift() ?? 'ok';
    // A transient failure (throttling, 5xx): the notifier says trying again may succeed.
    if (step === 'fail') throw Object.assign(new Error('SNS said no'), { retryable: true });
    if (step === 'hang') {
      await new Promise((_, reject) =>
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true }),
      );
    }
    this.accepted.push(notification);
  }
}

function deps(
  store: MemoryStateStore,
  notifier: Notifier,
  at: number,
  dead: string[],
  runId = 'run-1',
): CycleDeps {
  return {
    reader: { read: async () => cluster(at, dead) },
    store,
    notifier,
    policy: DEFAULT_POLICY,
    alertPolicy: DEFAULT_ALERT_POLICY,
    clock: () => at,
    runId,
    lockMs: 60_000,
  };
}

describe('runCheckCycle', () => {
  it('records what was accepted when the deadline stops publishing half-way', async () => {
    const store = new MemoryStateStore();
    // Check 0: every lease seen once, all renewing (a node first seen already silent waits a check).
    await runCheckCycle('prod', deps(store, new ScriptedNotifier(), T0 - 60_000, []));
    // Check 1: a has stopped, SNS fails: the FIRING stays in the outbox.
    const first = await runCheckCycle(
      'prod',
      deps(store, new ScriptedNotifier(['fail']), T0, ['a']),
    );
    assert.equal(first.status === 'checked' && first.pending.length, 1);
    // Check 2: b dies too. The old FIRING is accepted, the new one hangs until the deadline.
    const notifier = new ScriptedNotifier(['ok', 'hang']);
    const deadline = new AbortController();
    const pending = runCheckCycle(
      'prod',
      deps(store, notifier, T0 + 60_000, ['a', 'b']),
      deadline.signal,
    );
    await waitUntil(() => notifier.accepted.length > 0, 'the old FIRING accepted', {
      intervalMs: 1,
    });
    deadline.abort(new Error('Lambda deadline'));
    const second = await pending;

    assert.equal(second.status, 'checked');
    assert.deepEqual(
      notifier.accepted.map((n) => n.firing.map((f) => f.name)),
      [['a']],
    );
    const stored = await store.load('prod');
    assert.deepEqual(
      stored.state.outbox.map((n) => n.firing.map((f) => f.name)),
      [['b']],
      'only the unsent one is left',
    );
    assert.equal(stored.state.lock, null, 'the lock is released');

    // Check 3: only b's FIRING goes out; a's is not sent again.
    const third = new ScriptedNotifier();
    await runCheckCycle('prod', deps(store, third, T0 + 120_000, ['a', 'b']));
    assert.deepEqual(
      third.accepted.map((n) => n.firing.map((f) => f.name)),
      [['b']],
    );
  });

  it('backs off while another run holds the outbox lock, and not once the lock is stale', async () => {
    const store = new MemoryStateStore();
    await runCheckCycle('prod', deps(store, new ScriptedNotifier(), T0 - 60_000, []));
    await runCheckCycle('prod', deps(store, new ScriptedNotifier(['fail']), T0, ['a']));
    const { version, state } = await store.load('prod');
    await store.save(
      'prod',
      { ...state, lock: { owner: 'other-run', until: T0 + 90_000 } },
      version,
    );

    const blocked = new ScriptedNotifier();
    const busy = await runCheckCycle('prod', deps(store, blocked, T0 + 60_000, ['a']));
    assert.equal(busy.status, 'busy');
    assert.equal(blocked.accepted.length, 0);

    const later = new ScriptedNotifier();
    const outcome = await runCheckCycle('prod', deps(store, later, T0 + 120_000, ['a']));
    assert.equal(outcome.status, 'checked');
    assert.equal(
      later.accepted.length,
      1,
      'the stale lock is taken over and the FIRING goes out once',
    );
  });

  it('sends nothing when another run saved first', async () => {
    const store = new MemoryStateStore();
    await runCheckCycle('prod', deps(store, new ScriptedNotifier(), T0 - 60_000, []));
    const slowReader = deps(store, new ScriptedNotifier(), T0, ['a']);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const notifier = new ScriptedNotifier();
    const racing = runCheckCycle('prod', {
      ...slowReader,
      notifier,
      reader: {
        read: async () => {
          await gate;
          return cluster(T0, ['a']);
        },
      },
    });
    // Another run loads, decides and saves while the first is still reading.
    const winner = new ScriptedNotifier();
    await runCheckCycle('prod', deps(store, winner, T0, ['a'], 'run-2'));
    release();
    const loser = await racing;
    assert.equal(loser.status, 'busy');
    assert.equal(notifier.accepted.length, 0);
    assert.equal(winner.accepted.length, 1);
  });

  it('a run that lost the claim still hands back the re-check its suspect wants', async () => {
    const store = new MemoryStateStore();
    await runCheckCycle('prod', deps(store, new ScriptedNotifier(), T0 - 60_000, []));
    // b stopped at T0 - 2 s: 15 s later both runs find it suspect; the other one saves first.
    const at = T0 + 13_000;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const racing = runCheckCycle('prod', {
      ...deps(store, new ScriptedNotifier(), at, ['b']),
      reader: {
        read: async () => {
          await gate;
          return cluster(at, ['b']);
        },
      },
    });
    await runCheckCycle('prod', deps(store, new ScriptedNotifier(), at, ['b'], 'run-2'));
    release();
    const loser = await racing;
    assert.equal(loser.status, 'busy');
    assert.deepEqual(loser.status === 'busy' ? loser.rechecks?.map((r) => r.leases) : undefined, [
      ['b'],
    ]);
  });

  it('a check that holds a forming storm’s FIRING asks for a look at the end of the wait', async () => {
    // Zone a's four nodes renew every 10 s, 3 s apart; a, b and c stop together at T0. Zone b's
    // four renew on (so that the looks are not frozen: fewer than half the leases are suspects).
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const renewed = (phase: number, at: number) =>
      at - ((((at - phase) % 10_000) + 10_000) % 10_000);
    const dead = (name: string) => ['a', 'b', 'c'].includes(name);
    const zones = (at: number): Snapshot => ({
      ...snapshot({
        leases: names.map((n, i) =>
          lease(n, { renewTime: microTime(renewed(i * 3_000, dead(n) ? Math.min(at, T0) : at)) }),
        ),
        nodes: names.map((n, i) => node(n, { zone: i < 4 ? 'eu-west-1a' : 'eu-west-1b' })),
        serverTime: at,
      }),
      cluster: 'prod',
    });
    const store = new MemoryStateStore();
    const notifier = new ScriptedNotifier();
    const check = (at: number) =>
      runCheckCycle('prod', {
        ...deps(store, notifier, at, []),
        reader: { read: async () => zones(at) },
      });
    // A look every second: the first that confirms a death holds its FIRING.
    let at = T0 - 60_000;
    let held: Awaited<ReturnType<typeof check>> | undefined;
    for (; held === undefined; at += 1_000) {
      const outcome = await check(at);
      if (outcome.status === 'checked' && outcome.evaluation.summary.expired > 0) held = outcome;
    }
    assert.equal(held.status, 'checked');
    const [first, ...others] = held.evaluation.nodes.filter((n) => n.verdict === 'expired');
    assert.deepEqual(others, [], 'one confirmed at that look');
    assert.equal(notifier.accepted.length, 0, 'its FIRING waits for the others');
    const wake = held.rechecks.find((r) => r.at === at - 1_000 + GROUP_WAIT_MS);
    assert.deepEqual(wake?.leases, [first?.name], 'a look asked for one renew interval on');
    // The others are confirmed within it: one STORM names all three.
    for (const end = at + GROUP_WAIT_MS; at < end; at += 1_000) await check(at);
    assert.deepEqual(
      notifier.accepted.map((n) => [n.kind, n.firing.map((x) => x.name)]),
      [['STORM', ['a', 'b', 'c']]],
    );
  });
});
