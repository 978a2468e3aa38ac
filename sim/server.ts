/**
 * The simulated cluster's HTTPS Kubernetes API: what kubectl and @kubernetes/client-node need
 * (version, discovery, list/get Nodes, list/get/create/update Leases, pagination, selectors,
 * server-side Table output, Status errors, a Date header on the sim clock), plus injectable
 * faults (status codes, hanging requests, dropped connections).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import {
  type LabelSelector,
  matchesSelector,
  parseSelector,
  SelectorSyntaxError,
} from '../lambda/core/selector.js';
import {
  type KubeLease,
  type KubeNode,
  type ObjectMeta,
  SIM_KUBE_VERSION,
  SimApiError,
  type SimCluster,
} from './cluster.js';
import { type KubeconfigOptions, renderKubeconfig } from './kubeconfig.js';
import { generateSimPki } from './pki.js';

const gzip = promisify(gzipCb);

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
  readonly stats: { requests: number; bytesSent: number };
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
  /** gzip responses over 128 KiB when the client accepts it, like kube-apiserver. Default true. */
  compression?: boolean;
}

/** The identity named in RBAC-style 403 messages. */
export const SIM_FORBIDDEN_USER = 'system:serviceaccount:lease-watchdog:lease-watchdog';
const COORDINATION = 'coordination.k8s.io';
const GZIP_THRESHOLD = 128 * 1024;
const MAX_BODY = 3 * 1024 * 1024;
const PUBLIC_PATHS = new Set(['/version', '/healthz', '/livez', '/readyz']);

interface Route {
  /** Which fault `resource` this request belongs to. */
  resource: 'nodes' | 'leases' | 'other';
  verb: string;
  namespace?: string;
  name?: string;
}

/** Parses the request path into the resource it addresses (for faults, RBAC messages, routing). */
function classify(method: string, path: string, query: URLSearchParams): Route {
  const watch = query.get('watch') === 'true' || query.get('watch') === '1';
  const collectionVerb = method === 'POST' ? 'create' : watch ? 'watch' : 'list';
  const itemVerb = method === 'PUT' ? 'update' : method === 'DELETE' ? 'delete' : 'get';
  let m = /^\/api\/v1\/nodes(?:\/([^/]+))?\/?$/.exec(path);
  if (m) {
    const name = m[1] && decodeURIComponent(m[1]);
    return name
      ? { resource: 'nodes', verb: itemVerb, name }
      : { resource: 'nodes', verb: collectionVerb };
  }
  m = /^\/apis\/coordination\.k8s\.io\/v1\/(?:namespaces\/([^/]+)\/)?leases(?:\/([^/]+))?\/?$/.exec(
    path,
  );
  if (m) {
    const namespace = m[1] && decodeURIComponent(m[1]);
    const name = m[2] && decodeURIComponent(m[2]);
    const route: Route = { resource: 'leases', verb: name ? itemVerb : collectionVerb };
    if (namespace) route.namespace = namespace;
    if (name) route.name = name;
    return route;
  }
  return { resource: 'other', verb: method.toLowerCase() === 'get' ? 'get' : method.toLowerCase() };
}

function statusBody(
  code: number,
  reason: string,
  message: string,
  details?: Record<string, unknown>,
): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details && { details }),
    code,
  });
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

function forbiddenMessage(route: Route, path: string): string {
  const user = `User "${SIM_FORBIDDEN_USER}"`;
  if (route.resource === 'other') return `forbidden: ${user} cannot get path "${path}"`;
  const group = route.resource === 'leases' ? COORDINATION : '';
  const what = route.resource === 'leases' ? 'leases.coordination.k8s.io' : 'nodes';
  const subject = route.name ? `${what} "${route.name}"` : what;
  const scope = route.namespace ? `in the namespace "${route.namespace}"` : 'at the cluster scope';
  return `${subject} is forbidden: ${user} cannot ${route.verb} resource "${route.resource}" in API group "${group}" ${scope}`;
}

function defaultFaultMessage(status: number, route: Route, path: string): string {
  switch (status) {
    case 401:
      return 'Unauthorized';
    case 403:
      return forbiddenMessage(route, path);
    case 429:
      return 'Too many requests, please try again later.';
    case 500:
      return 'Internal error occurred: etcdserver: request timed out';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'Timeout: request did not complete within the allowed duration';
    default:
      return `simulated failure (HTTP ${status})`;
  }
}

