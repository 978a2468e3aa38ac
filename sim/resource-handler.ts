/**
 * The one generic path every resource takes: get one, list (paging, label and field selectors,
 * Table output), and the writes a resource accepts (create, update, patch, delete).
 */
import type { SimCluster } from './cluster.js';
import { acceptor, keySpace, type ResourceRequest } from './list-scope.js';
import { isRecord, type KubeNode, SimApiError } from './objects.js';
import { encodeContinue, jsonList, page, parseListParams } from './paging.js';
import { applyPatch } from './patches.js';
import { nodeListProto, nodeProto, PROTOBUF, wantsProtobuf } from './protobuf.js';
import { type ApiObject, apiVersionOf, type ResourceKind } from './resources.js';
import { type Responder, readBody } from './responses.js';
import type { Route } from './routes.js';
import { qualifiedName } from './status.js';
import { tableJson, tableMode } from './table.js';
import { serveWatch } from './watch.js';

function notFound(r: ResourceKind, name: string): SimApiError {
  const details: { name: string; group?: string; kind: string } = { name, kind: r.plural };
  if (r.group) details.group = r.group;
  return new SimApiError(
    404,
    'NotFound',
    `${qualifiedName(r.plural, r.group)} "${name}" not found`,
    details,
  );
}

function methodNotAllowed(verb: string): SimApiError {
  return new SimApiError(
    405,
    'MethodNotAllowed',
    `the server does not allow this method on the requested resource (${verb})`,
  );
}

export async function serveResource(
  cluster: SimCluster,
  r: ResourceKind,
  io: Responder,
  rr: ResourceRequest,
): Promise<void> {
  const { req, res, route } = rr;
  const ns = r.namespaced ? route.namespace : undefined;
  if (ns !== undefined && !cluster.hasNamespace(ns)) {
    throw new SimApiError(404, 'NotFound', `namespaces "${ns}" not found`, {
      name: ns,
      kind: 'namespaces',
    });
  }
  const name = route.name;
  const nsOk = !r.namespaced || ns !== undefined;
  const send = (code: number, obj: ApiObject) => io.send(req, res, code, JSON.stringify(obj));
  const isDelete = route.verb === 'delete' || route.verb === 'deletecollection';
  // DELETE carries its options (dryRun, preconditions) in an optional DeleteOptions body.
  const deleteOptions = isDelete ? await readBody(req, {}) : undefined;
  const bodyDryRun = isRecord(deleteOptions) ? deleteOptions.dryRun : undefined;
  if (
    rr.query.get('dryRun') === 'All' ||
    (Array.isArray(bodyDryRun) && bodyDryRun.includes('All'))
  ) {
    if (route.verb !== 'get' && route.verb !== 'list' && route.verb !== 'watch') {
      return send(...(await dryRun(r, route, rr, ns)));
    }
  }
  if (route.verb === 'create' && nsOk && r.create && ns !== undefined) {
    return send(201, r.create(ns, await readBody(req)));
  }
  if (name !== undefined && nsOk) {
    if (route.verb === 'get') return serveOne(r, io, rr, ns, name);
    if (route.verb === 'update' && r.update && ns !== undefined) {
      const out = r.update(ns, name, await readBody(req));
      return send(out.created ? 201 : 200, out.object);
    }
    if (route.verb === 'patch' && r.patch) {
      const type =
        String(req.headers['content-type'] ?? '')
          .split(';')[0]
          ?.trim() ?? '';
      return send(200, r.patch(ns, name, type, await readBody(req)));
    }
    if (route.verb === 'delete' && r.delete) return send(200, r.delete(ns, name));
  }
  if (route.verb === 'list') return serveList(cluster, r, io, rr, ns);
  if (route.verb === 'watch') return serveWatch(cluster, r, rr, ns);
  throw methodNotAllowed(route.verb);
}

/** dryRun=All: validate what can be validated and answer as if written, changing nothing. */
async function dryRun(
  r: ResourceKind,
  route: Route,
  { req }: ResourceRequest,
  ns: string | undefined,
): Promise<[number, ApiObject]> {
  const name = route.name;
  const body =
    route.verb === 'delete' || route.verb === 'deletecollection' ? undefined : await readBody(req);
  if (route.verb === 'create' && r.create) return [201, body as ApiObject];
  if (name === undefined || !r.verbs.includes(route.verb)) throw methodNotAllowed(route.verb);
  const current = r.get(ns, name);
  if (route.verb === 'update' && r.update) return [current ? 200 : 201, body as ApiObject];
  if (!current) throw notFound(r, name);
  if (route.verb === 'patch') {
    const type =
      String(req.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim() ?? '';
    return [200, applyPatch(current, type, body) as ApiObject];
  }
  return [200, current];
}

async function serveOne(
  r: ResourceKind,
  io: Responder,
  { req, res, query }: ResourceRequest,
  ns: string | undefined,
  name: string,
): Promise<void> {
  const obj = r.get(ns, name);
  if (!obj) throw notFound(r, name);
  const table = tableMode(req, query);
  if (!table && r.kind === 'Node' && wantsProtobuf(req.headers.accept)) {
    return io.send(req, res, 200, nodeProto(obj as KubeNode), PROTOBUF);
  }
  if (!table) return io.send(req, res, 200, JSON.stringify(obj));
  const rv = obj.metadata.resourceVersion;
  return io.send(req, res, 200, tableJson(table, r.columns, { items: [obj] }, rv, r.row));
}

async function serveList(
  cluster: SimCluster,
  r: ResourceKind,
  io: Responder,
  { req, res, query, ignoreLimit }: ResourceRequest,
  ns: string | undefined,
): Promise<void> {
  const params = parseListParams(query, r.fields);
  if (ignoreLimit) params.limit = 0;
  const rv = cluster.listResourceVersion();
  const { keys, split } = keySpace(cluster, r, ns, params.fields);
  const accept = acceptor(r, params, split);
  const table = tableMode(req, query);
  if (table) {
    const out = page(keys, params, accept, (key) => r.get(...split(key)));
    return io.send(req, res, 200, tableJson(table, r.columns, out, rv, r.row));
  }
  // Nodes in protobuf when asked for first, as kube-apiserver serves its own types (sim/protobuf.ts).
  if (r.kind === 'Node' && wantsProtobuf(req.headers.accept)) {
    const out = page(keys, params, accept, (key) => r.get(...split(key)) as KubeNode | undefined);
    const meta = {
      resourceVersion: rv,
      continue: out.continueKey === undefined ? undefined : encodeContinue(rv, out.continueKey),
      remainingItemCount: out.remaining,
    };
    return io.send(req, res, 200, nodeListProto(meta, out.items), PROTOBUF);
  }
  const json =
    r.json ??
    ((n: string | undefined, name: string) => {
      const obj = r.get(n, name);
      return obj && JSON.stringify(obj);
    });
  const out = page(keys, params, accept, (key) => json(...split(key)));
  return io.send(req, res, 200, jsonList(`${r.kind}List`, apiVersionOf(r), out, rv));
}
