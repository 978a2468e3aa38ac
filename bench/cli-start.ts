/**
 * How fast the installed command answers, beside kubectl doing the same: `--version`,
 * `check` of a simulated cluster (kubectl: `get leases -n kube-node-lease`), `silence list` of a
 * state file (kubectl: `config view`, its own local read), and the error paths (an unreachable
 * server, a token the server refuses, a server certificate no CA vouches for). Each command runs
 * in fresh processes, ours and kubectl's alternating, `runs` times (default 7: the machine is
 * shared); medians go to docs/BENCHMARKS.md (testkit/cli-start-section.ts renders them).
 *
 *   npm run bench:cli-start [-- runs]      (builds first: the command runs from dist/)
 *
 * BENCH_CLI_BIN=path/to/bin/lease-watchdog.js times another build of the command (another
 * worktree's, to compare before and after in the same session): printed, not written to the docs.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimCluster } from '../sim/cluster.js';
import { startSimServer } from '../sim/server.js';
import {
  CLI_START_HEADING,
  type CliStartRow,
  ratioOf,
  renderCliStart,
} from '../testkit/cli-start-section.js';
import { benchmarksSection } from './benchmarks-section.js';
import { median } from './statistics.js';

const ROOT = new URL('..', import.meta.url).pathname;
const OTHER_BIN = process.env.BENCH_CLI_BIN;
const BIN = OTHER_BIN ?? join(ROOT, 'bin', 'lease-watchdog.js');
const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
const RUNS = Number(process.argv[2] ?? 7);
const NODES = 12;

const rewriteSection = await benchmarksSection(CLI_START_HEADING);

/** Runs `file args` to its end (any exit status); resolves with its wall time in ms and stdout. */
function timed(file: string, args: readonly string[]): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 60_000, env: { ...process.env } }, (_error, stdout) =>
      resolve({ ms: performance.now() - started, stdout }),
    );
  });
}

const ours = (args: readonly string[]) => timed(process.execPath, [BIN, ...args]);
const kubectl = (args: readonly string[]) => timed(KUBECTL, args);

const work = await mkdtemp(join(tmpdir(), 'bench-cli-start-'));
const cluster = new SimCluster({ seed: 7 });
cluster.addNodes(NODES);
const server = await startSimServer({ cluster });
const good = join(work, 'kubeconfig');
await server.writeKubeconfig(good);
const unauthorized = join(work, 'unauthorized');
await server.writeKubeconfig(unauthorized, { token: 'not-the-servers-token-0123456789' });
const wrongCa = join(work, 'wrong-ca');
await server.writeKubeconfig(wrongCa, { withCa: false });
const unreachable = join(work, 'unreachable');
const text = await readFile(good, 'utf8');
await writeFile(unreachable, text.replace(server.url, 'https://127.0.0.1:1'));
const stateFile = join(work, 'state.json');

const leases = ['get', 'leases', '-n', 'kube-node-lease'];
interface Pair {
  readonly what: string;
  readonly ours: string[];
  readonly kubectl: string[];
  readonly config?: string;
}
const pairs = (
  [
    { what: `check, ${NODES} nodes`, ours: ['check'], kubectl: leases },
    {
      what: 'silence list (a local file)',
      ours: ['silence', 'list', '--state-file', stateFile],
      kubectl: ['config', 'view'],
    },
    { what: 'unreachable server', ours: ['check'], kubectl: leases, config: unreachable },
    { what: '401 Unauthorized', ours: ['check'], kubectl: leases, config: unauthorized },
    { what: 'wrong CA', ours: ['check'], kubectl: leases, config: wrongCa },
  ] satisfies Pair[] as Pair[]
).map(({ config = good, ...pair }) => ({
  what: pair.what,
  ours: [...pair.ours, '--kubeconfig', config],
  kubectl: ['--kubeconfig', config, ...pair.kubectl],
}));

const bare: number[] = [];
const version: number[] = [];
const samples = pairs.map(() => ({ ours: [] as number[], kubectl: [] as number[] }));
for (let run = 0; run < RUNS; run++) {
  bare.push((await timed(process.execPath, ['-e', ''])).ms);
  version.push((await ours(['--version'])).ms);
  for (const [i, pair] of pairs.entries()) {
    const sample = samples[i] as (typeof samples)[number];
    // Alternating which goes first, so that neither always follows the other's warm caches.
    if (run % 2 === 0) {
      sample.ours.push((await ours(pair.ours)).ms);
      sample.kubectl.push((await kubectl(pair.kubectl)).ms);
    } else {
      sample.kubectl.push((await kubectl(pair.kubectl)).ms);
      sample.ours.push((await ours(pair.ours)).ms);
    }
  }
}
const kubectlVersion =
  /Client Version: (v[\w.+-]+)/.exec((await kubectl(['version', '--client'])).stdout)?.[1] ??
  'unknown';
await server.close();
await rm(work, { recursive: true, force: true });

const rows: CliStartRow[] = pairs.map((pair, i) => ({
  what: pair.what,
  ours: `lease-watchdog ${pair.ours.slice(0, pair.ours.indexOf('--kubeconfig')).join(' ')}`
    .replace(stateFile, 'F')
    .trim(),
  kubectl: `kubectl ${pair.kubectl.slice(2).join(' ')}`,
  oursMs: median(samples[i]?.ours ?? []),
  kubectlMs: median(samples[i]?.kubectl ?? []),
}));
const result = {
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  kubectlVersion,
  runs: RUNS,
  nodes: NODES,
  bareNodeMs: median(bare),
  versionMs: median(version),
  rows,
};
if (OTHER_BIN === undefined) await rewriteSection(renderCliStart(result));
else console.log(`${OTHER_BIN}: not written to docs/BENCHMARKS.md`);
for (const row of rows) {
  console.log(
    `${row.what.padEnd(28)} ours ${row.oursMs.toFixed(0).padStart(5)} ms  kubectl ${row.kubectlMs.toFixed(0).padStart(5)} ms  ${ratioOf(row).toFixed(2)}×`,
  );
}
console.log(
  `--version ${result.versionMs.toFixed(0)} ms; bare node ${result.bareNodeMs.toFixed(0)} ms`,
);
