/**
 * One read's conversation with the API server: lists paginated with `limit` + `continue`, node
 * GETs, and each request bounded by a timeout, the read's budget and the caller's AbortSignal.
 * Bodies (fetched by `http-exchange.ts`) are parsed as plain JSON and projected page by page; a
 * page of Leases or Nodes, and a Node, straight from its bytes keeping only the fields their
 * projections read (`pruned-json.ts`).
 */

import { ClusterReadError, type KubeConfigView } from '../../../ports/index.js';
import { type BodyReading, errorText, readBody } from '../decode/answer-body.js';
import {
  type Answer,
  LIST_FIELDS,
  LIST_KINDS,
  ofKind,
  wholeBody,
} from '../decode/answer-shapes.js';
import { NODE_OBJECT_FIELDS, record, str } from '../decode/projection.js';
import type { Keep } from '../decode/pruned-json.js';
import {
  type Connection,
  type ConnectionOptions,
  closeConnection,
  exchange,
  openConnection,
  withInflater,
} from './http-exchange.js';
import {
  causedBy,
  describeRead,
  hostOf,
  invalidAnswerError,
  type ReadTarget,
  type Resource,
  redactedError,
  statusError,
  transportError,
  withoutSecrets,
} from './read-errors.js';

export interface SessionOptions extends ConnectionOptions {
  /** The lease namespace (for messages). */
  readonly namespace: string;
  /** Items per list request. */
  readonly pageSize: number;
  /** Bounds of the whole read (see READ_BOUNDS). */
  readonly bounds: ReadBounds;
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
  /** What a page keeps (pruned-json.ts); undefined: all of it, by JSON.parse. */
  readonly keep?: Keep;
  /**
   * Reads a page answered in protobuf (`accept` then names it first) into what `keep` keeps of
   * the same page in JSON (node-protobuf.ts); a page answered in JSON is read as JSON.
   */
  readonly protobuf?: (body: Buffer) => unknown;
}

interface Page<T> {
  readonly items: T[];
  readonly next: string | undefined;
  readonly date: number | undefined;
  readonly bytes: number;
  readonly received: number;
  readonly remaining: number | undefined;
}

/**
 * What `list` takes: the resource, its path, what to keep of each item, the signal, more query
 * parameters of every page (`labelSelector`), and the format (a Table of Nodes).
 */
type ListArgs<T> = [
  resource: Resource,
  path: string,
  project: (item: unknown, page: Record<string, unknown>) => T | undefined,
  signal: AbortSignal | undefined,
  params?: Readonly<Record<string, string>>,
  format?: ListFormat,
];

/**
 * One connection pool for every request of a read (client-node builds a new one per call): a TLS
 * handshake per read, not per page, and no idle sockets left behind once closed.
 */
export class ApiSession {
  readonly stats: ReadStats = { requests: 0, bytes: 0 };
  private readonly target: ReadTarget;
  /** Aborts when the whole read's budget is spent (created when the session opens). */
  private readonly budget: AbortSignal;
  /** Aborts every request still in flight or waiting when the session closes, in every mode. */
  private readonly closed = new AbortController();
  /** With `oneConnection`: settles once the request before has its answer (requests in turn). */
  private turn: Promise<void> = Promise.resolve();

  private constructor(
    private readonly connection: Connection,
    private readonly options: SessionOptions,
  ) {
    this.target = { host: hostOf(options.server), namespace: options.namespace };
    this.budget = AbortSignal.timeout(options.bounds.budgetMs);
  }

  /** Credentials and TLS settings from the kubeconfig (runs an exec plugin when it has one). */
  static async open(kubeConfig: KubeConfigView, options: SessionOptions): Promise<ApiSession> {
    return new ApiSession(await openConnection(kubeConfig, options), options);
  }

  /**
   * Aborts what is still in flight first: a request left waiting for the pool's one socket would
   * otherwise be handed a new connection once the pool closes the socket, after the read ended.
   */
  close(): void {
    this.closed.abort();
    closeConnection(this.connection);
  }

  /**
   * With `oneConnection`, waits for the request before this one to have its answer, and gives
   * the release of this one's turn; the requests reach the pool one at a time, so none waits in
   * the pool's own queue (which no signal empties). Without it, at once.
   */
  private async inTurn(): Promise<() => void> {
    if (!this.options.oneConnection) return () => undefined;
    const before = this.turn;
    let release: () => void = () => undefined;
    this.turn = new Promise((resolve) => {
      release = resolve;
    });
    await before;
    return release;
  }

  /** `text` without the connection's credentials (withoutSecrets). */
  private readonly redact = (text: string): string => withoutSecrets(text, this.connection.secrets);

