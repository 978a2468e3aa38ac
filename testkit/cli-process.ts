/** The `lease-watchdog` command as a process: the compiled bin, on the Node the project brings. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = new URL('..', import.meta.url).pathname;
export const NODE = join(ROOT, 'node_modules', '.bin', 'node');
export const BIN = join(ROOT, 'bin', 'lease-watchdog.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the command with `args` (and extra environment); resolves with its exit code and output. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      NODE,
      [BIN, ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