// ----- human ages (k8s.io/apimachinery/pkg/util/duration.HumanDuration) -------------------------

export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    const d = Math.floor(hours / 24);
    return h === 0 ? `${d}d` : `${d}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const d = Math.floor(hours / 24) % 365;
    const y = Math.floor(hours / 24 / 365);
    return d === 0 ? `${y}y` : `${y}y${d}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

// ----- discovery ------------------------------------------------------------------------------

const NODE_RESOURCES = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    {
      name: 'nodes',
      singularName: 'node',
      namespaced: false,
      kind: 'Node',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['no'],
      storageVersionHash: 'XwShjMxG9Fs=',
    },
    {
      name: 'nodes/status',
      singularName: '',
      namespaced: false,
      kind: 'Node',
      verbs: ['get', 'patch', 'update'],
    },
  ],
};

const LEASE_RESOURCES = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'coordination.k8s.io/v1',
  resources: [
    {
      name: 'leases',
      singularName: 'lease',
      namespaced: true,
      kind: 'Lease',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      storageVersionHash: 'gqkMMb/YqFM=',
    },
  ],
};

const COORDINATION_GROUP = {
  name: COORDINATION,
  versions: [{ groupVersion: 'coordination.k8s.io/v1', version: 'v1' }],
  preferredVersion: { groupVersion: 'coordination.k8s.io/v1', version: 'v1' },
};

// ----- Table output (what `kubectl get` prints) -----------------------------------------------

const NAME_COLUMN = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
};
const AGE_COLUMN = {
  name: 'Age',
  type: 'string',
  format: '',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  priority: 0,
};
const col = (name: string, description: string, priority = 0) => ({
  name,
  type: 'string',
  format: '',
  description,
  priority,
});
const NODE_COLUMNS = [
  NAME_COLUMN,
  col('Status', 'The status of the node'),
  col('Roles', 'The roles of the node'),
  AGE_COLUMN,
  col('Version', 'Kubelet Version reported by the node.'),
  col(
    'Internal-IP',
    'List of addresses reachable to the node. Queried from cloud provider, if available.',
    1,
  ),
  col(
    'External-IP',
    'List of addresses reachable to the node. Queried from cloud provider, if available.',
    1,
  ),
  col(
    'OS-Image',
    'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
    1,
  ),
  col(
    'Kernel-Version',
    "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
    1,
  ),
  col(
    'Container-Runtime',
    'Container runtime version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
    1,
  ),
];
const LEASE_COLUMNS = [
  NAME_COLUMN,
  col(
    'Holder',
    'HolderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
  ),
  AGE_COLUMN,
];

type TableObjectMode = 'None' | 'Metadata' | 'Object';

function wantsTable(accept: string | undefined): boolean {
  if (!accept) return false;
  const first = accept.split(',')[0] ?? '';
  return /as=Table/.test(first) && /g=meta\.k8s\.io/.test(first);
}

