/**
 * The command's AWS clients: the test's (`Io.aws`), else the SDK's, whose module loads now, only
 * for the commands that reach AWS (`watch --sns-topic-arn`, `silence --table`).
 */
import type { AwsClients, Io } from './io.js';

export async function awsClients(io: Io): Promise<AwsClients> {
  return io.aws ?? (await import('./sdk-clients.js')).SDK_CLIENTS;
}
