/**
 * The simulated cluster's HTTPS Kubernetes API: what kubectl and @kubernetes/client-node need
 * (version, discovery, get/list/watch and writes on the resources in resources.ts, pagination,
 * selectors, server-side Table output, Status errors, a Date header on the sim clock), plus
 * injectable faults (status codes, hanging requests, dropped connections).
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import type { TLSSocket } from 'node:tls';
import type { SimCluster } from './cluster.js';
import { discoveryBody } from './discovery.js';
import { type KubeconfigOptions, renderKubeconfig } from './kubeconfig.js';
import { SimApiError } from './objects.js';
import { generateSimPki, type SimPki } from './pki.js';
import { serveResource } from './resource-handler.js';
import {
  eventResource,
  leaseResource,
  nodeResource,
  podResource,
  type ResourceKind,
} from './resources.js';
import { createResponder, type Responder, type SentAnswer } from './responses.js';
import { classify, type Route } from './routes.js';
import { defaultFaultMessage, REASONS, routeDetails } from './status.js';

export type { SentAnswer } from './responses.js';
export { SIM_FORBIDDEN_USER } from './status.js';
export { humanDuration } from './time-format.js';

type FaultResource = 'nodes' | 'leases' | 'all';

export type SimFault =
  | { kind: 'status'; status: number; resource?: FaultResource; message?: string }
  | { kind: 'hang'; resource?: FaultResource }
  | { kind: 'close'; resource?: FaultResource };

export interface SimServer {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  readonly caPem: string;
  readonly token: string;
  kubeconfig(opts?: KubeconfigOptions): string;
  writeKubeconfig(path: string, opts?: KubeconfigOptions): Promise<void>;
  setFault(fault: SimFault | null): void;
  /** Requests answered, bytes sent, and TLS connections accepted (handshakes), since resetStats. */
  readonly stats: { requests: number; bytesSent: number; connections: number };
  /** Every answer sent since the last resetStats (the last 10,000), oldest first. */
  readonly sent: readonly SentAnswer[];
  /**
   * Answer every list in one page whatever its `limit` (as kube-apiserver does from its watch
   * cache for resourceVersion=0, or a proxy that drops the parameter).
   */
  ignoreLimit(on: boolean): void;
  resetStats(): void;
  close(): Promise<void>;
}

export interface SimServerOptions {
  cluster: SimCluster;
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Bearer token clients must send; default random. */
  token?: string;
  /**
   * Other bearer tokens to take (e.g. EKS IAM tokens, `k8s-aws-v1.…`, standing in for EKS's
   * authenticator); default none.
   */
  acceptsToken?: (token: string) => boolean;
  /** gzip responses over 128 KiB when the client accepts it, like kube-apiserver. Default true. */
  compression?: boolean;
}

const PUBLIC_PATHS = new Set(['/version', '/healthz', '/livez', '/readyz']);

function faultApplies(f: SimFault, route: Route): boolean {
  const target = f.resource ?? 'all';
  return target === 'all' || target === route.resource;
}

/** The resources served, by "group/plural". */
function resourceTable(cluster: SimCluster): Map<string, ResourceKind> {
  const kinds = [
    nodeResource(cluster),
    podResource(),
    eventResource(cluster),
    leaseResource(cluster),
  ];
  return new Map(kinds.map((r) => [`${r.group}/${r.plural}`, r]));
}

interface Handler {
  cluster: SimCluster;
  resources: Map<string, ResourceKind>;
  io: Responder;
  token: string;
  acceptsToken?: ((token: string) => boolean) | undefined;
  serverAddress: () => string;
  stats: { requests: number };
  /** The fault injected now, if any (SimServer.setFault). */
  fault: SimFault | null;
  hung: Set<{ req: IncomingMessage; res: ServerResponse }>;
  ignoreLimit: boolean;
  /** Whether the connection's client certificate is one the sim's CA signed. */
  certified: (socket: TLSSocket) => boolean;
}

/** Injected faults: true when the request was answered (or parked, or dropped) by one. */
async function applyFault(
  h: Handler,
  req: IncomingMessage,
  res: ServerResponse,
  route: Route,
  path: string,
  stage: 'connection' | 'status',
): Promise<boolean> {
  const f = h.fault;
  if (!f || !faultApplies(f, route)) return false;
  if (stage === 'connection') {
    if (f.kind === 'hang') {
      const entry = { req, res };
      h.hung.add(entry);
      res.on('close', () => h.hung.delete(entry));
      return true;
    }
    if (f.kind === 'close') {
      req.socket.destroy();
      return true;
    }
    return false;
  }
  if (f.kind !== 'status') return false;
  const message = f.message ?? defaultFaultMessage(f.status, route, path);
  if (f.status === 429 || f.status === 503) res.setHeader('Retry-After', '1');
  const reason = REASONS[f.status] ?? 'Unknown';
  await h.io.sendStatus(req, res, f.status, message, reason, routeDetails(route));
  return true;
}

async function dispatch(
  h: Handler,
  req: IncomingMessage,
  res: ServerResponse,
  route: Route,
  url: URL,
): Promise<void> {
  const resource = h.resources.get(`${route.group}/${route.resource}`);
  if (resource) {
    await serveResource(h.cluster, resource, h.io, {
      req,
      res,
      route,
      query: url.searchParams,
      ignoreLimit: h.ignoreLimit,
    });
    return;
  }
  const found =
    req.method === 'GET' || req.method === undefined
      ? discoveryBody(url.pathname, [...h.resources.values()], h.serverAddress())
      : undefined;
  if (found) {
    await h.io.send(req, res, 200, found.body, found.contentType);
    return;
  }
  await h.io.sendStatus(
    req,
    res,
    404,
    'the server could not find the requested resource',
    'NotFound',
    {},
  );
}