function tableRowObject(mode: TableObjectMode, obj: KubeNode | KubeLease): unknown {
  if (mode === 'None') return undefined;
  if (mode === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

// ----- the server -----------------------------------------------------------------------------

interface ListParams {
  limit: number;
  start: string;
  selector?: LabelSelector;
  fieldName?: { op: '=' | '!='; value: string };
  fieldNamespace?: string;
}

class BadRequest extends SimApiError {
  constructor(message: string) {
    super(400, 'BadRequest', message);
  }
}

function parseListParams(query: URLSearchParams): ListParams {
  const limitRaw = query.get('limit');
  const limit = limitRaw ? Number.parseInt(limitRaw, 10) : 0;
  if (limitRaw && (!Number.isFinite(limit) || limit < 0)) {
    throw new BadRequest(`invalid limit: ${limitRaw}`);
  }
  const params: ListParams = { limit, start: '' };
  const cont = query.get('continue');
  if (cont) params.start = decodeContinue(cont);
  const ls = query.get('labelSelector');
  if (ls) {
    try {
      params.selector = parseSelector(ls);
    } catch (err) {
      if (err instanceof SelectorSyntaxError) {
        throw new BadRequest(`unable to parse requirement: ${err.message}`);
      }
      throw err;
    }
  }
  const fs = query.get('fieldSelector');
  if (fs) {
    for (const term of fs.split(',')) {
      const m = /^\s*([a-zA-Z.]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(term);
      if (!m) throw new BadRequest(`invalid field selector: ${term}`);
      const [, field = '', op = '', value = ''] = m;
      if (field === 'metadata.name') params.fieldName = { op: op === '!=' ? '!=' : '=', value };
      else if (field === 'metadata.namespace' && op !== '!=') params.fieldNamespace = value;
      else throw new BadRequest(`field label not supported: ${field}`);
    }
  }
  return params;
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

function encodeContinue(rv: string, lastKey: string): string {
  const token: ContinueToken = { v: 'meta.k8s.io/v1', rv: Number(rv), start: `${lastKey}\u0000` };
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function decodeContinue(raw: string): string {
  try {
    const parsed = JSON.parse(
      Buffer.from(raw, 'base64url').toString('utf8'),
    ) as Partial<ContinueToken>;
    if (parsed.v !== 'meta.k8s.io/v1' || typeof parsed.start !== 'string') throw new Error('bad');
    return parsed.start;
  } catch {
    throw new BadRequest(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  }
}

/** First index in a sorted array whose element is ≥ key. */
function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Page<T> {
  items: T[];
  continueKey?: string;
  remaining?: number;
}

/**
 * One page of a sorted key space: keys from `start`, filtered, at most `limit` (0 = all).
 * Objects are rendered only for the keys on the page.
 */
function page<T>(
  keys: readonly string[],
  params: ListParams,
  accept: (key: string) => boolean,
  render: (key: string) => T | undefined,
): Page<T> {
  const items: T[] = [];
  let i = params.start ? lowerBound(keys, params.start) : 0;
  for (; i < keys.length; i++) {
    if (params.limit > 0 && items.length >= params.limit) break;
    const key = keys[i] as string;
    if (!accept(key)) continue;
    const obj = render(key);
    if (obj !== undefined) items.push(obj);
  }
  if (i >= keys.length || items.length === 0) return { items };
  const lastKey = keys[i - 1] as string;
  const filtered = params.selector !== undefined || params.fieldName !== undefined;
  return filtered
    ? { items, continueKey: lastKey }
    : { items, continueKey: lastKey, remaining: keys.length - i };
}

export async function startSimServer(opts: SimServerOptions): Promise<SimServer> {
  const { cluster } = opts;
  const pki = await generateSimPki();
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const host = opts.host ?? '127.0.0.1';
  const compression = opts.compression ?? true;
  const stats = { requests: 0, bytesSent: 0 };
  let fault: SimFault | null = null;
  const hung = new Set<{ req: IncomingMessage; res: ServerResponse }>();

  const faultApplies = (f: SimFault, route: Route) => {
    const target = f.resource ?? 'all';
    return target === 'all' || target === route.resource;
  };

  const send = async (
    req: IncomingMessage,
    res: ServerResponse,
    code: number,
    body: string,
    contentType = 'application/json',
  ) => {
    let payload: Buffer = Buffer.from(body, 'utf8');
    const headers: Record<string, string | number> = {
      'Content-Type': contentType,
      'Cache-Control': 'no-cache, private',
      'X-Kubernetes-Pf-Flowschema-Uid': 'sim',
      'Audit-Id': randomBytes(16).toString('hex'),
    };
    if (
      compression &&
      payload.length > GZIP_THRESHOLD &&
      /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))
    ) {
      payload = await gzip(payload, { level: 1 });
      headers['Content-Encoding'] = 'gzip';
    }
    headers['Content-Length'] = payload.length;
    if (res.destroyed) return;
    res.writeHead(code, headers);
    res.end(payload);
    stats.bytesSent += payload.length;
  };

  const sendStatus = (
    req: IncomingMessage,
    res: ServerResponse,
    code: number,
    message: string,
    reason = REASONS[code] ?? 'Unknown',
    details?: Record<string, unknown>,
  ) => send(req, res, code, statusBody(code, reason, message, details));

  const readBody = (req: IncomingMessage) =>
    new Promise<unknown>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY)
          reject(new SimApiError(413, 'RequestEntityTooLarge', 'request body too large'));
        else chunks.push(c);
      });
      req.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          reject(new BadRequest('the request body is not valid JSON'));
        }
      });
      req.on('error', reject);
    });

  const listResponse = (
    kind: 'NodeList' | 'LeaseList',
    apiVersion: string,
    table: TableObjectMode | null,
    pageOut: Page<KubeNode | KubeLease>,
    rv: string,
    row: (obj: KubeNode | KubeLease) => unknown[],
  ): string => {
    if (table) {
      const metaJson = listMetaJson(pageOut, rv);
      const columns = kind === 'NodeList' ? NODE_COLUMNS : LEASE_COLUMNS;
      const rows = pageOut.items.map((obj) => {
        const object = tableRowObject(table, obj);
        return JSON.stringify(
          object === undefined ? { cells: row(obj) } : { cells: row(obj), object },
        );
      });
      return `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":${metaJson},"columnDefinitions":${JSON.stringify(columns)},"rows":[${rows.join(',')}]}`;
    }
    return jsonList(
      kind,
      apiVersion,
      { ...pageOut, items: pageOut.items.map((o) => JSON.stringify(o)) },
      rv,
    );
  };

  const nodeRow = (obj: KubeNode | KubeLease): unknown[] => {
    const node = obj as KubeNode;
    const summary = cluster.nodeSummary(node.metadata.name);
    const status = [summary?.ready ? 'Ready' : 'NotReady'];
    if (summary?.unschedulable) status.push('SchedulingDisabled');
    const ip = node.status.addresses.find((a) => a.type === 'InternalIP')?.address ?? '<none>';
    return [
      node.metadata.name,
      status.join(','),
      summary?.roles ?? '<none>',
      age(node.metadata),
      node.status.nodeInfo.kubeletVersion,
      ip,
      '<none>',
      node.status.nodeInfo.osImage,
      node.status.nodeInfo.kernelVersion,
      node.status.nodeInfo.containerRuntimeVersion,
    ];
  };
  const leaseRow = (obj: KubeNode | KubeLease): unknown[] => {
    const lease = obj as KubeLease;
    const holder = lease.spec.holderIdentity;
    return [lease.metadata.name, typeof holder === 'string' ? holder : '', age(lease.metadata)];
  };
  const age = (meta: ObjectMeta) =>
    humanDuration(cluster.now() - Date.parse(meta.creationTimestamp));

  const tableMode = (req: IncomingMessage, query: URLSearchParams): TableObjectMode | null => {
    if (!wantsTable(req.headers.accept)) return null;
    const mode = query.get('includeObject');
    return mode === 'None' || mode === 'Object' ? mode : 'Metadata';
  };

  const serveNodes = async (
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    query: URLSearchParams,
  ) => {
    const table = tableMode(req, query);
    if (route.name !== undefined) {
      const node = cluster.nodeObject(route.name);
      if (!node) {
        return sendStatus(req, res, 404, `nodes "${route.name}" not found`, 'NotFound', {
          name: route.name,
          kind: 'nodes',
        });
      }
      if (!table) return send(req, res, 200, JSON.stringify(node));
      return send(
        req,
        res,
        200,
        listResponse(
          'NodeList',
          'v1',
          table,
          { items: [node] },
          node.metadata.resourceVersion,
          nodeRow,
        ),
      );
    }
    if (route.verb !== 'list')
      return sendStatus(
        req,
        res,
        405,
        `the server does not allow this method on the requested resource (${route.verb})`,
      );
    const params = parseListParams(query);
    const rv = cluster.listResourceVersion();
    const accept = (name: string) =>
      acceptName(params, name, undefined) &&
      (!params.selector || matchesSelector(params.selector, cluster.nodeLabels(name) ?? {}));
    if (table) {
      const out = page(cluster.sortedNodeNames(), params, accept, (name) =>
        cluster.nodeObject(name),
      );
      return send(req, res, 200, listResponse('NodeList', 'v1', table, out, rv, nodeRow));
    }
    const out = page(cluster.sortedNodeNames(), params, accept, (name) => cluster.nodeJson(name));
    return send(req, res, 200, jsonList('NodeList', 'v1', out, rv));
  };

  const serveLeases = async (
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    query: URLSearchParams,
  ) => {
    const ns = route.namespace;
    if (ns !== undefined && !cluster.hasNamespace(ns)) {
      return sendStatus(req, res, 404, `namespaces "${ns}" not found`, 'NotFound', {
        name: ns,
        kind: 'namespaces',
      });
    }
    const table = tableMode(req, query);
    if (route.verb === 'create' && ns !== undefined) {
      const lease = cluster.createLease(ns, await readBody(req));
      return send(req, res, 201, JSON.stringify(lease));
    }
    if (route.verb === 'update' && ns !== undefined && route.name !== undefined) {
      const out = cluster.updateLease(ns, route.name, await readBody(req));
      return send(req, res, out.created ? 201 : 200, JSON.stringify(out.lease));
    }
    if (route.verb === 'get' && ns !== undefined && route.name !== undefined) {
      const lease = cluster.leaseObject(ns, route.name);
      if (!lease) {
        return sendStatus(
          req,
          res,
          404,
          `leases.coordination.k8s.io "${route.name}" not found`,
          'NotFound',
          {
            name: route.name,
            group: COORDINATION,
            kind: 'leases',
          },
        );
      }
      if (!table) return send(req, res, 200, JSON.stringify(lease));
      return send(
        req,
        res,
        200,
        listResponse(
          'LeaseList',
          'coordination.k8s.io/v1',
          table,
          { items: [lease] },
          lease.metadata.resourceVersion,
          leaseRow,
        ),
      );
    }
    if (route.verb !== 'list')
      return sendStatus(
        req,
        res,
        405,
        `the server does not allow this method on the requested resource (${route.verb})`,
      );
    const params = parseListParams(query);
    const rv = cluster.listResourceVersion();
    // Keys are "namespace/name" across namespaces, or names within one.
    const namespaces = ns !== undefined ? [ns] : [...cluster.namespaces()].sort();
    const keys =
      namespaces.length === 1
        ? cluster.sortedLeaseNames(namespaces[0] as string)
        : namespaces.flatMap((n) => cluster.sortedLeaseNames(n).map((name) => `${n}/${name}`));
    const split = (key: string): [string, string] => {
      if (namespaces.length === 1) return [namespaces[0] as string, key];
      const slash = key.indexOf('/');
      return [key.slice(0, slash), key.slice(slash + 1)];
    };
    const out = page(
      keys,
      params,
      (key) => {
        const [n, name] = split(key);
        return (
          acceptName(params, name, n) &&
          (!params.selector || matchesSelector(params.selector, cluster.leaseLabels(n, name) ?? {}))
        );
      },
      (key) => {
        const [n, name] = split(key);
        return cluster.leaseObject(n, name);
      },
    );
    return send(
      req,
      res,
      200,
      listResponse('LeaseList', 'coordination.k8s.io/v1', table, out, rv, leaseRow),
    );
  };

  const serveDiscovery = (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    port: number,
  ): Promise<void> | undefined => {
    switch (path) {
      case '/version':
        return send(
          req,
          res,
          200,
          JSON.stringify({
            major: '1',
            minor: SIM_KUBE_VERSION.split('.')[1],
            gitVersion: SIM_KUBE_VERSION,
            gitCommit: '0000000000000000000000000000000000000000',
            gitTreeState: 'clean',
            buildDate: '2025-03-12T00:00:00Z',
            goVersion: 'go1.23.6',
            compiler: 'gc',
            platform: 'linux/amd64',
          }),
        );
      case '/healthz':
      case '/livez':
      case '/readyz':
        return send(req, res, 200, 'ok', 'text/plain; charset=utf-8');
      case '/api':
        // Aggregated discovery (Accept ...;g=apidiscovery.k8s.io;v=v2) is answered in the legacy
        // format with Content-Type application/json; kubectl falls back to it.
        return send(
          req,
          res,
          200,
          JSON.stringify({
            kind: 'APIVersions',
            versions: ['v1'],
            serverAddressByClientCIDRs: [
              { clientCIDR: '0.0.0.0/0', serverAddress: `${host}:${port}` },
            ],
          }),
        );
      case '/api/v1':
        return send(req, res, 200, JSON.stringify(NODE_RESOURCES));
      case '/apis':
        return send(
          req,
          res,
          200,
          JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: [COORDINATION_GROUP] }),
        );
      case '/apis/coordination.k8s.io':
        return send(
          req,
          res,
          200,
          JSON.stringify({ kind: 'APIGroup', apiVersion: 'v1', ...COORDINATION_GROUP }),
        );
      case '/apis/coordination.k8s.io/v1':
        return send(req, res, 200, JSON.stringify(LEASE_RESOURCES));
      default:
        return undefined;
    }
  };

  const handle = async (
    req: IncomingMessage,
    res: ServerResponse,
    replay = false,
  ): Promise<void> => {
    if (!replay) stats.requests++;
    const url = new URL(req.url ?? '/', 'https://sim');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const route = classify(method, path, url.searchParams);
    res.setHeader('Date', new Date(cluster.now()).toUTCString());

    const f = fault;
    if (f && faultApplies(f, route)) {
      if (f.kind === 'hang') {
        const entry = { req, res };
        hung.add(entry);
        res.on('close', () => hung.delete(entry));
        return;
      }
      if (f.kind === 'close') {
        req.socket.destroy();
        return;
      }
    }

    const auth = req.headers.authorization;
    const authorized = auth === `Bearer ${token}`;
    if (!authorized && !(auth === undefined && PUBLIC_PATHS.has(path))) {
      await sendStatus(req, res, 401, 'Unauthorized');
      return;
    }
    if (f?.kind === 'status' && faultApplies(f, route)) {
      const message = f.message ?? defaultFaultMessage(f.status, route, path);
      const details: Record<string, unknown> = {};
      if (route.resource !== 'other') {
        if (route.name) details.name = route.name;
        if (route.resource === 'leases') details.group = COORDINATION;
        details.kind = route.resource;
      }
      if (f.status === 429 || f.status === 503) res.setHeader('Retry-After', '1');
      await sendStatus(
        req,
        res,
        f.status,
        message,
        REASONS[f.status] ?? 'Unknown',
        Object.keys(details).length > 0 ? details : undefined,
      );
      return;
    }

    try {
      if (route.resource === 'nodes') {
        await serveNodes(req, res, route, url.searchParams);
      } else if (route.resource === 'leases') {
        await serveLeases(req, res, route, url.searchParams);
      } else {
        const port = (server.address() as AddressInfo).port;
        const served = method === 'GET' ? serveDiscovery(req, res, path, port) : undefined;
        if (served) await served;
        else
          await sendStatus(
            req,
            res,
            404,
            'the server could not find the requested resource',
            'NotFound',
            {},
          );
      }
    } catch (err) {
      if (err instanceof SimApiError) {
        await sendStatus(req, res, err.code, err.message, err.reason, err.details);
      } else {
        const message = err instanceof Error ? err.message : String(err);
        await sendStatus(req, res, 500, `Internal error occurred: ${message}`, 'InternalError');
      }
    }
  };

  const server = createServer(
    { key: pki.keyPem, cert: pki.certPem, keepAliveTimeout: 30_000 },
    (req, res) => {
      void handle(req, res);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const releaseHung = () => {
    for (const entry of [...hung]) {
      hung.delete(entry);
      if (!entry.res.destroyed) void handle(entry.req, entry.res, true);
    }
  };

  return {
    url,
    caPem: pki.caPem,
    token,
    kubeconfig: (kopts) => renderKubeconfig({ server: url, caPem: pki.caPem, token, opts: kopts }),
    async writeKubeconfig(path, kopts) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(
        path,
        renderKubeconfig({ server: url, caPem: pki.caPem, token, opts: kopts }),
        {
          mode: 0o600,
        },
      );
    },
    setFault(next) {
      fault = next;
      // Hung requests are answered once their fault is gone (or re-evaluated against the new one).
      if (next?.kind !== 'hang') releaseHung();
    },
    stats,
    resetStats() {
      stats.requests = 0;
      stats.bytesSent = 0;
    },
    async close() {
      fault = null;
      for (const entry of hung) entry.req.socket.destroy();
      hung.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function listMetaJson(page: Page<unknown>, rv: string): string {
  const meta: Record<string, unknown> = { resourceVersion: rv };
  if (page.continueKey !== undefined) meta.continue = encodeContinue(rv, page.continueKey);
  if (page.remaining !== undefined) meta.remainingItemCount = page.remaining;
  return JSON.stringify(meta);
}

/** A list from items already serialized one by one: no giant intermediate object. */
function jsonList(kind: string, apiVersion: string, page: Page<string>, rv: string): string {
  return `{"kind":"${kind}","apiVersion":"${apiVersion}","metadata":${listMetaJson(page, rv)},"items":[${page.items.join(',')}]}`;
}

function acceptName(params: ListParams, name: string, namespace: string | undefined): boolean {
  if (params.fieldName) {
    const eq = name === params.fieldName.value;
    if (params.fieldName.op === '=' ? !eq : eq) return false;
  }
  if (
    params.fieldNamespace !== undefined &&
    namespace !== undefined &&
    namespace !== params.fieldNamespace
  ) {
    return false;
  }
  return true;
}
