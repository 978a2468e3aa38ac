/**
 * One HTTP exchange with the API server: the connection built from `@kubernetes/client-node`'s
 * authentication (kubeconfig users: tokens, client certificates, exec plugins, OIDC) and TLS
 * settings, a GET, and its body received within a byte cap and decompressed. What the body means
 * (JSON, lists, pages) is `transport.ts`'s business; this file only fetches bytes.
 *
 * Node's own `https` with a keep-alive Agent, not undici: undici is 740 kB of the Lambda bundle
 * (a third of it) and of its import time, for one GET at a time (docs/BENCHMARKS.md, cold start).
 * The bundle aliases `undici` away (infra/watchdog-function.ts); nothing here may reach it.
 */

import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import { finished } from 'node:stream';
import { ClusterReadError, type KubeConfigView } from '../../../ports/index.js';
import { record } from '../decode/projection.js';
import { GzipInflater } from './gzip-inflater.js';
import { nodeHttp } from './node-http.js';
import { proxyOf, tunnelThrough, withoutProxy } from './proxy-tunnel.js';
import { authSetupError } from './read-errors.js';

/** Credentials and the connection pool of one read: every request of the read shares them. */
export interface Connection {
  readonly headers: Record<string, string>;
  readonly agent: HttpsAgent | HttpAgent;
  /**
   * Every credential the connection holds, as it could be echoed back (the token, the Basic
   * header and its password, the client key, the proxy password): never to leave the process.
   */
  readonly secrets: readonly string[];
  /**
   * The inflaters of the connection's gzip answers, each a reused buffer (gzip-inflater.ts): a
   * request takes one for its answer and gives it back once its body is read (`withInflater`), so
   * that two requests in flight (the leases and the Nodes side by side) never share one.
   */
  readonly inflaters: GzipInflater[];
}

/**
 * Runs `use` with an inflater of `connection`'s all to itself: the body `exchange` returns through
 * it stays whole until `use` is over (parse it there), however many requests are in flight.
 */
export async function withInflater<T>(
  connection: Connection,
  use: (inflater: GzipInflater) => Promise<T>,
): Promise<T> {
  const inflater = connection.inflaters.pop() ?? new GzipInflater();
  try {
    return await use(inflater);
  } finally {
    connection.inflaters.push(inflater);
  }
}

/** What one GET is, and how much of an answer it accepts. */
export interface ExchangeRequest {
  /** The whole URL: the server, the path and the query. */
  readonly url: string;
  /** The Accept header, when not plain JSON. */
  readonly accept?: string | undefined;
  readonly signal: AbortSignal;
  /** Bytes of the body, after decompression, above which the answer is given up. */
  readonly maxBytes: number;
  /** The read, as messages name it ("listing leases in kube-node-lease"). */
  readonly what: string;
}

/** An answer: its status, the headers a reader uses, and its decompressed body. */
export interface ExchangeResponse {
  readonly status: number;
  readonly contentType: string | undefined;
  /** The API server's clock (its Date header), ms. */
  readonly date: number | undefined;
  /**
   * A gzip body shares the connection's reused buffer (GzipInflater): valid until its next
   * answer is read, so it is parsed (or copied) before anything is awaited.
   */
  readonly body: Buffer;
  /** Bytes of the body, decompressed. */
  readonly bytes: number;
}

/**
 * Loads Node's TLS now, ahead of the first connection: loading `node:tls` starts reading the root
 * certificates (Node's bundled ones and NODE_EXTRA_CA_CERTS) on another thread, and the first
 * secure context waits for that thread even when the kubeconfig gives its own CA (Node builds its
 * root store before adding a CA). Called before the kubeconfig is read, the thread runs meanwhile
 * (docs/BENCHMARKS.md). The trust of each connection is unchanged: the kubeconfig's CA alone.
 */
export function loadTlsEarly(): void {
  process.getBuiltinModule('node:tls');
}

/** What a connection is opened to, and how. */
export interface ConnectionOptions {
  /** The API server URL, without a trailing slash. */
  readonly server: string;
  /** Timeout of each request, ms: bounds a proxy's CONNECT too. */
  readonly timeoutMs: number;
  /** Quote a failing exec credential plugin's stderr in the error (it can hold credentials). */
  readonly showPluginStderr?: boolean | undefined;
  /**
   * One socket for every request: those in flight wait for it, in turn (one TLS handshake; see
   * KubeReaderOptions).
   */
  readonly oneConnection?: boolean | undefined;
}

/**
 * Credentials and TLS settings from the kubeconfig (runs an exec plugin when it has one, reads
 * certificate and token files, refreshes OIDC tokens: all client-node's `applyToHTTPSOptions`),
 * and a keep-alive connection pool of our own that carries them.
 */