async function handle(
  h: Handler,
  req: IncomingMessage,
  res: ServerResponse,
  replay = false,
): Promise<void> {
  if (!replay) h.stats.requests++;
  const url = new URL(req.url ?? '/', 'https://sim');
  const path = url.pathname;
  const route = classify(req.method ?? 'GET', path, url.searchParams);
  res.setHeader('Date', new Date(h.cluster.now()).toUTCString());
  if (await applyFault(h, req, res, route, path, 'connection')) return;

  const auth = req.headers.authorization;
  // A client certificate the sim's CA signed authenticates as well as the token (as with
  // kube-apiserver's --client-ca-file).
  const certified = h.certified(req.socket as TLSSocket);
  const bearer = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
  const authorized =
    auth === `Bearer ${h.token}` ||
    certified ||
    (bearer !== undefined && h.acceptsToken?.(bearer) === true);
  if (!authorized && !(auth === undefined && PUBLIC_PATHS.has(path))) {
    await h.io.sendStatus(req, res, 401, 'Unauthorized');
    return;
  }
  if (await applyFault(h, req, res, route, path, 'status')) return;
  try {
    await dispatch(h, req, res, route, url);
  } catch (err) {
    if (err instanceof SimApiError) {
      await h.io.sendStatus(req, res, err.code, err.message, err.reason, err.details);
    } else {
      const message = err instanceof Error ? err.message : String(err);
      await h.io.sendStatus(req, res, 500, `Internal error occurred: ${message}`, 'InternalError');
    }
  }
}

/** Per connection: whether its client certificate was issued and signed by `ca`. */
function certifiedBy(ca: X509Certificate): (socket: TLSSocket) => boolean {
  const checked = new WeakMap<TLSSocket, boolean>();
  return (socket) => {
    let ok = checked.get(socket);
    if (ok === undefined) {
      const raw = socket.getPeerCertificate?.()?.raw;
      const cert = raw ? new X509Certificate(raw) : undefined;
      ok = cert?.checkIssued(ca) === true && cert.verify(ca.publicKey);
      checked.set(socket, ok);
    }
    return ok;
  };
}

export async function startSimServer(opts: SimServerOptions): Promise<SimServer> {
  const { cluster } = opts;
  const pki = await generateSimPki();
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const host = opts.host ?? '127.0.0.1';
  const stats = { requests: 0, bytesSent: 0, connections: 0 };
  const sent: SentAnswer[] = [];
  const h: Handler = {
    cluster,
    resources: resourceTable(cluster),
    io: createResponder({ compression: opts.compression ?? true, stats, log: sent }),
    token,
    acceptsToken: opts.acceptsToken,
    serverAddress: () => `${host}:${(server.address() as AddressInfo).port}`,
    stats,
    fault: null,
    hung: new Set(),
    ignoreLimit: false,
    certified: certifiedBy(new X509Certificate(pki.caPem)),
  };
  const server = await listen(h, pki, opts.port ?? 0, host);
  server.on('secureConnection', () => {
    stats.connections++;
  });
  const port = (server.address() as AddressInfo).port;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return controls(h, server, { url, pki, sent, stats });
}

/** The HTTPS server on `host:port`, listening: the sim's certificate, `h` for every request. */
async function listen(h: Handler, pki: SimPki, port: number, host: string): Promise<Server> {
  const server = createServer(
    {
      key: pki.keyPem,
      cert: pki.certPem,
      keepAliveTimeout: 30_000,
      // Client certificates are asked for and optional (tokens work too); checked against the CA
      // per request (certifiedBy): a `ca` here would also send the CA in the server's chain.
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      void handle(h, req, res);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/** What a test holds of a running sim: its address and credentials, faults, stats, close. */
function controls(
  h: Handler,
  server: Server,
  at: { url: string; pki: SimPki; sent: SentAnswer[]; stats: SimServer['stats'] },
): SimServer {
  const { url, pki, sent, stats } = at;
  const { token, hung } = h;
  const client = { certPem: pki.clientCertPem, keyPem: pki.clientKeyPem };
  const kubeconfig = (opts?: KubeconfigOptions) =>
    renderKubeconfig({ server: url, caPem: pki.caPem, token, client, opts });
  const releaseHung = () => {
    for (const entry of [...hung]) {
      hung.delete(entry);
      if (!entry.res.destroyed) void handle(h, entry.req, entry.res, true);
    }
  };
  return {
    url,
    caPem: pki.caPem,
    token,
    kubeconfig,
    async writeKubeconfig(path, kopts) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, kubeconfig(kopts), { mode: 0o600 });
    },
    setFault(next) {
      h.fault = next;
      // Hung requests are answered once their fault is gone (or re-evaluated against the new one).
      if (next?.kind !== 'hang') releaseHung();
    },
    stats,
    sent,
    ignoreLimit(on) {
      h.ignoreLimit = on;
    },
    resetStats() {
      stats.requests = 0;
      stats.bytesSent = 0;
      stats.connections = 0;
      sent.length = 0;
    },
    async close() {
      h.fault = null;
      for (const entry of hung) entry.req.socket.destroy();
      hung.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
