/**
 * Turns what went wrong while reading a cluster into one ClusterReadError with one clear line:
 * an HTTP status, a transport failure (TLS, unreachable), or credentials that could not be set up.
 */

import {
  ClusterReadError,
  type ClusterReadFailure,
  type KubeConfigView,
} from '../../../ports/index.js';
import { record, str } from '../decode/projection.js';
import { nodeHttp } from './node-http.js';

export type Resource = 'leases' | 'nodes' | 'events';

/** What the messages name: the API server's host and the lease namespace. */
export interface ReadTarget {
  readonly host: string;
  readonly namespace: string;
}

interface Status {
  readonly message?: string;
  readonly reason?: string;
}

const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** Walks an error's `cause` chain for a Node error code. */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

/** A ClusterReadError with no HTTP status, caused by `error`. */
export function causedBy(error: unknown) {
  return (failure: ClusterReadFailure, message: string) =>
    new ClusterReadError(failure, message, undefined, { cause: error });
}

/** The host the messages name; 'the API server' when the URL does not parse. */
export function hostOf(server: string): string {
  return URL.parse(server)?.host ?? 'the API server';
}

/** What a request was doing, for messages: "listing leases in namespace kube-node-lease". */
export function describeRead(resource: Resource, namespace: string): string {
  if (resource === 'events') return "listing a node's events";
  return resource === 'leases' ? `listing leases in namespace ${namespace}` : 'listing nodes';
}

/**
 * The kubeconfig's credentials could not be applied (exec plugin missing or failing, bad files).
 * A failing exec plugin's stderr (client-node makes it the error's message) can echo credentials:
 * it is quoted only when `showPluginStderr` (the CLI's --verbose). What the plugin printed on
 * stdout (the credential itself) is never quoted.
 */
export function authSetupError(
  error: unknown,
  kubeConfig: KubeConfigView,
  showPluginStderr = false,
): ClusterReadError {
  const code = errorCode(error);
  const user = kubeConfig.getCurrentUser();
  const command =
    user?.exec?.command ?? (user?.authProvider?.config?.exec?.command as string | undefined);
  if (code === 'ENOENT' && command) {
    return causedBy(error)(
      'exec-plugin',
      `the kubeconfig user "${user?.name}" needs the credential plugin "${command}", which is not installed or not on PATH`,
    );
  }
  if (command) {
    const why =
      error instanceof SyntaxError
        ? 'it did not print an ExecCredential (JSON)'
        : showPluginStderr
          ? firstLine(error)
          : 'pass -v/--verbose to see what it wrote to stderr (it can hold credentials)';
    return causedBy(error)(
      'exec-plugin',
      `the credential plugin "${command}" of kubeconfig user "${user?.name}" failed: ${why}`,
    );
  }
  return causedBy(error)('config', `cannot use the kubeconfig's credentials: ${firstLine(error)}`);
}

/** The API server answered with an error status; `text` is its body (a Status object, usually). */
export function statusError(
  target: ReadTarget,
  resource: Resource,
  status: number,
  text: string,
): ClusterReadError {
  let detail: Status = {};
  try {
    detail = record(JSON.parse(text)) as Status;
  } catch {
    // Not a Status object: fall back to the HTTP status text.
  }
  const serverSays = detail.message ? `: ${oneLine(detail.message)}` : '';
  const { host, namespace: ns } = target;
  switch (true) {
    case status === 401:
      return new ClusterReadError(
        'unauthorized',
        `the API server at ${host} rejected the credentials (401 Unauthorized): the token or certificate is wrong or expired`,
        status,
      );
    case status === 403: {
      const scope = resource === 'leases' ? `leases in namespace ${ns}` : 'nodes';
      const group = resource === 'leases' ? ' (API group coordination.k8s.io)' : '';
      return new ClusterReadError(
        'forbidden',
        `cannot list ${scope}${group} (403 Forbidden)${serverSays} — grant get/list on ${resource}, see deploy/rbac.yaml`,
        status,
      );
    }
    case status === 404:
      return new ClusterReadError(
        'not-found',
        resource === 'leases'
          ? `namespace ${ns} not found (404): node leases live in kube-node-lease; check --namespace`
          : `nodes not found (404) at ${host}: is this a Kubernetes API server?`,
        status,
      );
    default:
      return new ClusterReadError(
        'server',
        `the API server answered ${status} ${nodeHttp().STATUS_CODES[status] ?? ''}`.trimEnd() +
          ` to ${describeRead(resource, ns)}${serverSays}`,
        status,
      );
  }
}

