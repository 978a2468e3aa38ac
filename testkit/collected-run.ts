/**
 * One child process whose output (stdout and stderr, in the order they came) is kept to be printed
 * whole when it ends: the test runner's shards (run-tests.ts) and `npm test`'s steps (run-steps.ts)
 * run side by side, and their lines must not interleave.
 */
import { spawn } from 'node:child_process';

export interface CollectedRun {
  /** The exit status (1 for a signal or a failure to start). */
  readonly code: number;
  readonly output: string;
  readonly seconds: number;
}

export function runCollected(command: string, args: readonly string[]): Promise<CollectedRun> {
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const end = (code: number) =>
      resolve({
        code,
        output: Buffer.concat(chunks).toString('utf8'),
        seconds: (performance.now() - started) / 1000,
      });
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
    });
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      end(1);
    });
    child.on('close', (code, signal) => end(code ?? (signal ? 1 : 0)));
  });
}
