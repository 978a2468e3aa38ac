/**
 * What a list or a watch of a resource covers: the request it answers, the keys in its scope, and
 * which of them its label and field selectors accept. Shared by the list (resource-handler.ts) and
 * the watch (watch.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { matchesSelector } from '../lambda/core/selector.js';
import type { SimCluster } from './cluster.js';
import { type FieldTerm, type ListParams, matchesFields } from './paging.js';
import type { ResourceKind } from './resources.js';
import type { Route } from './routes.js';

export interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  route: Route;
  query: URLSearchParams;
  /** Every list in one page, whatever its `limit` (see SimServer.ignoreLimit). */
  ignoreLimit?: boolean;
}

/** Keys "namespace/name" across namespaces, or names within one namespace (or the cluster). */
export function keySpace(
  cluster: SimCluster,
  r: ResourceKind,
  ns: string | undefined,
  fields: readonly FieldTerm[],
) {
  if (!r.namespaced || ns !== undefined) {
    return {
      keys: r.names(ns, fields),
      split: (key: string): [string | undefined, string] => [ns, key],
    };
  }
  const namespaces = [...cluster.namespaces()].sort();
  const keys = namespaces.flatMap((n) => r.names(n, fields).map((name) => `${n}/${name}`));
  const split = (key: string): [string | undefined, string] => {
    const slash = key.indexOf('/');
    return [key.slice(0, slash), key.slice(slash + 1)];
  };
  return { keys, split };
}

export function acceptor(
  r: ResourceKind,
  params: ListParams,
  split: (key: string) => [string | undefined, string],
) {
  const metaFields = params.fields.filter((t) => t.field.startsWith('metadata.'));
  const otherFields = params.fields.filter((t) => !t.field.startsWith('metadata.'));
  return (key: string): boolean => {
    const [n, name] = split(key);
    const meta = (field: string) => (field === 'metadata.name' ? name : n);
    if (!matchesFields(metaFields, meta)) return false;
    if (params.selector && !matchesSelector(params.selector, r.labels(n, name) ?? {})) return false;
    if (otherFields.length === 0) return true;
    const obj = r.get(n, name);
    return obj !== undefined && matchesFields(otherFields, (f) => r.fieldValue?.(obj, f));
  };
}
