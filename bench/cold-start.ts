/**
 * The bundled handler exactly as the stack ships it: `buildStack` synthesizes
 * infra/config.example.json (CDK runs the local esbuild with the function's own bundling options),
 * and the asset's index.mjs is measured: its bytes, what they are made of (by package, from its
 * source map), and the cost of importing it (module load, configuration reading, client
 * construction; no AWS call) in fresh Node processes, with the function's NODE_OPTIONS and, as
 * the alternative, without them (or, when it sets none, with `--enable-source-maps` and the
 * shipped map: what mapped stack traces would cost). A third row imports it with the same
 * settings written otherwise (LEASE_WATCHDOG_SETTINGS re-indented): the cluster file no longer
 * vouches for them, and the cold start validates them with the schemas (what an environment
 * changed by hand costs).
 *
 * The machine is shared and noisy: each round also times a bare `node -e ''` process, and the
 * ratio of the import median to that baseline is what compares across runs and machines. The CPU
 * time of the import (user + system, all threads) is printed too: it moves less with the load.
 *
 *   npm run bench:cold-start [-- runs]     (default 15; rewrites the section in docs/BENCHMARKS.md)
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildStack } from '../infra/stack.js';
import { loadConfigFile } from '../lambda/adapters/config/deployment-file.js';
import { benchmarksSection } from './benchmarks-section.js';
import { median } from './statistics.js';

const ROOT = new URL('..', import.meta.url).pathname;
const RUNS = Number(process.argv[2] ?? 15);
const rewriteSection = await benchmarksSection('## The bundled handler');

const work = await mkdtemp(join(tmpdir(), 'lease-watchdog-cold-'));
const app = new App({ outdir: join(work, 'cdk.out') });
const template = Template.fromStack(
  buildStack(app, loadConfigFile(join(ROOT, 'infra', 'config.example.json'))),
);
const assembly = app.synth();
const [fn] = Object.values(template.findResources('AWS::Lambda::Function'));
const s3Key = fn?.Properties.Code.S3Key as string;
const bundle = join(assembly.directory, `asset.${s3Key.replace(/\.zip$/, '')}`, 'index.mjs');
const variables = fn?.Properties.Environment.Variables as Record<string, unknown>;
const nodeOptions = typeof variables.NODE_OPTIONS === 'string' ? variables.NODE_OPTIONS : '';

const bundleBytes = (await stat(bundle)).size;
const mapText = await readFile(`${bundle}.map`, 'utf8').catch(() => undefined);
const packages = mapText ? bytesByPackage(await readFile(bundle, 'utf8'), mapText) : [];
/** The other NODE_OPTIONS timed in the same rounds; undefined when there is none to compare. */
const alternative = nodeOptions ? '' : mapText ? '--enable-source-maps' : undefined;
/** The same settings in other words: validated at the cold start (runtime-environment.ts). */
const rewritten = JSON.stringify(JSON.parse(variables.LEASE_WATCHDOG_SETTINGS as string), null, 1);

const env = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'cold-start-bench',
  AWS_SECRET_ACCESS_KEY: 'cold-start-bench',
  LEASE_WATCHDOG_SETTINGS: variables.LEASE_WATCHDOG_SETTINGS as string,
  TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog',
  STATE_TABLE: 'lease-watchdog-state',
  POWERTOOLS_SERVICE_NAME: variables.POWERTOOLS_SERVICE_NAME as string,
  POWERTOOLS_METRICS_NAMESPACE: variables.POWERTOOLS_METRICS_NAMESPACE as string,
};
const script = `const c = process.cpuUsage(); const t = performance.now(); const m = await import(${JSON.stringify(bundle)}); if (typeof m.handler !== 'function') process.exit(3); const u = process.cpuUsage(c); process.stdout.write(JSON.stringify({ ms: performance.now() - t, cpuMs: (u.user + u.system) / 1000, rss: process.memoryUsage().rss }));`;

interface Sample {
  readonly ms: number;
  readonly cpuMs: number;
  readonly rss: number;
}

function run(args: string[], extraEnv: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { env: { ...env, ...extraEnv } }, (error, stdout, stderr) =>
      error ? reject(new Error(stderr || error.message)) : resolve(stdout),
    ),
  );
}

const bare: number[] = [];
const deployed: Sample[] = [];
const alternativeSamples: Sample[] = [];
const validatedSamples: Sample[] = [];
for (let i = 0; i < RUNS; i++) {
  const start = performance.now();
  await run(['-e', ''], {});
  bare.push(performance.now() - start);
  const importArgs = ['--input-type=module', '-e', script];
  deployed.push(
    JSON.parse(await run(importArgs, nodeOptions ? { NODE_OPTIONS: nodeOptions } : {})),
  );
  if (alternative !== undefined) {
    alternativeSamples.push(
      JSON.parse(await run(importArgs, alternative ? { NODE_OPTIONS: alternative } : {})),
    );
  }
  validatedSamples.push(
    JSON.parse(
      await run(importArgs, {
        LEASE_WATCHDOG_SETTINGS: rewritten,
        ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
      }),
    ),
  );
}
await rm(work, { recursive: true, force: true });

