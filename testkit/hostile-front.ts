/**
 * An HTTPS front in front of a simulated API server that turns its answers hostile on demand: a
 * 200 that is not a list, a lease list whose continue token cycles, lists that lack most of their
 * items, or a certificate from a CA the client was not told about. Otherwise it forwards every
 * request as is (the bearer token, the query, the API server's `Date` header), so the watchdog
 * talks to it exactly as to the cluster behind it.
 *
 *   const front = await startHostileFront(server.url, server.caPem);
 *   front.setAnswer({ kind: 'not-a-list' });   // from now on
 *   front.setAnswer(null);                     // faithful again
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  Agent,
  createServer,
  request as httpsRequest,
  type RequestOptions,
  type Server,
} from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateSimPki, type SimPki } from '../sim/pki.js';
import { closeServer } from './ports.js';

export type HostileAnswer =
  /** Every lease list is a 200 `{}`: not a LeaseList. */
  | { readonly kind: 'not-a-list' }
  /** Every lease list page carries a continue token, cycling a → b → a. */
  | { readonly kind: 'cycling-continue' }
  /** Node and lease lists (or only one of them) keep only their first `keep` items. */
  | { readonly kind: 'lacks-most'; readonly keep: number; readonly only?: 'leases' | 'nodes' }
  /** The TLS handshake presents a certificate signed by another CA. */
  | { readonly kind: 'foreign-ca' }
  /**
   * Every lease list page holds `items` empty items (by default one more than its `limit` asked
   * for), and with `continues` a continue token: a page small in bytes that decodes to much.
   */
  | { readonly kind: 'more-than-asked'; readonly items?: number; readonly continues?: boolean }
  /** Node lists asked for as a Table come back as a NodeList (a server without Table output). */
  | { readonly kind: 'no-table' }
  /** Every row of a Table of Nodes has `status` in its Status cell. */
  | { readonly kind: 'table-status'; readonly status: string }
  /**
   * Every request answered `status` by the front itself (a gateway), with a Status whose message
   * quotes the request's Authorization header after `pad` characters (the header straddles where
   * a quote is cut).
   */
  | { readonly kind: 'echoes-credentials'; readonly status: number; readonly pad: number };

export interface HostileFront {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  /** The CA the client is told to trust. */
  readonly caPem: string;
  setAnswer(answer: HostileAnswer | null): void;
  close(): Promise<void>;
}

const LEASE_LIST = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/[^/]+\/leases$/;
const NODE_LIST = /^\/api\/v1\/nodes$/;

/** A list (or Table) as the API server behind answered it. */
interface ListBody {
  metadata?: Record<string, unknown>;
  items?: unknown[];
  rows?: { cells: unknown[] }[];
  columnDefinitions?: { name: string }[];
}

/** What the front answers instead of `list`, a 200 to `requestUrl`, under `answer`. */
function hostileList(
  answer: HostileAnswer | null,
  path: string,
  requestUrl: string,
  list: ListBody,
): unknown {
  const isLeases = LEASE_LIST.test(path);
  if (answer?.kind === 'not-a-list' && isLeases) return {};
  if (answer?.kind === 'cycling-continue' && isLeases) {
    const next = requestUrl.includes('continue=a') ? 'b' : 'a';
    return { ...list, metadata: { ...list.metadata, continue: next } };
  }
  if (answer?.kind === 'more-than-asked' && isLeases) {
    const asked = Number(new URL(requestUrl, 'https://front').searchParams.get('limit'));
    const metadata = answer.continues ? { continue: 'more' } : {};
    return { kind: 'LeaseList', metadata, items: new Array(answer.items ?? asked + 1).fill({}) };
  }
  if (answer?.kind === 'table-status' && Array.isArray(list.rows)) {
    const at = (list.columnDefinitions ?? []).findIndex((c) => c.name === 'Status');
    for (const row of list.rows) row.cells[at] = answer.status;
    return list;
  }
  if (
    answer?.kind === 'lacks-most' &&
    (answer.only === undefined || answer.only === (isLeases ? 'leases' : 'nodes'))
  ) {
    return { ...list, items: (list.items ?? []).slice(0, answer.keep) };
  }
  return list;
}

function send(res: ServerResponse, headers: IncomingMessage['headers'], body: unknown): void {
  const text = JSON.stringify(body);
  const out: Record<string, string> = { 'content-type': 'application/json' };
  if (typeof headers.date === 'string') out.date = headers.date;
  res.writeHead(200, { ...out, 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/** A gateway's answer quoting the request's credentials back (a Status object, as the API's). */
function echoCredentials(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  pad: number,
): void {
  const message = `${'.'.repeat(pad)} gateway: upstream refused GET ${req.url} (Authorization: ${req.headers.authorization})`;
  const text = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message });
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
}

/** The request as the front sends it on: to the server behind, its path and headers as asked. */
function onwardRequest(
  req: IncomingMessage,
  target: URL,
  agent: Agent,
  answer: HostileAnswer | null,
): { readonly options: RequestOptions; readonly pathname: string } {
  const url = new URL(req.url ?? '/', 'https://front');
  // A cycling token is ours: the server behind would refuse it.
  if (answer?.kind === 'cycling-continue') url.searchParams.delete('continue');
  const headers = { ...req.headers, host: target.host };
  delete headers['accept-encoding'];
  if (answer?.kind === 'no-table' && NODE_LIST.test(url.pathname)) {
    headers.accept = 'application/json';
  }
  // A front that rewrites lists reads them as JSON: it asks for JSON alone (the reader takes a
  // JSON answer to its protobuf Accept, as from a server that has no protobuf).
  if (answer !== null && /protobuf/.test(String(headers.accept))) {
    headers.accept = 'application/json';
  }
  const options = {
    host: target.hostname,
    port: target.port,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers,
    agent,
  };
  return { options, pathname: url.pathname };
}

export async function startHostileFront(
  upstream: string,
  upstreamCa: string,
): Promise<HostileFront> {
  const [own, foreign]: SimPki[] = await Promise.all([generateSimPki(), generateSimPki()]);
  if (!own || !foreign) throw new Error('no PKI');
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true, ca: upstreamCa });
  let answer: HostileAnswer | null = null;

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    if (answer?.kind === 'echoes-credentials') {
      echoCredentials(req, res, answer.status, answer.pad);
      return;
    }
    const { options, pathname: path } = onwardRequest(req, target, agent, answer);
    const upstreamReq = httpsRequest(options, (upstreamRes) => {
      const lists = LEASE_LIST.test(path) || NODE_LIST.test(path);
      if (answer === null || !lists || upstreamRes.statusCode !== 200) {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      upstreamRes.on('data', (chunk: Buffer) => chunks.push(chunk));
      upstreamRes.on('end', () => {
        const list = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ListBody;
        send(res, upstreamRes.headers, hostileList(answer, path, req.url ?? '', list));
      });
    });
    upstreamReq.on('error', () => res.destroy());
    req.pipe(upstreamReq);
  };

  const server: Server = createServer({ cert: own.certPem, key: own.keyPem }, forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caPem: own.caPem,
    setAnswer(next) {
      const pki = next?.kind === 'foreign-ca' ? foreign : own;
      if ((answer?.kind === 'foreign-ca') !== (next?.kind === 'foreign-ca')) {
        server.setSecureContext({ cert: pki.certPem, key: pki.keyPem });
        server.closeAllConnections();
      }
      answer = next;
    },
    async close() {
      agent.destroy();
      await closeServer(server);
    },
  };
}
