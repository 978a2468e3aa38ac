/**
 * A real Alertmanager for the Alertmanager receiver's tests: Debian's `prometheus-alertmanager`
 * (0.25) started on a free loopback port with a minimal configuration (one route, grouping each
 * node on its own and flushing every second, to a webhook receiver whose notifications are
 * recorded here, resolved ones included), basic auth on its web server (`--web.config.file`), its
 * own temporary storage, no clustering. Where the binary is absent, ALERTMANAGER_MISSING says so
 * and the tests skip with it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const BINARY = (process.env.PATH ?? '')
  .split(delimiter)
  .map((dir) => join(dir, 'prometheus-alertmanager'))
  .find((path) => existsSync(path));

/** Why the tests that need Alertmanager skip, or false when it is installed. */
export const ALERTMANAGER_MISSING: string | false = BINARY
  ? false
  : 'prometheus-alertmanager is not installed: apt-get install prometheus-alertmanager';

/** The basic-auth user and password the Alertmanager's web server asks for. */
export const ALERTMANAGER_USER = 'watchdog';
export const ALERTMANAGER_PASSWORD = 'am-test-password';
/** bcrypt (cost 4) of ALERTMANAGER_PASSWORD, as `basic_auth_users` wants it. */
const PASSWORD_HASH = '$2b$04$/1hBVrEacRHogieomZP1MeamcKlgH8/sxmrP4JaQqzfXoKbo1PT9m';

/** An alert as `GET /api/v2/alerts` lists it (`gettableAlert`), the fields the tests read. */
export interface GettableAlert {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly fingerprint: string;
  readonly status: { readonly state: string };
}

/** An alert of a webhook notification: `firing` or `resolved`, and its labels. */
export interface NotifiedAlert {
  readonly status: string;
  readonly labels: Record<string, string>;
}

export interface Alertmanager {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `GET /api/v2/alerts`: the alerts it holds that have not ended. */
  alerts(): Promise<GettableAlert[]>;
  /** The alerts of the notifications it sent its webhook receiver, in order. */
  readonly notified: NotifiedAlert[];
  /** Stops the process (SIGSTOP): it takes connections and answers nothing, until `resume`. */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

const config = (webhook: string) => `route:
  receiver: recorder
  group_by: [alertname, cluster, node]
  group_wait: 0s
  group_interval: 1s
receivers:
  - name: recorder
    webhook_configs:
      - url: ${webhook}
        send_resolved: true
`;

/** The webhook receiver: records the alerts of each notification. */
async function startRecorder(notified: NotifiedAlert[]) {
  const server = createHttpServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += String(chunk);
    });
    request.on('end', () => {
      notified.push(...((JSON.parse(body) as { alerts: NotifiedAlert[] }).alerts ?? []));
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/`, close: () => server.close() };
}

export async function startAlertmanager(): Promise<Alertmanager> {
  if (!BINARY) throw new Error(String(ALERTMANAGER_MISSING));
  const dir = await mkdtemp(join(tmpdir(), 'lw-alertmanager-'));
  const notified: NotifiedAlert[] = [];
  const recorder = await startRecorder(notified);
  await writeFile(join(dir, 'alertmanager.yml'), config(recorder.url));
  await writeFile(
    join(dir, 'web.yml'),
    `basic_auth_users:\n  ${ALERTMANAGER_USER}: '${PASSWORD_HASH}'\n`,
  );
  const port = await freePort();
  const child = spawn(
    BINARY,
    [
      `--config.file=${join(dir, 'alertmanager.yml')}`,
      `--web.config.file=${join(dir, 'web.yml')}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr = (stderr + String(chunk)).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const auth = `Basic ${Buffer.from(`${ALERTMANAGER_USER}:${ALERTMANAGER_PASSWORD}`).toString('base64')}`;
  const get = (path: string) => fetch(`${url}${path}`, { headers: { Authorization: auth } });
  const close = async () => {
    await stop(child);
    recorder.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await ready(
      () => get('/-/ready'),
      child,
      () => stderr,
    );
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url,
    async alerts() {
      const response = await get('/api/v2/alerts');
      if (!response.ok) throw new Error(`GET /api/v2/alerts answered ${response.status}`);
      return (await response.json()) as GettableAlert[];
    },
    notified,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    close,
  };
}

/** A port free on loopback now (Alertmanager takes it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Waits (10 s at most) until `/-/ready` answers 200; throws with its log if it exits or never does. */
async function ready(
  probe: () => Promise<Response>,
  child: ChildProcess,
  log: () => string,
): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`alertmanager exited: ${log()}`);
    const ok = await probe().then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`alertmanager not ready after 10 s: ${log()}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGCONT'); // a paused one ends only once it runs again
  child.kill('SIGTERM');
  await exited;
}
