/**
 * A large check's garbage is collected once the invocation is over (handler/heap-release.ts):
 * the rule alone; a collector had in a Node started without `--expose-gc`, as the function's is,
 * that gives the freed pages back;
 * then through the handler createHandler builds: after the check has published, and not after a
 * small invocation.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import {
  COLLECT_GROWTH_BYTES,
  type CollectOptions,
  collectIfGrown,
  LAST_RESORT,
} from '../lambda/handler/heap-release.js';
import { type Harness, startWatchdogHarness } from '../testkit/watchdog-harness.js';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;

describe('collectIfGrown', () => {
  it('collects when the heap grew past the threshold only, and not without a collector', async () => {
    const given: (CollectOptions | undefined)[] = [];
    const gc = async () => (options?: CollectOptions) => {
      given.push(options);
    };
    const base = 200 * 1024 * 1024;
    assert.equal(
      await collectIfGrown(base, COLLECT_GROWTH_BYTES, {
        now: base + COLLECT_GROWTH_BYTES + 1,
        gc,
      }),
      true,
    );
    assert.equal(
      await collectIfGrown(base, COLLECT_GROWTH_BYTES, { now: base + COLLECT_GROWTH_BYTES, gc }),
      false,
    );
    assert.equal(await collectIfGrown(base, COLLECT_GROWTH_BYTES, { now: base - 1, gc }), false);
    // The last-resort collection (the runtime's Node, 24, knows it): its pages given back.
    assert.deepEqual(given, [LAST_RESORT]);
    assert.equal(await collectIfGrown(0, 0, { now: base, gc: async () => null }), false);
  });

  it('in a Node started without --expose-gc, as the function is: a collector all the same', async () => {
    const script = `
      import { collectIfGrown, heapInUse } from ${JSON.stringify(join(ROOT, 'lambda/handler/heap-release.ts'))};
      const since = heapInUse();
      // 4 KiB arrays (pointer-compressed small integers): 96 MB of heap, then garbage.
      let ballast = Array.from({ length: 24_000 }, (_, k) => new Array(1024).fill(k));
      const held = heapInUse();
      ballast = undefined;
      const collected = await collectIfGrown(since);
      const { heapUsed: after, heapTotal: committed } = process.memoryUsage();
      process.stdout.write(
        JSON.stringify({ global: typeof globalThis.gc, collected, held, after, committed }),
      );
    `;
    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      script,
    ]);
    const got = JSON.parse(stdout) as {
      global: string;
      collected: boolean;
      held: number;
      after: number;
      committed: number;
    };
    assert.equal(got.global, 'undefined', 'no gc of the flag');
    assert.equal(got.collected, true);
    assert.ok(got.after < got.held - 64 * 1024 * 1024, `${got.held} → ${got.after} bytes`);
    // The freed pages given back, not kept committed (a plain collection kept ~66 MB of them).
    const kept = got.committed - got.after;
    assert.ok(kept < 32 * 1024 * 1024, `${kept} bytes committed past the heap in use`);
  });
});

describe('the handler collects when an invocation is over', () => {
  const global = globalThis as { gc?: () => void };
  const exposed = global.gc;
  let calls: string[] = [];
  const spy = (h: Harness) => (options?: CollectOptions) => {
    calls.push(`${options?.flavor ?? 'plain'} gc after ${h.sns.messages.length} messages`);
  };
  after(() => {
    global.gc = exposed;
  });

  describe('past the growth threshold (here any growth, or none)', () => {
    let h: Harness;
    before(async () => {
      h = await startWatchdogHarness({
        clusters: { prod: { nodes: 4 } },
        collectGrowthBytes: Number.NEGATIVE_INFINITY,
      });
    });
    after(() => h.close());

    it('after the read, before the check publishes; then once the invocation is over', async () => {
      global.gc = spy(h);
      h.target('prod').sim.stopKubelet(h.target('prod').nodes[0] as string);
      for (let i = 0; i < 5; i++) {
        const before = h.sns.messages.length;
        calls = [];
        await (i === 0 ? h.run() : h.tick());
        assert.deepEqual(calls, [
          `plain gc after ${before} messages`,
          `last-resort gc after ${h.sns.messages.length} messages`,
        ]);
      }
      assert.ok(h.sns.messages.length > 0, 'the dead node paged');
    });
  });

  describe('by default', () => {
    let h: Harness;
    before(async () => {
      h = await startWatchdogHarness({ clusters: { prod: { nodes: 4 } } });
    });
    after(() => h.close());

    it('a small invocation is not collected, whatever heap the process holds', async () => {
      // A test runner's heap: large, but not grown by the invocation.
      const ballast = Array.from({ length: 24_000 }, (_, k) => new Array(1024).fill(k));
      global.gc = spy(h);
      calls = [];
      await h.run();
      await h.tick();
      assert.deepEqual(calls, []);
      assert.equal(ballast.length, 24_000);
    });
  });
});
