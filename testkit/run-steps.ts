/**
 * `npm test`'s steps before the tests, side by side: each argument is a chain of npm scripts run
 * one after the other (`build+bundle`), and the chains run at once. On the 2-core machine CI runs on,
 * lint + typecheck (one core) beside build + bundle (the other) take ~45 s where the four in a row
 * took ~85 s. No chain reads what another writes: typecheck emits nothing and imports nothing from
 * dist/; lint ignores dist/ (.gitignore); bundle follows build, which empties dist/ first.
 *
 *   node --import tsx testkit/run-steps.ts lint+typecheck build+bundle
 *
 * Each chain's output is printed whole when it ends (no interleaved lines); the exit status is the
 * first failed chain's, after every chain has ended.
 */
import { runCollected } from './collected-run.js';

interface Ended {
  readonly chain: string;
  readonly code: number;
  readonly output: string;
  readonly seconds: number;
}

/** The chain's scripts in order, stopping at the first that fails. */
async function chain(spec: string): Promise<Ended> {
  let code = 0;
  let output = '';
  let seconds = 0;
  for (const name of spec.split('+')) {
    const run = await runCollected('npm', ['run', name]);
    ({ code } = run);
    output += run.output;
    seconds += run.seconds;
    if (code !== 0) break;
  }
  return { chain: spec, code, output, seconds };
}

const chains = process.argv.slice(2);
if (chains.length === 0 || chains.some((spec) => spec.split('+').some((name) => name === ''))) {
  process.stderr.write('usage: run-steps.ts <script[+script…]> … (e.g. lint+typecheck build)\n');
  process.exit(2);
}
const ended = await Promise.all(
  chains.map((spec) =>
    chain(spec).then((result) => {
      process.stdout.write(result.output);
      process.stdout.write(
        `── ${result.chain}: ${result.code === 0 ? 'ok' : `exit ${result.code}`} after ${result.seconds.toFixed(0)} s ──\n`,
      );
      return result;
    }),
  ),
);
process.exitCode = ended.find((result) => result.code !== 0)?.code ?? 0;
