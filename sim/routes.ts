/**
 * Request routing: which resource, verb, namespace and name a request path addresses (for
 * faults, RBAC-style messages and dispatch). Resource paths are `/api/v1/...` for the core group
 * and `/apis/<group>/v1/...` for the others, optionally under `namespaces/<ns>/`.
 */

export interface Route {
  /** The resource's plural name (`nodes`, `leases`, `events`...) or `other` (discovery, health). */
  resource: string;
  /** API group; '' for core. */
  group: string;
  verb: string;
  namespace?: string;
  name?: string;
}

const RESOURCE_PATH =
  /^\/(?:api\/v1|apis\/([a-z0-9.-]+)\/v1)\/(?:namespaces\/([^/]+)\/)?([a-z]+)(?:\/([^/]+))?\/?$/;

function itemVerb(method: string): string {
  switch (method) {
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return 'get';
  }
}

export function isWatch(query: URLSearchParams): boolean {
  return query.get('watch') === 'true' || query.get('watch') === '1';
}

/** Parses the request path into the resource it addresses. */
export function classify(method: string, path: string, query: URLSearchParams): Route {
  const m = RESOURCE_PATH.exec(path);
  if (!m) {
    return {
      resource: 'other',
      group: '',
      verb: method === 'GET' ? 'get' : method.toLowerCase(),
    };
  }
  const [, group = '', ns, resource = '', rawName] = m;
  const name = rawName && decodeURIComponent(rawName);
  const collectionVerb =
    method === 'POST'
      ? 'create'
      : method === 'DELETE'
        ? 'deletecollection'
        : isWatch(query)
          ? 'watch'
          : 'list';
  const route: Route = { resource, group, verb: name ? itemVerb(method) : collectionVerb };
  if (ns) route.namespace = decodeURIComponent(ns);
  if (name) route.name = name;
  return route;
}
