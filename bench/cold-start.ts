/**
 * The bundled handler as the stack ships it: its size, and the cold-start cost of importing it
 * (module load + configuration parsing + client construction) in a fresh Node process, median of
 * several runs. No AWS call is made: importing only builds clients.
 *
 *   node --import tsx bench/cold-start.ts [runs]
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = new URL('..', import.meta.url).pathname;
const RUNS = Number(process.argv[2] ?? 15);

const dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-cold-'));
const outfile = join(dir, 'index.mjs');
// The same options as the NodejsFunction in infra/lease-watchdog.ts.
await build({
  entryPoints: [join(ROOT, 'lambda/handler.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  minify: true,
  sourcemap: true,
  mainFields: ['module', 'main'],
  outfile,
  banner: {
    js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
const size = (await stat(outfile)).size;
const mapSize = (await stat(`${outfile}.map`)).size;

const env = {
  ...process.env,
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'cold-start-bench',
  AWS_SECRET_ACCESS_KEY: 'cold-start-bench',
  LEASE_WATCHDOG_SETTINGS: JSON.stringify({
    clusters: [{ name: 'prod', auth: { mode: 'eks', clusterName: 'prod' } }],
  }),
  TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog',
  STATE_TABLE: 'lease-watchdog-state',
  POWERTOOLS_METRICS_NAMESPACE: 'LeaseWatchdog',
};
const script = `const t = performance.now(); const m = await import(${JSON.stringify(outfile)}); if (typeof m.handler !== 'function') process.exit(3); process.stdout.write(JSON.stringify({ importMs: performance.now() - t, processMs: performance.now(), rss: process.memoryUsage().rss }));`;

const samples: { importMs: number; processMs: number; rss: number }[] = [];
for (let i = 0; i < RUNS; i++) {
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--enable-source-maps', '--input-type=module', '-e', script],
      { env },
      (error, stdout, stderr) =>
        error ? reject(new Error(stderr || error.message)) : resolve(stdout),
    ),
  );
  samples.push(JSON.parse(out));
}
await rm(dir, { recursive: true, force: true });

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
const result = {
  bundleBytes: size,
  sourceMapBytes: mapSize,
  runs: RUNS,
  importMsMedian: Math.round(median(samples.map((s) => s.importMs))),
  importMsMin: Math.round(Math.min(...samples.map((s) => s.importMs))),
  importMsMax: Math.round(Math.max(...samples.map((s) => s.importMs))),
  processReadyMsMedian: Math.round(median(samples.map((s) => s.processMs))),
  rssAfterImportMB: Math.round(median(samples.map((s) => s.rss)) / 1024 / 1024),
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
