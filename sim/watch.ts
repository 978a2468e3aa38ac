/**
 * `watch=true` on any resource: a stream of watch events (one JSON object per line) as
 * kube-apiserver sends them. Without a resourceVersion (or with "0") the stream opens with an
 * ADDED event per matching object; then the sim polls its (lazily computed) state and sends
 * ADDED, MODIFIED and DELETED as objects appear, change resourceVersion and go away, until
 * timeoutSeconds or the client hangs up. With Table output each object is a one-row Table.
 */
import type { SimCluster } from './cluster.js';
import { acceptor, keySpace, type ResourceRequest } from './list-scope.js';
import { parseListParams } from './paging.js';
import type { ApiObject, ResourceKind } from './resources.js';
import { tableJson, tableMode } from './table.js';

const POLL_MS = 500;
const DEFAULT_TIMEOUT_S = 1800;

type Snapshot = Map<string, ApiObject>;

function snapshot(
  cluster: SimCluster,
  r: ResourceKind,
  rr: ResourceRequest,
  ns?: string,
): Snapshot {
  const params = parseListParams(rr.query, r.fields);
  const { keys, split } = keySpace(cluster, r, ns, params.fields);
  const accept = acceptor(r, params, split);
  const out: Snapshot = new Map();
  for (const key of keys) {
    if (!accept(key)) continue;
    const obj = r.get(...split(key));
    if (obj) out.set(key, obj);
  }
  return out;
}

export function serveWatch(
  cluster: SimCluster,
  r: ResourceKind,
  rr: ResourceRequest,
  ns: string | undefined,
): void {
  const { req, res, query } = rr;
  let seen = snapshot(cluster, r, rr, ns);
  const table = tableMode(req, query);
  const encode = (type: string, obj: ApiObject) => {
    const object = table
      ? tableJson(table, r.columns, { items: [obj] }, obj.metadata.resourceVersion, r.row)
      : JSON.stringify(obj);
    return `{"type":"${type}","object":${object}}\n`;
  };
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  const rv = query.get('resourceVersion');
  if (!rv || rv === '0') for (const obj of seen.values()) res.write(encode('ADDED', obj));
  const poll = () => {
    if (res.destroyed) return;
    const now = snapshot(cluster, r, rr, ns);
    for (const [key, obj] of now) {
      const before = seen.get(key);
      if (!before) res.write(encode('ADDED', obj));
      else if (before.metadata.resourceVersion !== obj.metadata.resourceVersion) {
        res.write(encode('MODIFIED', obj));
      }
    }
    for (const [key, obj] of seen) if (!now.has(key)) res.write(encode('DELETED', obj));
    seen = now;
  };
  const timer = setInterval(poll, POLL_MS);
  const timeoutS = Number(query.get('timeoutSeconds') ?? DEFAULT_TIMEOUT_S);
  const stop = setTimeout(
    () => res.end(),
    (Number.isFinite(timeoutS) ? timeoutS : DEFAULT_TIMEOUT_S) * 1000,
  );
  timer.unref();
  stop.unref();
  res.on('close', () => {
    clearInterval(timer);
    clearTimeout(stop);
  });
}
