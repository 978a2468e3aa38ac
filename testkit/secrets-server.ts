/**
 * A tiny AWS Secrets Manager endpoint on 127.0.0.1 and a random port, speaking the AWS JSON 1.1
 * protocol the real `@aws-sdk/client-secrets-manager` uses: POST /, `X-Amz-Target:
 * secretsmanager.GetSecretValue`, body `{"SecretId": ..., "VersionId"?: ...}`. It counts the calls
 * (cache tests) and can deny access to a secret. Each `put` is a new version, as PutSecretValue
 * makes one: it becomes AWSCURRENT, the one before AWSPREVIOUS, and every version stays readable
 * by its VersionId. Never AWS.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { localClientConfig, readBody, sendJson, serveOnLoopback } from './aws-endpoint.js';

export interface SecretsServer {
  readonly url: string;
  /** A real client pointed at this server (fake static credentials, us-east-1). */
  readonly client: SecretsManagerClient;
  /** GetSecretValue calls, all secrets. */
  readonly calls: number;
  /** GetSecretValue calls for one secret id. */
  callsFor(secretId: string): number;
  /** A new version of the secret (AWSCURRENT), the one before it AWSPREVIOUS. */
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

/** What the test scripts: the secrets, and how each is answered. */
interface SecretsScript {
  /** Each secret's versions, oldest first: the last is AWSCURRENT. */
  readonly secrets: Map<string, { readonly id: string; readonly value: string }[]>;
  readonly denied: Set<string>;
  readonly hanging: Set<string>;
  readonly unavailable: Map<string, 'throttle' | '5xx'>;
}

/** GetSecretValue of `secretId`, as scripted (nothing: the request hangs). */
function getSecretValue(
  res: ServerResponse,
  { secretId, versionId }: { secretId: string; versionId?: string | undefined },
  script: SecretsScript,
): void {
  if (script.hanging.has(secretId)) return;
  const how = script.unavailable.get(secretId);
  if (how === 'throttle') {
    sendJson(res, 400, { __type: 'ThrottlingException', message: 'Rate exceeded' });
  } else if (how === '5xx') {
    sendJson(res, 500, { __type: 'InternalServiceError', message: 'An error occurred' });
  } else if (script.denied.has(secretId)) {
    sendJson(res, 400, {
      __type: 'AccessDeniedException',
      Message: `User: arn:aws:sts::123456789012:assumed-role/watchdog/fn is not authorized to perform: secretsmanager:GetSecretValue on resource: ${secretId}`,
    });
  } else {
    const versions = script.secrets.get(secretId) ?? [];
    const at =
      versionId === undefined ? versions.length - 1 : versions.findIndex((v) => v.id === versionId);
    const version = versions[at];
    if (version === undefined) {
      sendJson(res, 400, {
        __type: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
      });
    } else {
      const stages = [
        at === versions.length - 1 ? 'AWSCURRENT' : at === versions.length - 2 ? 'AWSPREVIOUS' : '',
      ];
      sendJson(res, 200, {
        ...(secretValue(secretId, version.value) as object),
        VersionId: version.id,
        VersionStages: stages.filter(Boolean),
      });
    }
  }
}

/** The VersionId of a secret's `n`th version (a UUID, as Secrets Manager's). */
const versionId = (n: number) => `${String(n).padStart(8, '0')}-89ab-cdef-0123-456789abcdef`;

/** The answer for a secret found: its ARN (made up for a plain name), name and value. */
function secretValue(secretId: string, value: string): unknown {
  const name = secretId.startsWith('arn:') ? (secretId.split(':')[6] ?? secretId) : secretId;
  return {
    ARN: secretId.startsWith('arn:')
      ? secretId
      : `arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}-AbCdEf`,
    Name: name,
    SecretString: value,
    VersionId: '01234567-89ab-cdef-0123-456789abcdef',
    VersionStages: ['AWSCURRENT'],
    CreatedDate: 1_700_000_000,
  };
}

/** A JSON 1.1 request: GetSecretValue, counted (`count`) before it is answered. */
async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  script: SecretsScript,
  count: (secretId: string) => void,
): Promise<void> {
  const { body } = await readBody(req);
  if (req.method !== 'POST' || req.headers['x-amz-target'] !== TARGET) {
    sendJson(res, 400, {
      __type: 'InvalidRequestException',
      message: `unsupported: ${req.method} ${String(req.headers['x-amz-target'])}`,
    });
    return;
  }
  const { SecretId: secretId, VersionId: versionId } = JSON.parse(body.toString('utf8')) as {
    SecretId?: string;
    VersionId?: string;
  };
  count(String(secretId));
  if (typeof secretId !== 'string') {
    sendJson(res, 400, { __type: 'InvalidParameterException', message: 'SecretId is required' });
  } else getSecretValue(res, { secretId, versionId }, script);
}

export async function startSecretsServer(
  initial: Readonly<Record<string, string>> = {},
): Promise<SecretsServer> {
  const script: SecretsScript = {
    secrets: new Map(
      Object.entries(initial).map(([id, value]) => [id, [{ id: versionId(1), value }]]),
    ),
    denied: new Set(),
    hanging: new Set(),
    unavailable: new Map(),
  };
  const counts = new Map<string, number>();
  let calls = 0;

  const endpoint = await serveOnLoopback(
    (req, res) =>
      answer(req, res, script, (secretId) => {
        calls += 1;
        counts.set(secretId, (counts.get(secretId) ?? 0) + 1);
      }),
    (res, error) => sendJson(res, 500, { __type: 'InternalServiceError', message: String(error) }),
  );
  const client = new SecretsManagerClient(localClientConfig(endpoint.url));

  return {
    url: endpoint.url,
    client,
    get calls() {
      return calls;
    },
    callsFor: (secretId) => counts.get(secretId) ?? 0,
    put: (secretId, value) => {
      const versions = script.secrets.get(secretId) ?? [];
      versions.push({ id: versionId(versions.length + 1), value });
      script.secrets.set(secretId, versions);
    },
    deny: (secretId) => {
      script.denied.add(secretId);
    },
    hang: (secretId) => {
      script.hanging.add(secretId);
    },
    unavailable: (secretId, how) => {
      if (how === null) script.unavailable.delete(secretId);
      else script.unavailable.set(secretId, how);
    },
    close: async () => {
      client.destroy();
      await endpoint.close();
    },
  };
}