  /**
   * Lists every page of `path`, keeping what `project` makes of each item (given the page's
   * body too: a Table's rows need its column definitions). Its errors hold no credential.
   */
  async list<T>(...args: ListArgs<T>): Promise<Listed<T>> {
    const [resource] = args;
    const items: T[] = [];
    const seen = new Set<string>();
    let date: number | undefined;
    let next: string | undefined;
    let pages = 0;
    let received = 0;
    let announced: number | undefined;
    do {
      const page: Page<T> = await this.page(args, next);
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

  /**
   * GETs one Node; undefined when it does not exist (404). `format`: how it is asked for and a
   * protobuf answer read (node-reads.ts); by default JSON. Its errors hold no credential.
   */
  async getNode(
    name: string,
    signal: AbortSignal | undefined,
    format?: NodeFormat,
  ): Promise<Record<string, unknown> | undefined> {
    const path = `/api/v1/nodes/${encodeURIComponent(name)}`;
    const answer = await this.request('nodes', path, signal, {
      ...format,
      missingIsNull: true,
      keep: NODE_OBJECT_FIELDS,
    });
    this.stats.requests++;
    this.stats.bytes += answer.bytes;
    if (answer.body === undefined) return undefined;
    return ofKind(answer, 'Node', `reading node ${name}`, this.redact);
  }

  /** One page of the list `args` asks for: the first, or the one `continueToken` names. */
  private async page<T>(
    [resource, path, project, signal, params = {}, format]: ListArgs<T>,
    continueToken: string | undefined,
  ): Promise<Page<T>> {
    const limit = this.options.pageSize * (format?.pageScale ?? 1);
    const query = new URLSearchParams({ ...params, limit: String(limit) });
    if (continueToken) query.set('continue', continueToken);
    const answer = await this.request(resource, `${path}?${query}`, signal, {
      accept: format?.accept,
      keep: format ? format.keep : LIST_FIELDS[resource],
      protobuf: format?.protobuf,
    });
    const what = describeRead(resource, this.options.namespace);
    const kind = format?.kind ?? LIST_KINDS[resource];
    const body = ofKind(answer, kind, what, this.redact);
    const field = body[format?.items ?? 'items'];
    // An empty list may come as `items: null`; anything else that is not an array is no list.
    if (field != null && !Array.isArray(field))
      throw invalidAnswerError(what, kind, wholeBody(answer, this.redact));
    const list: unknown[] = Array.isArray(field) ? field : [];
    const next = str(record(body.metadata).continue) || undefined;
    // A server that pages must page by `limit` (one that ignores it sends its whole list at once,
    // bounded by the page caps).
    if (next && list.length > limit) {
      throw new ClusterReadError(
        'invalid-response',
        `the API server's answer to ${what} holds ${list.length} items where ${limit} were asked for, and continues: read given up`,
        200,
      );
    }
    const items: T[] = [];
    for (const raw of list) {
      const item = project(raw, body);
      if (item !== undefined) items.push(item);
    }
    const remaining = record(body.metadata).remainingItemCount;
    return {
      items,
      next,
      date: answer.date,
      bytes: answer.bytes,
      received: list.length,
      remaining: typeof remaining === 'number' ? remaining : undefined,
    };
  }

  /**
   * GET `pathAndQuery`; `body` is undefined when it does not exist (404, with `missingIsNull`).
   * Its error (whatever text it quotes) is stripped of the connection's credentials: every error
   * of a read that can quote the server or the transport comes from here.
   */
  private async request(
    resource: Resource,
    pathAndQuery: string,
    signal: AbortSignal | undefined,
    options: RequestOptions = {},
  ): Promise<Answer> {
    const what = describeRead(resource, this.options.namespace);
    const release = await this.inTurn();
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const ends = [timeout, this.budget, this.closed.signal];
    const combined = AbortSignal.any(signal ? [signal, ...ends] : ends);
    try {
      // The inflater is this request's alone until its body is parsed, whatever else is in flight.
      return await withInflater(this.connection, async (inflater) => {
        const response = await exchange(
          this.connection,
          {
            url: `${this.options.server}${pathAndQuery}`,
            accept: options.accept,
            signal: combined,
            maxBytes: this.options.bounds.maxPageBytes,
            what,
          },
          inflater,
        );
        // The answer is in: the next request in turn goes out while this one is parsed.
        release();
        const { status, bytes, body: raw } = response;
        if (status === 404 && options.missingIsNull)
          return { body: undefined, raw, date: undefined, bytes };
        if (status < 200 || status > 299) {
          // Redacted before it is parsed and cut: a cut must not leave half a token behind.
          const text = this.redact(errorText(raw, response.contentType));
          throw statusError(this.target, resource, status, text);
        }
        const { body, described } = readBody(response, options, what);
        return { body, raw: described, date: response.date, bytes };
      });
    } catch (error) {
      const failure =
        error instanceof ClusterReadError ? error : this.unanswered(what, error, signal, timeout);
      throw redactedError(failure, this.connection.secrets);
    } finally {
      release();
    }
  }

  /** No answer: aborted (the caller's signal or close()), a timeout, or a transport failure. */
  private unanswered(
    what: string,
    error: unknown,
    signal: AbortSignal | undefined,
    timeout: AbortSignal,
  ): ClusterReadError {
    if (signal?.aborted || this.closed.signal.aborted) {
      return causedBy(error)('aborted', `${what}: aborted before the API server answered`);
    }
    // A budget no longer than a request's (the CLI's --timeout) reads as that request's timeout.
    const { budgetMs } = this.options.bounds;
    if (this.budget.aborted && !timeout.aborted && budgetMs > this.options.timeoutMs) {
      return causedBy(error)(
        'timeout',
        `${what}: the read of ${this.target.host} took longer than its budget of ${budgetMs / 1000}s, given up`,
      );
    }
    if (timeout.aborted || this.budget.aborted) {
      return causedBy(error)(
        'timeout',
        `${what}: no answer from ${this.target.host} within ${this.options.timeoutMs / 1000}s`,
      );
    }
    return transportError(this.target, what, error);
  }
}

/** How a Node is asked for, and its protobuf answer read (undefined: JSON alone). */
export type NodeFormat = Pick<RequestOptions, 'accept' | 'protobuf'>;

/** How one request asks and reads: its Accept, and how its body is read (answer-body.ts). */
interface RequestOptions extends BodyReading {
  readonly missingIsNull?: boolean;
  readonly accept?: string | undefined;
}
