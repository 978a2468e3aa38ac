/**
 * A local DynamoDB-compatible server on 127.0.0.1 and a random port, with the state table created
 * through the real client, as the stack defines it. Never AWS. Two implementations:
 * - `dynalite` (in-process, in memory): fast, the suite's default. It is kinder than DynamoDB: it
 *   accepts an empty string as a key attribute value (dynalite issue #164), which DynamoDB refuses.
 * - `moto` (`moto_server`, Python moto 5, a process of its own): applies DynamoDB's documented
 *   validation of keys and expressions. Every request shape the project sends also runs on it
 *   (`MOTO_SKIP` skips those tests, visibly, where moto_server is not installed).
 * `LEASE_WATCHDOG_TEST_DYNAMODB=moto` runs every test that asks for the default on moto instead.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get as httpGet, type Server } from 'node:http';
import { Agent, get as httpsGet } from 'node:https';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { generateSimPki } from '../sim/pki.js';
import { closedPort, listenOnLoopback } from './ports.js';

interface DynaliteOptions {
  readonly createTableMs?: number;
  readonly deleteTableMs?: number;
  readonly updateTableMs?: number;
  readonly maxItemSizeKb?: number;
}

// dynalite is CommonJS without type declarations: load it through require, typed here.
const dynalite = createRequire(import.meta.url)('dynalite') as (options: DynaliteOptions) => Server;

export type DynamoDbKind = 'dynalite' | 'moto';

/** Whether moto_server is on this machine's PATH. */
export const MOTO_INSTALLED =
  spawnSync('sh', ['-c', 'command -v moto_server'], { stdio: 'ignore' }).status === 0;
/** The `skip` option of a test that needs moto_server: false where it is installed. */
export const MOTO_SKIP: string | false = MOTO_INSTALLED
  ? false
  : 'moto_server is not installed: DynamoDB request shapes not checked against DynamoDB validation';

/** The implementations a request-shape test runs against: dynalite, and moto where installed. */
export const DYNAMODB_KINDS: readonly DynamoDbKind[] = MOTO_INSTALLED
  ? ['dynalite', 'moto']
  : ['dynalite'];

export interface LocalDynamoDb {
  readonly kind: DynamoDbKind;
  readonly endpoint: string;
  /** With `tls`: the file of the CA that signed the server's certificate (NODE_EXTRA_CA_CERTS). */
  readonly caFile?: string;
  /** What a real client of any AWS service moto serves needs to reach it (TLS included). */
  readonly clientConfig: LocalClientConfig;
  /** A real client pointed at the local server (fake static credentials, us-east-1). */
  readonly client: DynamoDBClient;
  /** Creates a state table (pk S / sk S, on demand) and waits until it is ACTIVE. */
  createStateTable(tableName: string): Promise<void>;
  stop(): Promise<void>;
}

function defaultKind(): DynamoDbKind {
  return process.env.LEASE_WATCHDOG_TEST_DYNAMODB === 'moto' ? 'moto' : 'dynalite';
}

export interface LocalClientConfig {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  readonly requestHandler?: { httpsAgent: Agent };
}

/**
 * `tls` (moto only): moto serves HTTPS with a certificate of a throwaway CA (sim/pki.ts), so that
 * a queue URL it hands out is `https://`, as SQS's are (the function checks), and the SDK, which
 * sends to a queue URL's own host, reaches moto and never AWS.
 */
export async function startLocalDynamoDb(
  kind: DynamoDbKind = defaultKind(),
  { tls = false }: { tls?: boolean } = {},
): Promise<LocalDynamoDb> {
  const { endpoint, stopServer, caPem, caFile } =
    kind === 'moto' ? await startMoto(tls) : await startDynalite();
  const clientConfig: LocalClientConfig = {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...(caPem === undefined ? {} : { requestHandler: { httpsAgent: new Agent({ ca: caPem }) } }),
  };
  const client = new DynamoDBClient({ ...clientConfig, maxAttempts: 1 });
  return {
    kind,
    endpoint,
    ...(caFile === undefined ? {} : { caFile }),
    clientConfig,
    client,
    createStateTable: (tableName) => createStateTable(client, tableName),
    async stop() {
      client.destroy();
      await stopServer();
    },
  };
}

interface Started {
  readonly endpoint: string;
  readonly caPem?: string;
  readonly caFile?: string;
  stopServer(): Promise<void>;
}

async function startDynalite(): Promise<Started> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const endpoint = await listenOnLoopback(server);
  const stopServer = () =>
    new Promise<void>((resolve, reject) =>
      server.close((error) => (error ? reject(error) : resolve())),
    );
  return { endpoint, stopServer };
}

/** moto_server on a free loopback port, once it answers; killed with this process at the latest. */
async function startMoto(tls: boolean): Promise<Started> {
  if (!MOTO_INSTALLED) throw new Error('moto_server is not installed (pip install "moto[server]")');
  const port = await closedPort();
  const pki = tls ? await generateSimPki() : undefined;
  const dir = pki ? await mkdtemp(join(tmpdir(), 'lease-watchdog-moto-')) : undefined;
  const files = dir
    ? { ca: join(dir, 'ca.pem'), cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') }
    : undefined;
  if (pki && files) {
    await writeFile(files.ca, pki.caPem);
    await writeFile(files.cert, pki.certPem);
    await writeFile(files.key, pki.keyPem);
  }
  const tlsArgs = files ? ['-s', '-c', files.cert, '-k', files.key] : [];
  const child: ChildProcess = spawn(
    'moto_server',
    ['-H', '127.0.0.1', '-p', String(port), ...tlsArgs],
    {
      stdio: 'ignore',
    },
  );
  const kill = () => child.kill();
  process.once('exit', kill);
  const endpoint = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const agent = pki ? new Agent({ ca: pki.caPem }) : undefined;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`moto_server exited (${child.exitCode})`);
    const up = await answers(`${endpoint}/moto-api/`, agent);
    if (up) break;
    if (attempt >= 300) throw new Error('moto_server did not answer within 30 s');
    await sleep(100);
  }
  const stopServer = async () => {
    process.off('exit', kill);
    agent?.destroy();
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  return { endpoint, stopServer, ...(pki && files ? { caPem: pki.caPem, caFile: files.ca } : {}) };
}

/** Whether `url` answers at all (any status). */
function answers(url: string, agent: Agent | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const request = (url.startsWith('https:') ? httpsGet : httpGet)(url, { agent }, (response) => {
      response.resume();
      resolve(true);
    });
    request.on('error', () => resolve(false));
  });
}

async function createStateTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
  // Neither acts on UpdateTimeToLive here: the TTL attribute is written, but never acted on.
  for (let attempt = 0; attempt < 100; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await sleep(10);
  }
  throw new Error(`table ${tableName} did not become ACTIVE`);
}

/** A real client for the local server; no retries unless asked, so tests see every failure. */
export function localClient(endpoint: string, maxAttempts = 1): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts,
  });
}
