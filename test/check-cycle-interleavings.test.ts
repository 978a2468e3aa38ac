/**
 * Two overlapping runs of the check cycle (a slow run and the next schedule) on the DynamoDB store
 * (dynalite, the real client), stepped through every interleaving of their store and publish
 * calls: load, save (the claim), publish, save (the record). A scheduler holds every call at a
 * gate and releases one at a time in a chosen order; all orders of the two runs' calls are tried.
 * In every one, no notification is lost and none is sent twice (no answer is lost here, so the
 * lost-answer bound allows no duplicate).
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDbStateStore } from '../lambda/adapters/state/dynamodb/dynamodb-store.js';
import type { Snapshot } from '../lambda/core/model.js';
import type { Notification } from '../lambda/core/notification.js';
import type { Notifier, StateStore } from '../lambda/ports/index.js';
import { DEFAULT_ALERT_POLICY, DEFAULT_POLICY } from '../lambda/settings/index.js';
import { type CycleDeps, runCheckCycle } from '../lambda/use-cases/check-cycle.js';
import { lease, microTime, node, snapshot, T0 } from '../testkit/builders.js';
import { type LocalDynamoDb, startLocalDynamoDb } from '../testkit/dynalite.js';

const STOPPED: Record<string, number> = { a: T0 - 62_000, b: T0 - 2_000 };

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

/** Holds each call of each run at a gate until the schedule releases it. */
class Stepper {
  readonly trace: string[] = [];
  readonly #waiting = new Map<string, () => void>();
  readonly #finished = new Set<string>();
  #wake: () => void = () => undefined;

  gate(run: string, call: string): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.set(run, () => {
        this.trace.push(`${run}:${call}`);
        resolve();
      });
      this.#wake();
    });
  }

  finish(run: string): void {
    this.#finished.add(run);
    this.#wake();
  }

  /** Releases calls in `order` (a run named but not waiting yields to the other) until all end. */
  async drive(runs: readonly string[], order: readonly string[]): Promise<void> {
    let step = 0;
    for (;;) {
      // Quiescent: every run is waiting at a gate or has finished.
      while (runs.some((r) => !this.#finished.has(r) && !this.#waiting.has(r))) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
      const ready = runs.filter((r) => this.#waiting.has(r));
      if (ready.length === 0) return;
      const wanted = order[step++];
      const run = ready.includes(wanted as string) ? (wanted as string) : (ready[0] as string);
      const release = this.#waiting.get(run) as () => void;
      this.#waiting.delete(run);
      release();
    }
  }
}

function gatedStore(store: StateStore, stepper: Stepper, run: string): StateStore {
  return {
    load: async (c, signal) => {
      await stepper.gate(run, 'load');
      return store.load(c, signal);
    },
    save: async (c, state, expected, signal) => {
      await stepper.gate(run, state.lock ? 'save-claim' : 'save');
      return store.save(c, state, expected, signal);
    },
  };
}

function gatedNotifier(sent: Notification[], stepper: Stepper, run: string): Notifier {
  return {
    publish: async (n) => {
      await stepper.gate(run, `publish-${n.firing.map((f) => f.name).join('')}`);
      sent.push(n);
    },
  };
}

function deps(store: StateStore, notifier: Notifier, at: number, runId: string): CycleDeps {
  return {
    reader: { read: async () => cluster(at, ['a', 'b']) },
    store,
    notifier,
    policy: DEFAULT_POLICY,
    alertPolicy: DEFAULT_ALERT_POLICY,
    clock: () => at,
    runId,
    lockMs: 60_000,
  };
}

/** Every sequence of `a` A's and `b` B's. */
function orders(a: number, b: number): string[][] {
  if (a === 0) return [Array(b).fill('B')];
  if (b === 0) return [Array(a).fill('A')];
  return [...orders(a - 1, b).map((o) => ['A', ...o]), ...orders(a, b - 1).map((o) => ['B', ...o])];
}

describe('two overlapping runs on the DynamoDB store, every interleaving', () => {
  let dynamo: LocalDynamoDb;
  let store: DynamoDbStateStore;
  before(async () => {
    dynamo = await startLocalDynamoDb();
    await dynamo.createStateTable('interleavings');
    store = new DynamoDbStateStore({ client: dynamo.client, tableName: 'interleavings' });
  });
  after(() => dynamo.stop());

  it('sends each notification exactly once, whatever the order of their calls', async () => {
    // Each run makes at most 5 gated calls: load, claim, two publishes, record.
    const all = orders(5, 5);
    const traces = new Set<string>();
    for (const [i, order] of all.entries()) {
      const key = `prod-${i}`;
      // Before: a's FIRING waits in the outbox (SNS failed); then b dies too.
      await runCheckCycle(key, {
        ...deps(store, { publish: async () => undefined }, T0 - 60_000, 'setup'),
        reader: { read: async () => cluster(T0 - 60_000, []) },
      });
      await runCheckCycle(key, {
        ...deps(
          store,
          {
            publish: async () => {
              throw new Error('SNS said no');
            },
          },
          T0,
          'setup',
        ),
        reader: { read: async () => cluster(T0, ['a']) },
      });

      const sent: Notification[] = [];
      const stepper = new Stepper();
      const at = T0 + 60_000;
      const runs = ['A', 'B'].map((run) =>
        runCheckCycle(
          key,
          deps(
            gatedStore(store, stepper, run),
            gatedNotifier(sent, stepper, run),
            at,
            `run-${run}`,
          ),
        ).finally(() => stepper.finish(run)),
      );
      await stepper.drive(['A', 'B'], order);
      const outcomes = await Promise.allSettled(runs);
      const failed = outcomes.filter((o) => o.status === 'rejected');
      assert.deepEqual(failed, [], stepper.trace.join(' '));
      traces.add(stepper.trace.join(' '));

      // A later run (any lock left is stale by then) sends whatever is still owed.
      await runCheckCycle(key, deps(store, collect(sent), at + 120_000, 'later'));
      const names = sent.map((n) => n.firing.map((f) => f.name).join('')).sort();
      assert.deepEqual(names, ['a', 'b'], `order ${stepper.trace.join(' ')}`);
      assert.deepEqual((await store.load(key)).state.outbox, []);
    }
    // Not vacuous: many different interleavings were actually run.
    assert.ok(traces.size >= 20, `${traces.size} distinct interleavings`);
  });
});

function collect(sent: Notification[]): Notifier {
  return {
    publish: async (n) => {
      sent.push(n);
    },
  };
}
