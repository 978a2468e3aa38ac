/**
 * `npm run bench`: the cost of one check against the simulated cluster over HTTPS, at several
 * cluster sizes, and `kubectl get leases -o json` on the same server for comparison.
 *
 * For each size: a simulated cluster in its own process; the watchdog's check (bundled like the
 * Lambda, in a fresh process, so its peak RSS is its own) run R times for the full check (leases
 * + nodes + evaluate) and for the lease list alone; kubectl R times. Medians, since the machine
 * is shared and noisy. Results go to stdout and docs/BENCHMARKS.md.
 *
 *   BENCH_SIZES=1000,5000 BENCH_RUNS=5 npm run bench
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = new URL('..', import.meta.url).pathname;
const NODE = process.execPath;
const SIZES = (process.env.BENCH_SIZES ?? '1000,5000,20000,100000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

interface Subject {
  times: number[];
  /** CPU time of the watchdog's process per check, ms. */
  cpu: number[];
  requests: number;
  bytes: number;
  nodes: number;
  maxRssBytes: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: ROOT, env, maxBuffer: 1 << 30 }, (error, stdout, stderr) => {
      if (error)
        reject(new Error(`${command} ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

async function startSim(nodes: number, kubeconfig: string): Promise<ChildProcess> {
  const child = spawn(
    NODE,
    ['--import', 'tsx', 'sim/main.ts', '--nodes', String(nodes), '--kubeconfig', kubeconfig],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Press Ctrl-C')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`sim exited with ${code}`)));
  });
  return child;
}

async function kubectl(kubeconfig: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run('kubectl', [
      '--kubeconfig',
      kubeconfig,
      'get',
      'leases',
      '-n',
      'kube-node-lease',
      '-o',
      'json',
    ]);
    times.push(performance.now() - started);
  }
  return times;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-bench-'));
const subject = join(dir, 'check-once.mjs');
await build({
  entryPoints: [join(ROOT, 'bench/check-once.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  outfile: subject,
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
let kubectlVersion = 'not installed';
try {
  kubectlVersion =
    (await run('kubectl', ['version', '--client', '-o', 'json'])).match(
      /"gitVersion":\s*"([^"]+)"/,
    )?.[1] ?? '?';
} catch {
  // kubectl missing: its columns say so.
}

const rows: string[] = [];
for (const nodes of SIZES) {
  const kubeconfig = join(dir, `kubeconfig-${nodes}`);
  process.stderr.write(`bench: ${nodes} nodes: starting the simulated cluster\n`);
  const sim = await startSim(nodes, kubeconfig);
  try {
    process.stderr.write(`bench: ${nodes} nodes: ${RUNS} full checks\n`);
    const full = JSON.parse(
      await run(NODE, [
        subject,
        '--kubeconfig',
        kubeconfig,
        '--runs',
        String(RUNS),
        '--mode',
        'full',
      ]),
    ) as Subject;
    process.stderr.write(`bench: ${nodes} nodes: ${RUNS} lease-only reads\n`);
    const leases = JSON.parse(
      await run(NODE, [
        subject,
        '--kubeconfig',
        kubeconfig,
        '--runs',
        String(RUNS),
        '--mode',
        'leases',
      ]),
    ) as Subject;
    let kubectlMedian: number | undefined;
    if (kubectlVersion !== 'not installed') {
      process.stderr.write(`bench: ${nodes} nodes: ${RUNS} kubectl lease lists\n`);
      kubectlMedian = median(await kubectl(kubeconfig));
    }
    const row = [
      nodes.toLocaleString('en-US'),
      s(median(full.times)),
      `${s(Math.min(...full.times))}–${s(Math.max(...full.times))}`,
      s(median(full.cpu)),
      mb(full.maxRssBytes),
      `${mb(full.bytes)} / ${full.requests}`,
      s(median(leases.times)),
      mb(leases.maxRssBytes),
      kubectlMedian === undefined ? 'n/a' : s(kubectlMedian),
      kubectlMedian === undefined ? 'n/a' : `${(kubectlMedian / median(leases.times)).toFixed(1)}×`,
    ];
    rows.push(`| ${row.join(' | ')} |`);
    process.stdout.write(`${row.join('  ')}\n`);
  } finally {
    sim.kill('SIGINT');
  }
}
await rm(dir, { recursive: true, force: true });

const header = [
  '| nodes | full check (median) | min–max | its CPU (median) | peak RSS | bytes / requests | lease list (median) | its peak RSS | kubectl get leases -o json (median) | kubectl ÷ lease list |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];
const section = [
  `## Check cost against the simulated cluster (${new Date().toISOString().slice(0, 10)})`,
  '',
  `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${mb(totalmem())} memory, shared and noisy; Node ${process.version}; kubectl ${kubectlVersion}. ${RUNS} runs per size, medians. The simulated API server runs in its own process on the same machine (it competes for the same 2 cores).`,
  '',
  ...header,
  ...rows,
  '',
  'Produced by `npm run bench` (bench/run.ts).',
  '',
];
const file = join(ROOT, 'docs/BENCHMARKS.md');
let existing = '';
try {
  existing = await readFile(file, 'utf8');
} catch {
  existing = '# Benchmarks\n\n';
}
const marker = '<!-- bench:check -->';
const start = existing.indexOf(marker);
const end = existing.indexOf(marker, start + 1);
const generated = `${marker}\n${section.join('\n')}${marker}`;
const next =
  start >= 0 && end > start
    ? `${existing.slice(0, start)}${generated}${existing.slice(end + marker.length)}`
    : `${existing.trimEnd()}\n\n${generated}\n`;
await writeFile(file, next);
process.stderr.write('bench: wrote docs/BENCHMARKS.md\n');
