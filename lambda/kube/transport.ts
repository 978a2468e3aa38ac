/**
 * One read's conversation with the API server: the connection from `@kubernetes/client-node`'s
 * authentication (kubeconfig users: tokens, client certificates, exec plugins, OIDC) and TLS
 * settings, lists paginated with `limit` + `continue`, and each request bounded by a timeout and
 * the caller's AbortSignal. Bodies are parsed as plain JSON and projected page by page.
 */

import { STATUS_CODES } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync, type ZlibOptions } from 'node:zlib';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { HttpMethod, RequestContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { type Dispatcher, getGlobalDispatcher } from 'undici';
import { ClusterReadError } from '../ports.js';
import { record, str } from './projection.js';
import {
  authSetupError,
  describeRead,
  hostOf,
  invalidAnswerError,
  type ReadTarget,
  type Resource,
  statusError,
  transportError,
} from './read-errors.js';

export interface SessionOptions {
  /** The API server URL, without a trailing slash. */
  readonly server: string;
  /** The lease namespace (for messages). */
  readonly namespace: string;
  /** Items per list request. */
  readonly pageSize: number;
  /** Timeout of each request, ms. */
  readonly timeoutMs: number;
  /** Bounds of the whole read (see READ_BOUNDS). */
  readonly bounds: ReadBounds;
  /** Quote a failing exec credential plugin's stderr in the error (it can hold credentials). */
  readonly showPluginStderr?: boolean | undefined;
}

/** How much one read may take from the API server before it is given up as a read failure. */
export interface ReadBounds {
  /** Bytes of one answer's body (after decompression). */
  readonly maxPageBytes: number;
  /** Pages of one list. */
  readonly maxPages: number;
  /** The whole read (every page of every list, and the node GETs), ms. */
  readonly budgetMs: number;
}

/**
 * The defaults. A hostile or broken server (a proxy, an aggregated API, a bug) must not hold the
 * watchdog forever or fill its memory: today's worst seen were one continue token repeated
 * 58,800 times in 20 s and two 600 MB pages (2.7 GB resident, then ERR_STRING_TOO_LONG).
 */
export const READ_BOUNDS: ReadBounds = {
  // A page holds 500 objects (the page size); a Node is 5-40 KB of JSON (its image list is most of
  // it), so 500 Nodes are at most ~20 MB. 64 MiB leaves 3x headroom and keeps a page's bytes and
  // its parsed copy well inside a 512 MB Lambda.
  maxPageBytes: 64 * 1024 * 1024,
  // 1,000 pages of 500 are 500,000 objects: 50 times the largest supported cluster (5,000 nodes
  // upstream; EKS and GKE stop below 100,000). More pages than that is a server that never ends.
  maxPages: 1_000,
  // Two minutes for every page of both lists: a 100,000-node cluster lists its leases and nodes
  // in well under a minute; the Lambda's own deadline (the caller's signal) may cut it shorter.
  budgetMs: 120_000,
};

/** Requests made and response bytes read, over the whole read. */
export interface ReadStats {
  requests: number;
  bytes: number;
}

/** Every item of a list, and the API server's clock as of its first page. */
export interface Listed<T> {
  readonly items: T[];
  readonly date: number | undefined;
  /** Items received, before projection (a Table's rows). */
  readonly received?: number | undefined;
  /** Items the first page announced (its items + `remainingItemCount`), when it did. */
  readonly announced?: number | undefined;
}

/**
 * How a list is asked for and read: by default the resource's own list (`LeaseList`,
 * `NodeList`, with `items`); a server-side Table has `kind: Table` and `rows`.
 */
export interface ListFormat {
  readonly accept: string;
  readonly kind: string;
  readonly items: 'items' | 'rows';
  /** Items per page, as a multiple of the session's page size (small items: bigger pages). */
  readonly pageScale?: number;
}

interface Connection {
  readonly headers: Record<string, string>;
  readonly dispatcher: Dispatcher | undefined;
}

interface Page<T> {
  readonly items: T[];
  readonly next: string | undefined;
  readonly date: number | undefined;
  readonly bytes: number;
  readonly received: number;
  readonly remaining: number | undefined;
}

/** What each list answers with, by `kind`. */
const LIST_KINDS: Readonly<Record<Resource, string>> = {
  leases: 'LeaseList',
  nodes: 'NodeList',
  events: 'EventList',
};

interface Answer {
  /** The parsed JSON body; undefined when the object does not exist (404, with `missingIsNull`). */
  readonly body: unknown;
  readonly date: number | undefined;
  readonly bytes: number;
}

/**
 * One connection pool for every request of a read (client-node builds a new one per call): a TLS
 * handshake per read, not per page, and no idle sockets left behind once closed.
 */
export class ApiSession {
  readonly stats: ReadStats = { requests: 0, bytes: 0 };
  private readonly target: ReadTarget;
  /** Aborts when the whole read's budget is spent (created when the session opens). */
  private readonly budget: AbortSignal;

  private constructor(
    private readonly connection: Connection,
    private readonly options: SessionOptions,
  ) {
    this.target = { host: hostOf(options.server), namespace: options.namespace };
    this.budget = AbortSignal.timeout(options.bounds.budgetMs);
  }

  /** Credentials and TLS settings from the kubeconfig (runs an exec plugin when it has one). */
  static async open(kubeConfig: KubeConfig, options: SessionOptions): Promise<ApiSession> {
    const context = new RequestContext(options.server, HttpMethod.GET);
    try {
      await verifyingTls(kubeConfig).applySecurityAuthentication(context);
    } catch (error) {
      throw authSetupError(error, kubeConfig, options.showPluginStderr);
    }
    const connection = {
      // gzip explicitly (not left to undici's default): kube-apiserver compresses answers over
      // 128 KiB for clients that accept it, ~10× fewer bytes on the wire for a list.
      headers: { ...context.getHeaders(), Accept: 'application/json', 'Accept-Encoding': 'gzip' },
      dispatcher: context.getDispatcher() as Dispatcher | undefined,
    };
    return new ApiSession(connection, options);
  }

  close(): void {
    this.connection.dispatcher?.destroy().catch(() => undefined);
  }

  /**
   * Lists every page of `path`, keeping what `project` makes of each item (given the page's
   * body too: a Table's rows need its column definitions).
   */
  async list<T>(
    resource: Resource,
    path: string,
    project: (item: unknown, page: Record<string, unknown>) => T | undefined,
    signal: AbortSignal | undefined,
    /** More query parameters of every page (`labelSelector`). */
    params: Readonly<Record<string, string>> = {},
    format?: ListFormat,
  ): Promise<Listed<T>> {
    const items: T[] = [];
    const seen = new Set<string>();
    let date: number | undefined;
    let next: string | undefined;
    let pages = 0;
    let received = 0;
    let announced: number | undefined;
    do {
      const page: Page<T> = await this.page(resource, path, next, project, signal, params, format);
      this.stats.requests++;
      this.stats.bytes += page.bytes;
      if (pages === 0 && page.remaining !== undefined) announced = page.received + page.remaining;
      pages++;
      received += page.received;
      date ??= page.date;
      for (const item of page.items) items.push(item);
      next = page.next;
      if (next) this.checkContinue(resource, next, seen, pages);
    } while (next);
    return { items, date, received, announced };
  }

  /** A continue token seen before (repeated or cycling), or one page too many, ends the read. */
  private checkContinue(resource: Resource, next: string, seen: Set<string>, pages: number): void {
    const what = describeRead(resource, this.options.namespace);
    if (seen.has(next)) {
      throw new ClusterReadError(
        'invalid-response',
        `the API server's answer to ${what} repeats a continue token after ${pages} pages: the list never ends, read given up`,
        200,
      );
    }
    if (pages >= this.options.bounds.maxPages) {
      throw new ClusterReadError(
        'invalid-response',
        `the API server's answer to ${what} is still going after ${pages} pages (the most a list may have): read given up`,
        200,
      );
    }
    seen.add(next);
  }

  /** GETs one Node; undefined when it does not exist (404). */
  async getNode(
    name: string,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown> | undefined> {
    const path = `/api/v1/nodes/${encodeURIComponent(name)}`;
    const answer = await this.request('nodes', path, signal, { missingIsNull: true });
    this.stats.requests++;
    this.stats.bytes += answer.bytes;
    if (answer.body === undefined) return undefined;
    return ofKind(answer.body, 'Node', `reading node ${name}`);
  }

  private async page<T>(
    resource: Resource,
    path: string,
    continueToken: string | undefined,
    project: (item: unknown, page: Record<string, unknown>) => T | undefined,
    signal: AbortSignal | undefined,
    params: Readonly<Record<string, string>>,
    format: ListFormat | undefined,
  ): Promise<Page<T>> {
    const limit = this.options.pageSize * (format?.pageScale ?? 1);
    const query = new URLSearchParams({ ...params, limit: String(limit) });
    if (continueToken) query.set('continue', continueToken);
    const answer = await this.request(resource, `${path}?${query}`, signal, {
      accept: format?.accept,
    });
    const what = describeRead(resource, this.options.namespace);
    const kind = format?.kind ?? LIST_KINDS[resource];
    const body = ofKind(answer.body, kind, what);
    const field = body[format?.items ?? 'items'];
    // An empty list may come as `items: null`; anything else that is not an array is no list.
    if (field != null && !Array.isArray(field)) throw invalidAnswerError(what, kind, body);
    const list: unknown[] = Array.isArray(field) ? field : [];
    const items: T[] = [];
    for (const raw of list) {
      const item = project(raw, body);
      if (item !== undefined) items.push(item);
    }
    const remaining = record(body.metadata).remainingItemCount;
    return {
      items,
      next: str(record(body.metadata).continue) || undefined,
      date: answer.date,
      bytes: answer.bytes,
      received: list.length,
      remaining: typeof remaining === 'number' ? remaining : undefined,
    };
  }

  /** GET `pathAndQuery`; `body` is undefined when it does not exist (404, with `missingIsNull`). */
  private async request(
    resource: Resource,
    pathAndQuery: string,
    signal: AbortSignal | undefined,
    options: { missingIsNull?: boolean; accept?: string | undefined } = {},
  ): Promise<Answer> {
    const what = describeRead(resource, this.options.namespace);
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const combined = AbortSignal.any(
      signal ? [signal, timeout, this.budget] : [timeout, this.budget],
    );
    try {
      // undici's request() with a Node stream body, not fetch(): fetch's web streams, its body
      // mixins and its decompression stream cost several times the JSON.parse of the same pages.
      const url = new URL(`${this.options.server}${pathAndQuery}`);
      const response = await (this.connection.dispatcher ?? getGlobalDispatcher()).request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: options.accept
          ? { ...this.connection.headers, Accept: options.accept }
          : this.connection.headers,
        signal: combined,
      });
      const status = response.statusCode;
      const { text, bytes } = await this.boundedText(response, what);
      if (status === 404 && options.missingIsNull)
        return { body: undefined, date: undefined, bytes };
      if (status < 200 || status > 299)
        throw statusError(this.target, resource, status, STATUS_CODES[status] ?? '', text);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        const type = headerOf(response.headers, 'content-type')?.split(';')[0];
        throw new ClusterReadError(
          'invalid-response',
          `the API server's answer to ${what} is not JSON (HTTP ${status}${type ? `, ${type}` : ''})`,
        );
      }
      const dateHeader = headerOf(response.headers, 'date');
      const date = dateHeader ? Date.parse(dateHeader) : Number.NaN;
      return { body, date: Number.isNaN(date) ? undefined : date, bytes };
    } catch (error) {
      if (error instanceof ClusterReadError) throw error;
      throw this.unanswered(what, error, signal, timeout);
    }
  }

  /**
   * The body as text, read chunk by chunk and given up as soon as it is over the page cap: a
   * huge answer costs at most the cap in memory, never the whole of it. A gzip answer is
   * inflated in one call once it has arrived (its compressed bytes are under the cap too), its
   * output stopped at the cap: one call per page is far cheaper than a stream of 16 KiB chunks.
   */
  private async boundedText(
    response: Dispatcher.ResponseData,
    what: string,
  ): Promise<{ text: string; bytes: number }> {
    const cap = this.options.bounds.maxPageBytes;
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
      let decoded = raw;
      if (inflate !== 'identity') {
        try {
          decoded = inflate(raw, { maxOutputLength: cap, chunkSize: INFLATE_CHUNK });
        } catch (error) {
          if (record(error).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
          throw new ClusterReadError(
            'invalid-response',
            `the API server's answer to ${what} is not valid ${encoding} (HTTP ${response.statusCode}): read given up`,
            response.statusCode,
          );
        }
      }
      return { text: decoded.toString('utf8'), bytes: decoded.byteLength };
    } finally {
      // Given up early (over the cap, aborted): close the stream, and with it the connection.
      // undici reports the destruction as an 'error' event: nobody is listening any more.
      if (!body.readableEnded) body.on('error', () => undefined).destroy();
    }
  }

  /** No answer: the caller gave up, the timeout struck, or the transport failed. */
  private unanswered(
    what: string,
    error: unknown,
    signal: AbortSignal | undefined,
    timeout: AbortSignal,
  ): ClusterReadError {
    if (signal?.aborted) {
      return new ClusterReadError(
        'aborted',
        `${what}: aborted before the API server answered`,
        undefined,
        { cause: error },
      );
    }
    if (this.budget.aborted && !timeout.aborted) {
      return new ClusterReadError(
        'timeout',
        `${what}: the read of ${this.target.host} took longer than its budget of ${this.options.bounds.budgetMs / 1000}s, given up`,
        undefined,
        { cause: error },
      );
    }
    if (timeout.aborted) {
      return new ClusterReadError(
        'timeout',
        `${what}: no answer from ${this.target.host} within ${this.options.timeoutMs / 1000}s`,
        undefined,
        { cause: error },
      );
    }
    return transportError(this.target, what, error);
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

/** `body` when it is an object of `kind`; otherwise the answer is not what was asked for. */
function ofKind(body: unknown, kind: string, what: string): Record<string, unknown> {
  if (record(body).kind !== kind) throw invalidAnswerError(what, kind, body);
  return record(body);
}