const bareMs = median(bare);
const summarise = (samples: Sample[]) => ({
  importMsMedian: Math.round(median(samples.map((s) => s.ms))),
  importMsMin: Math.round(Math.min(...samples.map((s) => s.ms))),
  importMsMax: Math.round(Math.max(...samples.map((s) => s.ms))),
  importCpuMsMedian: Math.round(median(samples.map((s) => s.cpuMs))),
  ratioToBareNode: Number((median(samples.map((s) => s.ms)) / bareMs).toFixed(2)),
  rssAfterImportMB: Math.round(median(samples.map((s) => s.rss)) / 1024 / 1024),
});
const result = {
  bundleBytes,
  sourceMapBytes: mapText ? Buffer.byteLength(mapText) : 0,
  nodeOptions,
  runs: RUNS,
  bareNodeMsMedian: Math.round(bareMs),
  asDeployed: summarise(deployed),
  ...(alternative !== undefined
    ? { alternative: { nodeOptions: alternative, ...summarise(alternativeSamples) } }
    : {}),
  settingsValidated: summarise(validatedSamples),
  largestPackages: packages.slice(0, 8),
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
await writeSection(result);

/**
 * Bytes of the bundle by the package (or our own top-level folder) their code came from: each
 * source-map segment's generated span is credited to its source. The banner and esbuild's own
 * helpers map to no source and are left out.
 */
function bytesByPackage(code: string, mapJson: string): { name: string; bytes: number }[] {
  const map = JSON.parse(mapJson) as { sources: string[]; mappings: string };
  const owner = map.sources.map((source) => {
    const inModules = source.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    if (inModules?.[1]) return inModules[1];
    // The project's own code by layer, and the adapters by adapter (lambda/adapters/kube).
    const own = source.match(/(?:^|\/)(lambda|sim|infra|cli)\/(?:(adapters\/[^/]+|[^/]+)\/)?/);
    return own ? [own[1], own[2]].filter(Boolean).join('/') : source;
  });
  const totals = new Map<string, number>();
  const lines = code.split('\n');
  const groups = map.mappings.split(';');
  let source = 0;
  groups.forEach((group, lineIndex) => {
    const lineLength = lines[lineIndex]?.length ?? 0;
    let column = 0;
    const segments = group === '' ? [] : group.split(',').map(decodeVlq);
    segments.forEach((segment, i) => {
      column += segment[0] ?? 0;
      if (segment.length >= 4) source += segment[1] ?? 0;
      const next = segments[i + 1];
      const end = next ? column + (next[0] ?? 0) : lineLength;
      if (segment.length >= 4) {
        const name = owner[source] ?? '?';
        totals.set(name, (totals.get(name) ?? 0) + (end - column));
      }
    });
  });
  return [...totals].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}

function decodeVlq(segment: string): number[] {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = alphabet.indexOf(char);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
    } else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

async function writeSection(r: typeof result): Promise<void> {
  const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;
  const row = (label: string, s: ReturnType<typeof summarise>) =>
    `| ${label} | ${s.importMsMedian} ms | ${s.importMsMin}–${s.importMsMax} ms | ${s.importCpuMsMedian} ms | ${s.ratioToBareNode}× | ${s.rssAfterImportMB} MB |`;
  await rewriteSection([
    `## The bundled handler (cold start, ${new Date().toISOString().slice(0, 10)})`,
    '',
    `\`npm run bench:cold-start\` (bench/cold-start.ts): the handler bundled by \`cdk synth\` exactly as the stack bundles it, imported in a fresh Node ${process.version} process, ${r.runs} runs, medians. Import = module load, configuration reading (the settings as \`cdk synth\` validated them, which the cluster file vouches for; the last row: the same settings written otherwise, validated with the schemas), AWS and Kubernetes client construction, no AWS call. The machine is shared and noisy: compare the ratio to a bare \`node -e ''\` process timed in the same rounds (median ${r.bareNodeMsMedian} ms this run). Lambda's ARM64 CPUs will differ.`,
    '',
    `Bundle ${mb(r.bundleBytes)} (+ ${mb(r.sourceMapBytes)} source map). Largest parts: ${r.largestPackages.map((p) => `${p.name} ${Math.round(p.bytes / 1000)} kB`).join(', ')}.`,
    '',
    '| NODE_OPTIONS | import (median) | min–max | its CPU (median) | ÷ bare node | RSS after import |',
    '|---|---:|---:|---:|---:|---:|',
    row(r.nodeOptions ? `\`${r.nodeOptions}\` (as deployed)` : 'none (as deployed)', r.asDeployed),
    ...(r.alternative
      ? [
          row(
            r.alternative.nodeOptions ? `\`${r.alternative.nodeOptions}\`` : 'none',
            r.alternative,
          ),
        ]
      : []),
    row(
      `${r.nodeOptions ? `\`${r.nodeOptions}\`` : 'none'}, settings changed since synth (validated)`,
      r.settingsValidated,
    ),
    '',
  ]);
}
