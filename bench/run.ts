/**
 * `npm run bench`: the cost of one check against the simulated cluster over HTTPS, at several
 * cluster sizes, and `kubectl get leases -o json` on the same server for comparison.
 *
 * For each size: a simulated cluster in its own process; the watchdog's check (bundled like the
 * Lambda, in a fresh process with a 512 MB Lambda's heap limits, so its peak RSS is its own) run
 * R times as a relisting check (leases + whole nodes + evaluate) and as a steady-state one (warm
 * node cache); JSON.parse of the relist's lists read as JSON (the floor), R times; kubectl R times
 * (BENCH_KUBECTL=0 skips it). Medians, since the machine is shared and noisy. Results go to
 * stdout and docs/BENCHMARKS.md.
 *
 *   BENCH_SIZES=1000,5000 BENCH_RUNS=5 npm run bench
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { handlerAliases } from '../infra/watchdog-function.js';
import { heapOptionsFor, MALLOC_TUNABLES } from '../lambda/settings/function-memory.js';
import { benchmarksSection } from './benchmarks-section.js';
import { median } from './statistics.js';

const ROOT = new URL('..', import.meta.url).pathname;
const NODE = process.execPath;
const SIZES = (process.env.BENCH_SIZES ?? '1000,5000,20000,100000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const rewriteSection = await benchmarksSection('## Check cost against the simulated cluster');

interface Subject {
  times: number[];
  /** --floor: JSON.parse of the pages of one read, ms, per run. */
  floor?: number[];
  floorCpu?: number[];
  /** RSS sampled during the timed checks alone. */
  sampledPeakRssBytes?: number;
  /** Steady: the timed checks' maximum RSS, the high-water mark reset after the warm-up (Linux). */
  timedPeakRssBytes?: number;
  /** CPU time of the watchdog's process per check, ms. */
  cpu: number[];
  requests: number;
  bytes: number;
  nodes: number;
  maxRssBytes: number;
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
// Built as the function's code is (watchdog-function.ts): minified, with the same packages left
// out. Unminified, the subject held its 3.2 MB source as a 6.2 MB string (comments keep non-ASCII
// text) and loaded undici: ~10 MB of RSS the function never has.
await build({
  entryPoints: [join(ROOT, 'bench/check-once.ts')],
  bundle: true,
  minify: true,
  alias: handlerAliases(),
  platform: 'node',
  format: 'esm',
  target: 'node24',
  outfile: subject,
  banner: {
    // Its own name for createRequire: a bundled module imports `createRequire` itself.
    js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);",
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

/**
 * The heap of a 512 MB function as the stack deploys it: the NODE_OPTIONS it sets
 * (lambda/settings/function-memory.ts), and the --expose-gc Lambda's runtime adds. Without them
 * V8 sizes its heap for this machine's memory instead.
 */
const LAMBDA_MB = 512;
const LAMBDA_HEAP = [...heapOptionsFor(LAMBDA_MB), '--expose-gc'];
/** And glibc's malloc as the stack sets it (GLIBC_TUNABLES, function-memory.ts). */
const LAMBDA_ENV = { ...process.env, GLIBC_TUNABLES: MALLOC_TUNABLES };

/** CPU time the process has used so far (Linux), ms; undefined elsewhere. */
async function cpuOf(pid: number | undefined): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** The subject, and the simulated server's CPU per check while it ran. */
async function subjectRun(
  sim: ChildProcess,
  kubeconfig: string,
  mode: string,
  checks: number,
  floor = false,
): Promise<Subject & { simCpu: number | undefined }> {
  const before = await cpuOf(sim.pid);
  const out = await run(
    NODE,
    [
      ...LAMBDA_HEAP,
      subject,
      '--kubeconfig',
      kubeconfig,
      '--runs',
      String(RUNS),
      '--mode',
      mode,
      ...(floor ? ['--floor'] : []),
    ],
    LAMBDA_ENV,
  );
  const after = await cpuOf(sim.pid);
  const simCpu =
    before === undefined || after === undefined ? undefined : (after - before) / checks;
  return { ...(JSON.parse(out) as Subject), simCpu };
}

const rows: string[] = [];
for (const nodes of SIZES) {
  const kubeconfig = join(dir, `kubeconfig-${nodes}`);
  process.stderr.write(`bench: ${nodes} nodes: starting the simulated cluster\n`);
  const sim = await startSim(nodes, kubeconfig);
  try {
    process.stderr.write(`bench: ${nodes} nodes: ${RUNS} relisting checks\n`);
    const relist = await subjectRun(sim, kubeconfig, 'relist', RUNS);
    process.stderr.write(`bench: ${nodes} nodes: JSON.parse of the same pages, ${RUNS} times\n`);
    const floor = await subjectRun(sim, kubeconfig, 'relist', 1, true);
    process.stderr.write(`bench: ${nodes} nodes: ${RUNS} steady-state checks\n`);
    // One warm-up relist, then RUNS steady checks.
    const steady = await subjectRun(sim, kubeconfig, 'steady', RUNS + 1);
    let kubectlMedian: number | undefined;
    if (kubectlVersion !== 'not installed' && process.env.BENCH_KUBECTL !== '0') {
      process.stderr.write(`bench: ${nodes} nodes: ${RUNS} kubectl lease lists\n`);
      kubectlMedian = median(await kubectl(kubeconfig));
    }
    const floorMedian = median(floor.floor ?? []);
    const floorCpu = median(floor.floorCpu ?? []);
    const ratio = (ms: number, of: number) => `${(ms / of).toFixed(1)}×`;
    const simCpu = (ms: number | undefined) => (ms === undefined ? 'n/a' : s(ms));
    const row = [
      nodes.toLocaleString('en-US'),
      s(median(relist.times)),
      `${s(Math.min(...relist.times))}–${s(Math.max(...relist.times))}`,
      s(median(relist.cpu)),
      `${s(floorMedian)} / ${s(floorCpu)}`,
      `${ratio(median(relist.times), floorMedian)} / ${ratio(median(relist.cpu), floorCpu)}`,
      simCpu(relist.simCpu),
      mb(relist.maxRssBytes),
      `${mb(relist.bytes)} / ${relist.requests}`,
      s(median(steady.times)),
      s(median(steady.cpu)),
      mb(steady.timedPeakRssBytes ?? steady.sampledPeakRssBytes ?? steady.maxRssBytes),
      `${mb(steady.bytes)} / ${steady.requests}`,
      kubectlMedian === undefined ? 'n/a' : s(kubectlMedian),
    ];
    rows.push(`| ${row.join(' | ')} |`);
    process.stdout.write(`${row.join('  ')}\n`);
    // Written after every size: a run cut short (a size the machine cannot finish) keeps the rest.
    await writeSection(rows);
  } finally {
    sim.kill('SIGINT');
  }
}
await rm(dir, { recursive: true, force: true });
process.stderr.write('bench: wrote docs/BENCHMARKS.md\n');

/** The generated section of docs/BENCHMARKS.md, with the rows measured so far. */
async function writeSection(rows: readonly string[]): Promise<void> {
  const header = [
    '| nodes | relist check (median) | min–max | its CPU (median) | JSON.parse of its lists as JSON, the floor (wall / CPU) | relist ÷ floor (wall / CPU) | sim CPU per relist | peak RSS | bytes / requests | steady check (median) | its CPU | its peak RSS | bytes / requests | kubectl get leases -o json (median) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const section = [
    `## Check cost against the simulated cluster (${new Date().toISOString().slice(0, 10)})`,
    '',
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${mb(totalmem())} memory, shared and noisy; Node ${process.version}; kubectl ${kubectlVersion}. ${RUNS} runs per size, medians. The watchdog runs bundled, a fresh process per row, with a ${LAMBDA_MB} MB function's heap (\`${LAMBDA_HEAP.join(' ')}\`). The simulated API server shares the cores ("sim CPU": its CPU per check).`,
    '',
    '- **relist**: lists the Leases and every whole Node (in protobuf, as kube-apiserver serves them). The floor is `JSON.parse` of the same lists as JSON, timed alone: on a loaded machine compare CPU with CPU. Bytes before gzip.',
    "- **steady**: a warm node cache (`nodeRefreshSeconds`): lists the Leases and the Table of Nodes, GETs only the nodes they single out. Peak RSS: the kernel's high-water mark over the steady checks alone.",
    '',
    ...header,
    ...rows,
    '',
    'Produced by `npm run bench` (bench/run.ts).',
  ];
  await rewriteSection(section);
}
