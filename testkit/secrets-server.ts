/**
 * A tiny AWS Secrets Manager endpoint on 127.0.0.1 and a random port, speaking the AWS JSON 1.1
 * protocol the real `@aws-sdk/client-secrets-manager` uses: POST /, `X-Amz-Target:
 * secretsmanager.GetSecretValue`, body `{"SecretId": ...}`. It counts the calls (cache tests) and
 * can deny access to a secret. Never AWS.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { listenOnLoopback } from './ports.js';

export interface SecretsServer {
  readonly url: string;
  /** A real client pointed at this server (fake static credentials, us-east-1). */
  readonly client: SecretsManagerClient;
  /** GetSecretValue calls, all secrets. */
  readonly calls: number;
  /** GetSecretValue calls for one secret id. */
  callsFor(secretId: string): number;
  put(secretId: string, value: string): void;
  /** Answer AccessDeniedException for this secret. */
  deny(secretId: string): void;
  /** Never answer for this secret (the request hangs until the client gives up). */
  hang(secretId: string): void;
  /** Answer ThrottlingException (400) or InternalServiceError (500) for this secret; null: answer again. */
  unavailable(secretId: string, how: 'throttle' | '5xx' | null): void;
  close(): Promise<void>;
}

const TARGET = 'secretsmanager.GetSecretValue';

export async function startSecretsServer(
  initial: Readonly<Record<string, string>> = {},
): Promise<SecretsServer> {
  const secrets = new Map(Object.entries(initial));
  const denied = new Set<string>();
  const hanging = new Set<string>();
  const unavailable = new Map<string, 'throttle' | '5xx'>();
  const counts = new Map<string, number>();
  let calls = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      answer(res, 500, { __type: 'InternalServiceError', message: String(error) });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (req.method !== 'POST' || req.headers['x-amz-target'] !== TARGET) {
      answer(res, 400, {
        __type: 'InvalidRequestException',
        message: `unsupported: ${req.method} ${String(req.headers['x-amz-target'])}`,
      });
      return;
    }
    const { SecretId: secretId } = JSON.parse(body) as { SecretId?: string };
    calls += 1;
    counts.set(String(secretId), (counts.get(String(secretId)) ?? 0) + 1);
    if (typeof secretId !== 'string') {
      answer(res, 400, { __type: 'InvalidParameterException', message: 'SecretId is required' });
      return;
    }
    if (hanging.has(secretId)) return;
    const how = unavailable.get(secretId);
    if (how === 'throttle') {
      answer(res, 400, { __type: 'ThrottlingException', message: 'Rate exceeded' });
      return;
    }
    if (how === '5xx') {
      answer(res, 500, { __type: 'InternalServiceError', message: 'An error occurred' });
      return;
    }
    if (denied.has(secretId)) {
      answer(res, 400, {
        __type: 'AccessDeniedException',
        Message: `User: arn:aws:sts::123456789012:assumed-role/watchdog/fn is not authorized to perform: secretsmanager:GetSecretValue on resource: ${secretId}`,
      });
      return;
    }
    const value = secrets.get(secretId);
    if (value === undefined) {
      answer(res, 400, {
        __type: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
      });
      return;
    }
    const name = secretId.startsWith('arn:') ? (secretId.split(':')[6] ?? secretId) : secretId;
    answer(res, 200, {
      ARN: secretId.startsWith('arn:')
        ? secretId
        : `arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}-AbCdEf`,
      Name: name,
      SecretString: value,
      VersionId: '01234567-89ab-cdef-0123-456789abcdef',
      VersionStages: ['AWSCURRENT'],
      CreatedDate: 1_700_000_000,
    });
  }

  const url = await listenOnLoopback(server);
  const client = new SecretsManagerClient({
    region: 'us-east-1',
    endpoint: url,
    credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' },
    maxAttempts: 1,
  });

  return {
    url,
    client,
    get calls() {
      return calls;
    },
    callsFor: (secretId) => counts.get(secretId) ?? 0,
    put: (secretId, value) => {
      secrets.set(secretId, value);
    },
    deny: (secretId) => {
      denied.add(secretId);
    },
    hang: (secretId) => {
      hanging.add(secretId);
    },
    unavailable: (secretId, how) => {
      if (how === null) unavailable.delete(secretId);
      else unavailable.set(secretId, how);
    },
    close: async () => {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': 'local-request',
  });
  res.end(text);
}
