/** The terminal and environment a command runs in, and what its exit status means. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SNSClient } from '@aws-sdk/client-sns';

/**
 * The AWS SDK clients a command builds, for a region. The real command uses the SDK's own
 * constructors, which take endpoints and credentials from the process's environment; a test run
 * in process hands in clients pointed at local servers instead of changing `process.env`.
 */
export interface AwsClients {
  sns(region: string | undefined): SNSClient;
  dynamodb(region: string | undefined): DynamoDBClient;
}

export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => number;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
  /**
   * Waits `ms` on the command's clock (`watch` between looks); rejects when `signal` aborts.
   * Default: a real timer (`timers/promises`). A test hands in a fake clock's.
   */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Default: the SDK's constructors (endpoints and credentials from the process environment). */
  readonly aws?: AwsClients | undefined;
}

/**
 * The command's AWS clients: the test's (`Io.aws`), else the SDK's, whose module loads now, only
 * for the commands that reach AWS (`watch --sns-topic-arn`, `silence --table`).
 */
export async function awsClients(io: Io): Promise<AwsClients> {
  return io.aws ?? (await import('./sdk-clients.js')).SDK_CLIENTS;
}

export const EXIT_OK = 0;
export const EXIT_ALERTING = 1;
export const EXIT_ERROR = 2;

/** `17:52:14`: the time of day (UTC) of an epoch-ms instant, for `watch` lines. */
export function timeOfDay(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}