export async function openConnection(
  kubeConfig: KubeConfigView,
  options: ConnectionOptions,
): Promise<Connection> {
  const proxy = proxyOf(kubeConfig, options.server);
  const applied: RequestOptions = {};
  try {
    await withoutProxy(kubeConfig).applyToHTTPSOptions(applied);
  } catch (error) {
    throw authSetupError(error, kubeConfig, options.showPluginStderr);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(applied.headers ?? {})) {
    if (value !== undefined) headers[name] = String(value);
  }
  // A kubeconfig user with username/password: client-node leaves it as `auth` (user:pass).
  if (applied.auth) headers.Authorization = `Basic ${Buffer.from(applied.auth).toString('base64')}`;
  // gzip explicitly: kube-apiserver compresses answers over 128 KiB for clients that accept it,
  // ~10× fewer bytes on the wire for a list.
  headers.Accept = 'application/json';
  headers['Accept-Encoding'] = 'gzip';
  // Keep-alive as client-go: one TLS handshake per read, TCP keep-alive probes after 30 s idle.
  const pool = {
    keepAlive: true,
    keepAliveMsecs: 30_000,
    ...(options.oneConnection ? { maxSockets: 1 } : {}),
  };
  const secrets = credentialsIn(headers, applied, proxy?.secrets ?? []);
  if (new URL(options.server).protocol === 'http:') {
    // Only with insecure-skip-tls-verify (client-node refuses plain http otherwise): the CLI's.
    return { headers, agent: new (nodeHttp().Agent)(pool), secrets, inflaters: [] };
  }
  const cluster = kubeConfig.getCurrentCluster();
  const Pool = proxy ? tunnelThrough(proxy, options.timeoutMs) : HttpsAgent;
  return {
    headers,
    secrets,
    inflaters: [],
    agent: new Pool({
      ...pool,
      ...defined({
        ca: applied.ca,
        cert: applied.cert,
        key: applied.key,
        pfx: applied.pfx,
        passphrase: applied.passphrase,
        servername: applied.servername,
      }),
      // Explicit, never left unset: Node would take an unset one from NODE_TLS_REJECT_UNAUTHORIZED,
      // so a `0` in the environment would accept any certificate and send the token to it.
      // client-node sets it (false) only for insecure-skip-tls-verify.
      rejectUnauthorized: applied.rejectUnauthorized ?? cluster?.skipTLSVerify !== true,
    }),
  };
}

/**
 * The credentials of a connection, each as it may come back in an answer: a header value whole
 * and after its scheme (the bearer token, the Basic base64), a Basic user:password and password,
 * the client key's PEM and each of its lines.
 */
function credentialsIn(
  headers: Readonly<Record<string, string>>,
  applied: RequestOptions,
  proxySecrets: readonly string[],
): string[] {
  const found = new Set<string>(proxySecrets);
  const authorization = headers.Authorization ?? headers.authorization;
  if (authorization) {
    found.add(authorization);
    const credential = authorization.replace(/^\S+\s+/, '');
    found.add(credential);
    if (/^basic\s/i.test(authorization)) {
      const userPass = Buffer.from(credential, 'base64').toString('utf8');
      found.add(userPass);
      found.add(userPass.slice(userPass.indexOf(':') + 1));
    }
  }
  for (const key of [applied.key].flat()) {
    if (key === undefined) continue;
    const pem = Buffer.isBuffer(key) ? key.toString('utf8') : typeof key === 'string' ? key : '';
    found.add(pem.trim());
    for (const line of pem.split('\n')) if (!line.startsWith('-----')) found.add(line.trim());
  }
  // A few characters would redact ordinary words: a credential is longer than that.
  return [...found].filter((secret) => secret.length >= 6);
}

/** Closes the connection pool (no idle sockets left behind) and frees its inflaters. */
export function closeConnection(connection: Connection): void {
  connection.agent.destroy();
  for (const inflater of connection.inflaters.splice(0)) inflater.close();
}

/**
 * GETs `request.url`. Rejects with a ClusterReadError when the body is over the cap or in an
 * encoding it cannot read; with the transport's own error when there is no answer (the caller
 * words that one: it knows which timeout struck).
 */
export async function exchange(
  connection: Connection,
  request: ExchangeRequest,
  inflater: GzipInflater,
): Promise<ExchangeResponse> {
  const response = await send(connection, request);
  const status = response.statusCode ?? 0;
  const body = await boundedBody(response, status, request, inflater);
  const dateHeader = headerOf(response.headers, 'date');
  const date = dateHeader ? Date.parse(dateHeader) : Number.NaN;
  return {
    status,
    contentType: headerOf(response.headers, 'content-type'),
    date: Number.isNaN(date) ? undefined : date,
    body,
    bytes: body.byteLength,
  };
}

