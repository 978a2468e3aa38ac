/**
 * A test reporter that writes how long each test file's tests took, in seconds, as JSON
 * (`{ "test/x.test.ts": 1.2, ... }`), for `npm run test:times`, which keeps
 * testkit/test-times.json — the weights run-tests.ts balances its shards by. Only top-level tests
 * and suites count (their durations hold their children's); paths are relative to the working
 * directory.
 */
import { relative } from 'node:path';

interface TestEvent {
  readonly type: string;
  readonly data: {
    readonly nesting?: number;
    readonly file?: string;
    readonly details?: { readonly duration_ms?: number };
  };
}

export default async function* fileTimes(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const seconds = new Map<string, number>();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, file, details } = event.data;
    if (nesting !== 0 || file === undefined) continue;
    const name = relative(process.cwd(), file);
    seconds.set(name, (seconds.get(name) ?? 0) + (details?.duration_ms ?? 0) / 1000);
  }
  const sorted = [...seconds].sort(([a], [b]) => a.localeCompare(b));
  yield `${JSON.stringify(Object.fromEntries(sorted.map(([f, s]) => [f, Number(s.toFixed(1))])), null, 2)}\n`;
}
