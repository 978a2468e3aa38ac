/**
 * One read's conversation with the API server: the connection from `@kubernetes/client-node`'s
 * authentication (kubeconfig users: tokens, client certificates, exec plugins, OIDC) and TLS
 * settings, lists paginated with `limit` + `continue`, and each request bounded by a timeout and
 * the caller's AbortSignal. Bodies are parsed as plain JSON and projected page by page.
 */

import { HttpMethod, type KubeConfig, RequestContext } from '@kubernetes/client-node';
import { type Dispatcher, fetch } from 'undici';
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
}

/** Requests made and response bytes read, over the whole read. */
export interface ReadStats {
  requests: number;
  bytes: number;
}

/** Every item of a list, and the API server's clock as of its first page. */
export interface Listed<T> {
  readonly items: T[];
  readonly date: number | undefined;
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
}

/** What each list answers with, by `kind`. */
const LIST_KINDS: Readonly<Record<Resource, string>> = { leases: 'LeaseList', nodes: 'NodeList' };

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

  private constructor(
    private readonly connection: Connection,
    private readonly options: SessionOptions,
  ) {
    this.target = { host: hostOf(options.server), namespace: options.namespace };
  }

  /** Credentials and TLS settings from the kubeconfig (runs an exec plugin when it has one). */
  static async open(kubeConfig: KubeConfig, options: SessionOptions): Promise<ApiSession> {
    const context = new RequestContext(options.server, HttpMethod.GET);
    try {
      await kubeConfig.applySecurityAuthentication(context);
    } catch (error) {
      throw authSetupError(error, kubeConfig);
    }
    const connection = {
      headers: { ...context.getHeaders(), Accept: 'application/json' },
      dispatcher: context.getDispatcher() as Dispatcher | undefined,
    };
    return new ApiSession(connection, options);
  }

  close(): void {
    this.connection.dispatcher?.destroy().catch(() => undefined);
  }

  /** Lists every page of `path`, keeping what `project` makes of each item. */
  async list<T>(
    resource: Resource,
    path: string,
    project: (item: unknown) => T | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Listed<T>> {
    const items: T[] = [];
    let date: number | undefined;
    let next: string | undefined;
    do {
      const page: Page<T> = await this.page(resource, path, next, project, signal);
      this.stats.requests++;
      this.stats.bytes += page.bytes;
      date ??= page.date;
      for (const item of page.items) items.push(item);
      next = page.next;
    } while (next);
    return { items, date };
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
    project: (item: unknown) => T | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Page<T>> {
    const query = new URLSearchParams({ limit: String(this.options.pageSize) });
    if (continueToken) query.set('continue', continueToken);
    const answer = await this.request(resource, `${path}?${query}`, signal);
    const what = describeRead(resource, this.options.namespace);
    const body = ofKind(answer.body, LIST_KINDS[resource], what);
    // An empty list may come as `items: null`; anything else that is not an array is no list.
    if (body.items != null && !Array.isArray(body.items)) {
      throw invalidAnswerError(what, LIST_KINDS[resource], body);
    }
    const list = Array.isArray(body.items) ? body.items : [];
    const items: T[] = [];
    for (const raw of list) {
      const item = project(raw);
      if (item !== undefined) items.push(item);
    }
    return {
      items,
      next: str(record(body.metadata).continue) || undefined,
      date: answer.date,
      bytes: answer.bytes,
    };
  }

  /** GET `pathAndQuery`; `body` is undefined when it does not exist (404, with `missingIsNull`). */
  private async request(
    resource: Resource,
    pathAndQuery: string,
    signal: AbortSignal | undefined,
    options: { missingIsNull?: boolean } = {},
  ): Promise<Answer> {
    const what = describeRead(resource, this.options.namespace);
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const response = await fetch(`${this.options.server}${pathAndQuery}`, {
        headers: this.connection.headers,
        dispatcher: this.connection.dispatcher,
        signal: combined,
      });
      const text = await response.text();
      const bytes = Buffer.byteLength(text);
      if (response.status === 404 && options.missingIsNull)
        return { body: undefined, date: undefined, bytes };
      if (!response.ok)
        throw statusError(this.target, resource, response.status, response.statusText, text);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        const type = response.headers.get('content-type')?.split(';')[0];
        throw new ClusterReadError(
          'server',
          `the API server's answer to ${what} is not JSON (HTTP ${response.status}${type ? `, ${type}` : ''})`,
        );
      }
      const dateHeader = response.headers.get('date');
      const date = dateHeader ? Date.parse(dateHeader) : Number.NaN;
      return { body, date: Number.isNaN(date) ? undefined : date, bytes };
    } catch (error) {
      if (error instanceof ClusterReadError) throw error;
      throw this.unanswered(what, error, signal, timeout);
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

/** `body` when it is an object of `kind`; otherwise the answer is not what was asked for. */
function ofKind(body: unknown, kind: string, what: string): Record<string, unknown> {
  if (record(body).kind !== kind) throw invalidAnswerError(what, kind, body);
  return record(body);
}
