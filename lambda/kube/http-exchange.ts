/**
 * One HTTP exchange with the API server: the connection built from `@kubernetes/client-node`'s
 * authentication (kubeconfig users: tokens, client certificates, exec plugins, OIDC) and TLS
 * settings, a GET, and its body received within a byte cap and decompressed. What the body means
 * (JSON, lists, pages) is `transport.ts`'s business; this file only fetches bytes.
 */

import { brotliDecompressSync, gunzipSync, inflateSync, type ZlibOptions } from 'node:zlib';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { HttpMethod, RequestContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { type Dispatcher, getGlobalDispatcher } from 'undici';
import { ClusterReadError } from '../ports.js';
import { record } from './projection.js';
import { authSetupError } from './read-errors.js';

/** Credentials and the connection pool of one read: every request of the read shares them. */
export interface Connection {
  readonly headers: Record<string, string>;
  readonly dispatcher: Dispatcher | undefined;
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
  readonly body: Buffer;
  /** Bytes of the body, decompressed. */
  readonly bytes: number;
}

/** Credentials and TLS settings from the kubeconfig (runs an exec plugin when it has one). */
export async function openConnection(
  kubeConfig: KubeConfig,
  options: { readonly server: string; readonly showPluginStderr?: boolean | undefined },
): Promise<Connection> {
  const context = new RequestContext(options.server, HttpMethod.GET);
  try {
    await verifyingTls(kubeConfig).applySecurityAuthentication(context);
  } catch (error) {
    throw authSetupError(error, kubeConfig, options.showPluginStderr);
  }
  return {
    // gzip explicitly (not left to undici's default): kube-apiserver compresses answers over
    // 128 KiB for clients that accept it, ~10× fewer bytes on the wire for a list.
    headers: { ...context.getHeaders(), Accept: 'application/json', 'Accept-Encoding': 'gzip' },
    dispatcher: context.getDispatcher() as Dispatcher | undefined,
  };
}

/** Closes the connection pool: no idle sockets left behind. */
export function closeConnection(connection: Connection): void {
  connection.dispatcher?.destroy().catch(() => undefined);
}

/**
 * GETs `request.url`. Rejects with a ClusterReadError when the body is over the cap or in an
 * encoding it cannot read; with the transport's own error when there is no answer (the caller
 * words that one: it knows which timeout struck).
 */
export async function exchange(
  connection: Connection,
  request: ExchangeRequest,
): Promise<ExchangeResponse> {
  // undici's request() with a Node stream body, not fetch(): fetch's web streams, its body
  // mixins and its decompression stream cost several times the JSON.parse of the same pages.
  const url = new URL(request.url);
  const response = await (connection.dispatcher ?? getGlobalDispatcher()).request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: 'GET',
    headers: request.accept
      ? { ...connection.headers, Accept: request.accept }
      : connection.headers,
    signal: request.signal,
  });
  const body = await boundedBody(response, request.what, request.maxBytes);
  const dateHeader = headerOf(response.headers, 'date');
  const date = dateHeader ? Date.parse(dateHeader) : Number.NaN;
  return {
    status: response.statusCode,
    contentType: headerOf(response.headers, 'content-type'),
    date: Number.isNaN(date) ? undefined : date,
    body,
    bytes: body.byteLength,
  };
}

/**
 * The body, read chunk by chunk and given up as soon as it is over the cap: a huge answer costs
 * at most the cap in memory, never the whole of it. A gzip answer is inflated in one call once it
 * has arrived (its compressed bytes are under the cap too), its output stopped at the cap: one
 * call per page is far cheaper than a stream of 16 KiB chunks.
 */
