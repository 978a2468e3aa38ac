/**
 * A large check's garbage is collected once the invocation is over (handler/heap-release.ts):
 * the rule alone, then through the handler createHandler builds, with `gc` as `--expose-gc` (which
 * the stack sets in NODE_OPTIONS, infra-bundle.test.ts) would give it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { COLLECT_ABOVE_BYTES, collectLargeHeap } from '../lambda/handler/heap-release.js';
import { type Harness, startWatchdogHarness } from '../testkit/watchdog-harness.js';

describe('collectLargeHeap', () => {
  it('collects above the threshold only, and never without gc', () => {
    let collected = 0;
    const gc = () => {
      collected++;
    };
    assert.equal(
      collectLargeHeap(gc, () => COLLECT_ABOVE_BYTES + 1),
      true,
    );
    assert.equal(
      collectLargeHeap(gc, () => COLLECT_ABOVE_BYTES),
      false,
    );
    assert.equal(collected, 1);
    assert.equal(
      collectLargeHeap(undefined, () => 10 * COLLECT_ABOVE_BYTES),
      false,
    );
  });
});

describe('the handler collects a large heap when an invocation is over', () => {
  let h: Harness;
  const global = globalThis as { gc?: () => void };
  const exposed = global.gc;
  let calls: string[] = [];
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 4 } } });
  });
  after(async () => {
    global.gc = exposed;
    await h.close();
  });

  it('once per invocation, after the check has published', async () => {
    // Ballast that keeps the heap over the threshold, whatever else this process holds.
    const ballast = Array.from({ length: (COLLECT_ABOVE_BYTES / 1024) * 1.2 }, (_, k) =>
      `${k}`.padEnd(1024, 'x'),
    );
    global.gc = () => {
      calls.push(`gc after ${h.sns.messages.length} messages`);
    };
    h.target('prod').sim.stopKubelet(h.target('prod').nodes[0] as string);
    calls = [];
    await h.run();
    assert.equal(calls.length, 1, calls.join('; '));
    for (let i = 0; i < 4; i++) await h.tick();
    assert.equal(calls.length, 5, calls.join('; '));
    assert.ok(h.sns.messages.length > 0, 'the dead node paged');
    assert.equal(calls.at(-1), `gc after ${h.sns.messages.length} messages`);
    assert.ok(ballast.length > 0);
  });
});
