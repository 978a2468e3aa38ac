/**
 * Kubernetes Status errors: the body every failed request gets, the reason for each HTTP code,
 * and the messages of injected faults (an RBAC-style 403 names the user, verb and resource).
 */
import { SimApiError } from './objects.js';
import type { Route } from './routes.js';

/** The identity named in RBAC-style 403 messages. */
export const SIM_FORBIDDEN_USER = 'system:serviceaccount:lease-watchdog:lease-watchdog';

export class BadRequest extends SimApiError {
  constructor(message: string) {
    super(400, 'BadRequest', message);
  }
}

export const REASONS: Record<number, string> = {
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

export function statusBody(
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

/** `leases.coordination.k8s.io` or `nodes`: how the API names a resource in messages. */
export function qualifiedName(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource;
}

/** Status details naming the object a request addressed. */
export function routeDetails(route: Route): Record<string, unknown> | undefined {
  if (route.resource === 'other') return undefined;
  const details: Record<string, unknown> = {};
  if (route.name) details.name = route.name;
  if (route.group) details.group = route.group;
  details.kind = route.resource;
  return details;
}

function forbiddenMessage(route: Route, path: string): string {
  const user = `User "${SIM_FORBIDDEN_USER}"`;
  if (route.resource === 'other') return `forbidden: ${user} cannot get path "${path}"`;
  const what = qualifiedName(route.resource, route.group);
  const subject = route.name ? `${what} "${route.name}"` : what;
  const scope = route.namespace ? `in the namespace "${route.namespace}"` : 'at the cluster scope';
  return `${subject} is forbidden: ${user} cannot ${route.verb} resource "${route.resource}" in API group "${route.group}" ${scope}`;
}

export function defaultFaultMessage(status: number, route: Route, path: string): string {
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
