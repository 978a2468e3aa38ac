/**
 * The deployed bundle in a process of its own (testkit/bundle-runtime.ts: plain Node, no tsx, as
 * Lambda runs it), started with the function's environment and invoked one event at a time at
 * the fake clock's moment. What the bundle's tests and `npm run bench:function` drive.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RUNTIME = fileURLToPath(new URL('./bundle-runtime.ts', import.meta.url));

export type Memory = Record<'before' | 'after', NodeJS.MemoryUsage>;

/** What one invocation answered: its report or its error, and its own peak RSS (Linux). */
export type Invoked<R> =
  | { readonly report: R; readonly maxRssBytes?: number; readonly memory: Memory }
  | { readonly error: string; readonly maxRssBytes?: number };

export interface BundleProcess<R> {
  /** Invokes the handler with `event` at epoch ms `now`; rejects when the process exits first. */
  invoke(event: unknown, now: number): Promise<Invoked<R>>;
  /** What the process wrote to stdout and stderr so far (the last `keepBytes` of it). */
  output(): string;
  kill(): void;
}

export interface BundleProcessOptions {
  readonly cwd: string;
  /** The whole environment of the process (it inherits nothing), LW_TEST_NOW included. */
  readonly env: Record<string, string>;
  /** How much of the output to keep (default all of it). */
  readonly keepBytes?: number;
}

/** Starts the bundle's process and resolves once it has imported the bundle (the cold start). */
export async function startBundleProcess<R>(
  bundle: string,
  { cwd, env, keepBytes = Number.POSITIVE_INFINITY }: BundleProcessOptions,
): Promise<BundleProcess<R>> {
  const child = fork(RUNTIME, [bundle], {
    cwd,
    execArgv: [],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env,
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-keepBytes);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      const exited = (code: number | null) =>
        reject(new Error(`the bundle's process exited (${code}):\n${output}`));
      child.once('exit', exited);
      child.once('message', (message: T) => {
        child.off('exit', exited);
        resolve(message);
      });
    });
  await next<{ ready: true }>();
  let runs = 0;
  return {
    invoke(event, now) {
      const answer = next<Invoked<R>>();
      child.send({ now, event, requestId: `run-${++runs}` });
      return answer;
    },
    output: () => output,
    kill: () => child.kill(),
  };
}