/** The GET, up to the response's head; its body is still to be read. */
function send(connection: Connection, request: ExchangeRequest): Promise<IncomingMessage> {
  const url = new URL(request.url);
  const get = url.protocol === 'http:' ? nodeHttp().request : httpsRequest;
  const { signal } = request;
  return new Promise((resolve, reject) => {
    signal.throwIfAborted();
    // Node reports an abort only once the pool hands the request a socket, and a proxy that
    // never answers CONNECT never does: the signal ends the wait itself, in every phase.
    const abandon = () => {
      outgoing.destroy();
      reject(signal.reason);
    };
    const outgoing = get(
      url,
      {
        method: 'GET',
        agent: connection.agent,
        headers: request.accept
          ? { ...connection.headers, Accept: request.accept }
          : connection.headers,
        // Aborting destroys the request, and with it a response whose body is still coming.
        signal,
      },
      (response) => {
        signal.removeEventListener('abort', abandon);
        resolve(response);
      },
    );
    signal.addEventListener('abort', abandon, { once: true });
    outgoing.on('error', (error) => {
      signal.removeEventListener('abort', abandon);
      reject(error);
    });
    outgoing.end();
  });
}

/**
 * The body, read chunk by chunk and given up as soon as it is over the cap: a huge answer costs
 * at most the cap in memory, never the whole of it. A gzip answer is inflated in one call once it
 * has arrived (its compressed bytes are under the cap too), its output stopped at the cap: one
 * call per page is far cheaper than a stream of 16 KiB chunks, and it goes into the connection's
 * reused buffer (gzip-inflater.ts).
 */
async function boundedBody(
  response: IncomingMessage,
  status: number,
  request: ExchangeRequest,
  inflater: GzipInflater,
): Promise<Buffer> {
  const { what, maxBytes: cap } = request;
  const tooLarge = () =>
    new ClusterReadError(
      'invalid-response',
      `the API server's answer to ${what} is over ${capText(cap)} (the most one page may have): read given up`,
      status,
    );
  const { headers } = response;
  try {
    const encoding = headerOf(headers, 'content-encoding')?.trim().toLowerCase() || 'identity';
    // Only gzip is asked for (as kube-apiserver and kubectl do), and a server may not answer in an
    // encoding it was not offered: anything else ends the read.
    const gzip = encoding === 'gzip' || encoding === 'x-gzip';
    if (!gzip && encoding !== 'identity') {
      throw new ClusterReadError(
        'invalid-response',
        `the API server's answer to ${what} is encoded as "${encoding.slice(0, 40)}", not gzip or plain (HTTP ${status}): read given up`,
        status,
      );
    }
    const declared = Number(headerOf(headers, 'content-length'));
    if (declared > cap) throw tooLarge();
    const { chunks, received } = await chunksOf(response, cap, tooLarge);
    // Aborted between two chunks: the stream may have ended quietly; the body is not whole.
    request.signal.throwIfAborted();
    const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received);
    if (!gzip) return raw;
    try {
      return inflater.inflate(raw, cap, outputChunk(raw, cap));
    } catch (error) {
      if (record(error).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
      throw new ClusterReadError(
        'invalid-response',
        `the API server's answer to ${what} is not valid ${encoding} (HTTP ${status}): read given up`,
        status,
      );
    }
  } finally {
    // Given up early (over the cap, aborted): close the stream, and with it the connection.
    if (!response.readableEnded) response.on('error', () => undefined).destroy();
  }
}

/**
 * The body's chunks as they arrive, given up as soon as they are over `cap`; it fails as
 * `for await` over the response would (its error, or ERR_STREAM_PREMATURE_CLOSE when it closes
 * before its end). Listeners, not an async iterator: the iterator's machinery is compiled on
 * first use, a few milliseconds of every command's first answer.
 */
function chunksOf(
  response: IncomingMessage,
  cap: number,
  tooLarge: () => Error,
): Promise<{ chunks: Buffer[]; received: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.byteLength;
      if (received <= cap) {
        chunks.push(chunk);
        return;
      }
      response.off('data', onData);
      reject(tooLarge());
    };
    response.on('data', onData);
    finished(response, (error) => (error ? reject(error) : resolve({ chunks, received })));
  });
}

/** `options` without its undefined entries (an undefined `ca` must not replace the default). */
function defined<T extends Record<string, unknown>>(options: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(options).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

/** Output buffer of one inflate step: a page is megabytes, zlib's default is 16 KiB. */
const INFLATE_CHUNK = 1024 * 1024;

/**
 * One output buffer the size gzip's trailer announces (ISIZE, the length mod 2^32), one byte
 * more so that zlib never asks for a second: no concatenated copy of the page. A trailer that
 * lies costs only more chunks, or one buffer of at most the cap.
 */
function outputChunk(raw: Buffer, cap: number): number {
  if (raw.length < 18) return INFLATE_CHUNK;
  const announced = raw.readUInt32LE(raw.length - 4);
  // Smaller than its compressed bytes: a lie, another member, or incompressible (rare).
  if (announced < raw.length) return INFLATE_CHUNK;
  return Math.min(announced + 1, cap + 1);
}

/** A response header as one string (the first, if it came more than once). */
function headerOf(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  name: string,
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** 64 MiB, 1.5 KiB, 300 bytes. */
function capText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}