async function boundedBody(
  response: Dispatcher.ResponseData,
  what: string,
  cap: number,
): Promise<Buffer> {
  const tooLarge = () =>
    new ClusterReadError(
      'invalid-response',
      `the API server's answer to ${what} is over ${capText(cap)} (the most one page may have): read given up`,
      response.statusCode,
    );
  const { body, headers } = response;
  try {
    const encoding = headerOf(headers, 'content-encoding')?.trim().toLowerCase() || 'identity';
    const inflate = INFLATERS.get(encoding);
    if (!inflate) {
      throw new ClusterReadError(
        'invalid-response',
        `the API server's answer to ${what} is encoded as "${encoding.slice(0, 40)}", not gzip or plain (HTTP ${response.statusCode}): read given up`,
        response.statusCode,
      );
    }
    const declared = Number(headerOf(headers, 'content-length'));
    if (declared > cap) throw tooLarge();
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      received += chunk.byteLength;
      if (received > cap) throw tooLarge();
      chunks.push(chunk);
    }
    const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received);
    if (inflate === 'identity') return raw;
    try {
      return inflate(raw, { maxOutputLength: cap, chunkSize: outputChunk(raw, encoding, cap) });
    } catch (error) {
      if (record(error).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
      throw new ClusterReadError(
        'invalid-response',
        `the API server's answer to ${what} is not valid ${encoding} (HTTP ${response.statusCode}): read given up`,
        response.statusCode,
      );
    }
  } finally {
    // Given up early (over the cap, aborted): close the stream, and with it the connection.
    // undici reports the destruction as an 'error' event: nobody is listening any more.
    if (!body.readableEnded) body.on('error', () => undefined).destroy();
  }
}

const VERIFYING = Symbol('lease-watchdog: TLS verification explicit');
type DispatcherOptionsOf = KubeConfig['createDispatcherOptions'];

/**
 * `kubeConfig`, with TLS verification explicit on every connection pool client-node builds for
 * it: client-node leaves `rejectUnauthorized` unset unless the kubeconfig says
 * insecure-skip-tls-verify, and Node then takes it from NODE_TLS_REJECT_UNAUTHORIZED — so a `0`
 * in the environment would accept any certificate and send the token to it. Explicit `true`
 * also means a pool of our own when the kubeconfig has no CA (public CAs), never fetch's global one.
 */
function verifyingTls(kubeConfig: KubeConfig): KubeConfig {
  const marked = kubeConfig as KubeConfig & { [VERIFYING]?: true };
  if (marked[VERIFYING]) return kubeConfig;
  const original: DispatcherOptionsOf = kubeConfig.createDispatcherOptions.bind(kubeConfig);
  const explicit: DispatcherOptionsOf = (cluster, agentOptions) =>
    original(cluster, {
      ...agentOptions,
      rejectUnauthorized: agentOptions.rejectUnauthorized ?? cluster?.skipTLSVerify !== true,
    });
  Object.defineProperty(kubeConfig, 'createDispatcherOptions', { value: explicit });
  marked[VERIFYING] = true;
  return kubeConfig;
}

type Inflate = (raw: Buffer, options: ZlibOptions) => Buffer;

/**
 * How each Content-Encoding is read. Only gzip is asked for (as kube-apiserver and kubectl do);
 * deflate and br are read too, since fetch read them before. Anything else ends the read.
 */
const INFLATERS: ReadonlyMap<string, Inflate | 'identity'> = new Map<string, Inflate | 'identity'>([
  ['identity', 'identity'],
  ['gzip', gunzipSync],
  ['x-gzip', gunzipSync],
  ['deflate', inflateSync],
  ['br', brotliDecompressSync as Inflate],
]);

/** Output buffer of one inflate step: a page is megabytes, zlib's default is 16 KiB. */
const INFLATE_CHUNK = 1024 * 1024;

/**
 * One output buffer the size gzip's trailer announces (ISIZE, the length mod 2^32), one byte
 * more so that zlib never asks for a second: no concatenated copy of the page. A trailer that
 * lies costs only more chunks, or one buffer of at most the cap; other encodings: 1 MiB chunks.
 */
function outputChunk(raw: Buffer, encoding: string, cap: number): number {
  if (!encoding.endsWith('gzip') || raw.length < 18) return INFLATE_CHUNK;
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
