/**
 * The `lease-watchdog` command in process: `run(argv, io)` with the streams captured, the
 * environment given (nothing of `process.env`), and optionally a fake clock (its `now` and its
 * `sleep`, so `watch --interval 10` takes no real time) and AWS clients pointed at local servers.
 * Resolves to the same `{ code, stdout, stderr }` as the process (testkit/cli-process.ts), each
 * line ended by a newline as the process writes it, and the lines as written.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import type { AwsClients } from '../cli/io.js';
import { run } from '../cli/main.js';
import type { CliResult } from './cli-process.js';
import type { FakeClock } from './fake-clock.js';

export interface InProcessResult extends CliResult {
  /** Each text the command wrote to stdout, as written (without the newline the process adds). */
  readonly stdoutLines: string[];
  readonly stderrLines: string[];
}

export interface InProcessOptions {
  /** The command's environment. Default: empty. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The command's clock: `now`, and `sleep` for watch's waits (default: a real timer). */
  readonly clock?: { readonly now: FakeClock['now']; readonly sleep?: FakeClock['sleep'] };
  /** Default: the SDK's constructors (see localAws for local servers). */
  readonly aws?: AwsClients;
  /** Ctrl-C: aborting it stops `watch`. Default: never aborted. */
  readonly signal?: AbortSignal;
  /** Called with each text as it is written (e.g. to stop `watch` once it printed something). */
  readonly onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
}

/** Runs the command in this process; resolves with its exit status and what it printed. */
export async function runInProcess(
  argv: readonly string[],
  options: InProcessOptions = {},
): Promise<InProcessResult> {
  const stdoutLines: string[] = [];
  const stderrLines: string[] = [];
  const code = await run(argv, {
    stdout: (text) => {
      stdoutLines.push(text);
      options.onOutput?.('stdout', text);
    },
    stderr: (text) => {
      stderrLines.push(text);
      options.onOutput?.('stderr', text);
    },
    env: options.env ?? {},
    now: options.clock?.now ?? Date.now,
    sleep: options.clock?.sleep,
    signal: options.signal ?? new AbortController().signal,
    aws: options.aws,
  });
  const printed = (lines: string[]) => lines.map((line) => `${line}\n`).join('');
  return {
    code,
    stdout: printed(stdoutLines),
    stderr: printed(stderrLines),
    stdoutLines,
    stderrLines,
  };
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * The SDK's real clients, pointed at local servers (testkit/sns-server.ts, dynalite or a closed
 * port) with static fake credentials: what AWS_ENDPOINT_URL_SNS / _DYNAMODB and AWS_ACCESS_KEY_ID
 * give a process, without changing this process's environment. A service without an endpoint
 * here is refused, so a test never reaches AWS.
 */
export function localAws(endpoints: {
  readonly sns?: string;
  readonly dynamodb?: string;
}): AwsClients {
  const endpoint = (service: 'sns' | 'dynamodb'): string => {
    const url = endpoints[service];
    if (url === undefined) throw new Error(`localAws: no local endpoint for ${service}`);
    return url;
  };
  return {
    sns: (region) =>
      new SNSClient({ region, endpoint: endpoint('sns'), credentials: LOCAL_CREDENTIALS }),
    dynamodb: (region) =>
      new DynamoDBClient({
        region,
        endpoint: endpoint('dynamodb'),
        credentials: LOCAL_CREDENTIALS,
      }),
  };
}
