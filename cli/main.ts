/**
 * The `lease-watchdog` command: parses the command line, has compose.ts build the parts, runs
 * `check` or `watch`, and maps every expected failure to one line on stderr and exit status 2.
 */

import {
  lockStateFile,
  StateFileLockedError,
} from '../lambda/adapters/state/file/state-file-lock.js';
import { evaluate } from '../lambda/core/evaluate.js';
import { ClusterReadError, SilenceError, StateCorruptError } from '../lambda/ports/index.js';
// What `check` runs is imported here; `silence`, `watch` and `config` (whose schemas are large)
// are imported when run, so a check neither loads nor compiles them. Each dynamic import is a
// chunk of its own beside the command's (infra/cli-bundle.ts): one more file to resolve and link
// for those commands. The AWS SDK and client-node's KubeConfig load only where they are used.
import { type CommonOptions, parseCli, UsageError } from './args.js';
import { composeCheck } from './compose.js';
import { EXIT_ALERTING, EXIT_ERROR, EXIT_OK, type Io } from './io.js';
import { anyAlerting, renderSummary, renderTable, toJson } from './report.js';
import { printableJson, sanitize } from './sanitize.js';
import { version } from './version.js';
import { toYaml } from './yaml.js';

async function check(options: CommonOptions, io: Io): Promise<number> {
  const { reader, policy } = composeCheck(options, io);
  const now = io.now();
  const snapshot = await reader.read(io.signal);
  const evaluation = evaluate(snapshot, new Map(), policy, { now });
  if (evaluation.degraded)
    io.stderr(`lease-watchdog: warning: degraded check: ${sanitize(evaluation.degraded)}`);
  if (options.output === 'json') {
    io.stdout(printableJson(JSON.stringify(toJson(evaluation), null, 2)));
  } else if (options.output === 'yaml') {
    io.stdout(toYaml(toJson(evaluation)));
  } else {
    const table = renderTable(evaluation, {
      wide: options.output === 'wide',
      noHeaders: options.noHeaders,
    });
    if (table !== '') io.stdout(table);
    io.stderr(renderSummary(evaluation));
  }
  if (options.selector !== undefined && evaluation.nodes.length === 0) {
    io.stderr(
      `lease-watchdog: warning: no node matches the selector "${sanitize(options.selector)}"`,
    );
  }
  return anyAlerting(evaluation) ? EXIT_ALERTING : EXIT_OK;
}

/** Runs the command line; resolves to the exit status. Never throws for an expected failure. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  try {
    if (argv[0] === 'silence') {
      const { silence } = await import('./silence.js');
      return await silence(argv.slice(1), io);
    }
    if (argv[0] === 'config') {
      const { config } = await import('./config.js');
      return await config(argv.slice(1), io);
    }
    const command = parseCli(argv);
    switch (command.kind) {
      case 'help':
        io.stdout(command.text);
        return EXIT_OK;
      case 'version':
        // The bin answers `--version` alone itself; in-process runs, and `check --version`, here.
        io.stdout(version());
        return EXIT_OK;
      case 'check':
        return await check(command.options, io);
      case 'watch': {
        const [{ composeWatch }, { watch }] = await Promise.all([
          import('./compose-watch.js'),
          import('./watch.js'),
        ]);
        // One process per state file: a second one is refused (exit 2, one line).
        const { stateFile } = command.options;
        const lock = stateFile === undefined ? undefined : lockStateFile(stateFile);
        try {
          return await watch(command.options, await composeWatch(command.options, io), io);
        } finally {
          lock?.release();
        }
      }
    }
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof ClusterReadError ||
      error instanceof StateCorruptError ||
      error instanceof StateFileLockedError ||
      error instanceof SilenceError
    ) {
      io.stderr(`lease-watchdog: ${sanitize(error.message)}`);
      return EXIT_ERROR;
    }
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    io.stderr(`lease-watchdog: unexpected error: ${sanitize(message ?? '')}`);
    if (io.env.LEASE_WATCHDOG_DEBUG && error instanceof Error) io.stderr(error.stack ?? '');
    return EXIT_ERROR;
  }
}

/**
 * Writes lines to a standard stream. A reader that went away (`check | head -6`: EPIPE) is not an
 * error of the check: later lines are dropped, and the exit status still says what was found.
 */
function lines(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed = true;
  });
  return (text) => {
    if (!closed) stream.write(`${text}\n`);
  };
}

export async function cli(): Promise<void> {
  const controller = new AbortController();
  let interrupted = false;
  process.on('SIGINT', () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    controller.abort();
  });
  process.on('SIGTERM', () => controller.abort());
  process.exitCode = await run(process.argv.slice(2), {
    stdout: lines(process.stdout),
    stderr: lines(process.stderr),
    env: process.env,
    now: Date.now,
    signal: controller.signal,
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await cli();