/** No HTTP answer: TLS verification failed, the server is unreachable, or the connection broke. */
export function transportError(target: ReadTarget, what: string, error: unknown): ClusterReadError {
  const code = errorCode(error);
  const { host } = target;
  if (code && TLS_CODES.has(code)) {
    const hint =
      code === 'ERR_TLS_CERT_ALTNAME_INVALID'
        ? 'the certificate does not name this host (check the server URL or tls-server-name)'
        : "the server's certificate is not signed by the CA in the kubeconfig (check certificate-authority-data)";
    return causedBy(error)('tls', `TLS verification of ${host} failed (${code}): ${hint}`);
  }
  if (code && UNREACHABLE_CODES.has(code)) {
    return causedBy(error)(
      'unreachable',
      `cannot reach the API server at ${host} (${code}) while ${what}: check the server URL, DNS and the network path`,
    );
  }
  return causedBy(error)(
    'unreachable',
    `${what} at ${host} failed: ${firstLine(error)}${code ? ` (${code})` : ''}`,
  );
}

/**
 * The API server answered 200 with something other than what was asked for: a Status, an empty
 * object, another kind (a proxy or an aggregated API in the way). Never read as an empty list:
 * the watchdog would think the cluster has no nodes.
 */
export function invalidAnswerError(
  what: string,
  expected: string,
  body: unknown,
): ClusterReadError {
  return new ClusterReadError(
    'invalid-response',
    `the API server's answer to ${what} is not ${article(expected)} ${expected} (got ${describeBody(body, expected)})`,
    200,
  );
}

/** What a parsed JSON body is, in a few words: "a Status: ...", "a PodList", "an empty object". */
function describeBody(body: unknown, expected: string): string {
  if (body === null) return 'null';
  if (Array.isArray(body)) return 'a JSON array';
  if (typeof body !== 'object') return `a JSON ${typeof body}`;
  const fields = body as Record<string, unknown>;
  const kind = str(fields.kind);
  if (kind === 'Status') {
    const says = str(fields.message) || str(fields.reason);
    return says ? `a Status: ${oneLine(says)}` : 'a Status';
  }
  if (kind === expected) return `${article(kind)} ${kind} whose items are not a list`;
  if (kind) return `${article(kind)} ${oneLine(kind)}`;
  return Object.keys(fields).length === 0 ? 'an empty object' : 'an object without a kind';
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/**
 * `text` with every credential in `secrets` replaced by `[redacted]`: an API server, a gateway or
 * a proxy may echo the request's Authorization header in its error text, and that text reaches
 * emails, documents, state, logs and stderr. Redacted before any quote is cut, so that no part of
 * a credential survives the cut either.
 */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) {
    if (clean.includes(secret)) clean = clean.split(secret).join('[redacted]');
  }
  return clean;
}

/**
 * `error` with its message redacted (withoutSecrets): every ClusterReadError a read lets out, from
 * whatever text it was built.
 */
export function redactedError(error: unknown, secrets: readonly string[]): unknown {
  if (!(error instanceof ClusterReadError)) return error;
  const message = withoutSecrets(error.message, secrets);
  if (message === error.message) return error;
  return new ClusterReadError(error.failure, message, error.statusCode, { cause: error.cause });
}

/** `text` without the `user:pass@` of any URL in it: a password must never reach a message. */
function withoutUserInfo(text: string): string {
  return text.replace(/\/\/[^\s/@]+@/g, '//');
}

export function oneLine(text: string): string {
  const flat = withoutUserInfo(text).replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return oneLine(message.split('\n')[0] ?? message);
}
