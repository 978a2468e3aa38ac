/**
 * How fast the installed command starts: `lease-watchdog --version` and `--help` (compiled, as
 * `npm pack` ships it) against a bare `node -e ''`, median of several runs in fresh processes.
 *
 *   npm run build && node --import tsx bench/cli-start.ts [runs]
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { median } from './statistics.js';

const ROOT = new URL('..', import.meta.url).pathname;
const RUNS = Number(process.argv[2] ?? 15);
const BIN = join(ROOT, 'bin', 'lease-watchdog.js');

function time(args: string[]): number {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = process.hrtime.bigint();
    execFileSync(process.execPath, args, { stdio: 'ignore' });
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(samples);
}

const bare = time(['-e', '']);
const version = time([BIN, '--version']);
const help = time([BIN, '--help']);
console.log(`node ${process.version}, ${RUNS} runs each, median wall time`);
console.log(`  node -e ''                  ${bare.toFixed(0)} ms`);
console.log(
  `  lease-watchdog --version    ${version.toFixed(0)} ms (${(version / bare).toFixed(2)}× bare node)`,
);
console.log(
  `  lease-watchdog --help       ${help.toFixed(0)} ms (${(help / bare).toFixed(2)}× bare node)`,
);
