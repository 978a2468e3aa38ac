/**
 * A stand-in for the Lambda Node.js runtime, run as its own process by plain `node` (no tsx, as
 * Lambda runs the bundle): imports the bundle given as the first argument once (the cold start),
 * then invokes its `handler` once per IPC message `{ now, event, requestId }` and answers
 * `{ report }` or `{ error }`, with the invocation's own peak RSS (`maxRssBytes`, Linux) and the
 * process's memory before and after it (`memory`). `now` is the test's fake clock, set before
 * each invocation (and from LW_TEST_NOW before the import, so the handler's clock is this one): an
 * hour of schedule takes a second. Logs go to stdout, as in Lambda.
 *
 *   node testkit/bundle-runtime.ts path/to/index.mjs
 */

// Imported by its .ts name at run time: plain Node strips the types, as it does of this file.
const { peakRssBytes, resetPeakRss } = (await import(
  new URL('./peak-rss.ts', import.meta.url).href
)) as typeof import('./peak-rss.js');

interface Invocation {
  readonly now: number;
  readonly event: unknown;
  readonly requestId: string;
}

let now = Number(process.env.LW_TEST_NOW);
if (!Number.isFinite(now)) throw new Error('LW_TEST_NOW must be epoch milliseconds');
Date.now = () => now;

const bundle = process.argv[2];
if (!bundle) throw new Error('usage: node testkit/bundle-runtime.ts BUNDLE');
const { handler } = (await import(bundle)) as {
  handler: (event: unknown, context: unknown) => Promise<unknown>;
};

process.on('message', (message: Invocation) => {
  now = message.now;
  const deadline = performance.now() + 55_000;
  const context = {
    awsRequestId: message.requestId,
    functionName: 'lease-watchdog',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:lease-watchdog',
    memoryLimitInMB: '512',
    logGroupName: '/aws/lambda/lease-watchdog',
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, Math.round(deadline - performance.now())),
  };
  // Each invocation's own peak RSS, as Lambda's "Max Memory Used" is one invocation's: the
  // kernel's high-water mark reset first where Linux allows it (proc_pid_clear_refs(5)).
  const peakReset = resetPeakRss();
  const before = process.memoryUsage();
  const peak = () => ({
    ...(peakReset ? { maxRssBytes: peakRssBytes() } : {}),
    memory: { before, after: process.memoryUsage() },
  });
  handler(message.event, context).then(
    (report) => process.send?.({ report, ...peak() }),
    (error: unknown) => process.send?.({ error: String(error), ...peak() }),
  );
});
process.send?.({ ready: true });
