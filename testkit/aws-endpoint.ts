/**
 * What the local AWS endpoints (SNS, STS, EC2, EKS, Secrets Manager, EventBridge) share, so that
 * each holds only its service's rules: a loopback HTTP server that closes with its connections,
 * the request body, the query protocol's form, the caller's SigV4 access key id, and answers in
 * XML (the query protocols) or JSON (the JSON and REST-JSON protocols). Never AWS.
 */
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { closeServer, listenOnLoopback } from './ports.js';

/** A local endpoint: `http://127.0.0.1:<port>`, and its server. */
export interface LocalEndpoint {
  readonly url: string;
  readonly server: Server;
  /** Stops listening and cuts every open connection (hanging requests included). */
  close(): Promise<void>;
}

type Handle = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/** A certificate and its key (PEM) to serve HTTPS with. */
export interface ServerTls {
  readonly cert: string;
  readonly key: string;
}

/**
 * Serves `handle` on 127.0.0.1 and a free port (HTTPS with `tls`). A handler that throws answers
 * what `onError` says (by default the connection is cut: a test endpoint never answers by accident).
 */
export async function serveOnLoopback(
  handle: Handle,
  onError: (res: ServerResponse, error: unknown) => void = (res) => res.destroy(),
  tls?: ServerTls,
): Promise<LocalEndpoint> {
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    Promise.resolve()
      .then(() => handle(req, res))
      .catch((error: unknown) => onError(res, error));
  };
  const server: Server = tls ? createHttpsServer(tls, listener) : createServer(listener);
  // Node's 5 s default closes an idle keep-alive socket while a client busy rendering (a
  // 100,000-node notification on a loaded machine) has not yet seen it close and writes its next
  // request there: ECONNRESET. AWS's endpoints keep connections far longer; close() cuts them all.
  server.keepAliveTimeout = 60_000;
  const url = (await listenOnLoopback(server)).replace(/^http:/, tls ? 'https:' : 'http:');
  return { url, server, close: () => closeServer(server) };
}

/** A real SDK client's settings for a local endpoint: us-east-1, fake static keys, no retries. */
export function localClientConfig(endpoint: string) {
  return {
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' },
    maxAttempts: 1,
  };
}

/** The request's body; past `maxBytes` the rest is read and dropped (`size` says how much came). */
export async function readBody(
  req: IncomingMessage,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<{ readonly body: Buffer; readonly size: number }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size <= maxBytes) chunks.push(bytes);
  }
  return { body: Buffer.concat(chunks), size };
}

/** A query-protocol request's parameters (form-encoded: `Action=…&Version=…&…`). */
export function queryForm(body: Buffer): URLSearchParams {
  return new URLSearchParams(body.toString('utf8'));
}

/** The access key id that signed the request (its SigV4 Authorization header), or ''. */
export function signedBy(req: IncomingMessage): string {
  return /Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
}

export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** An error as the query protocols of SNS and STS send it. */
export interface QueryFault {
  readonly type: 'Sender' | 'Receiver';
  readonly code: string;
  readonly message: string;
}

/** The `<ErrorResponse>` of a query protocol (`xmlns` names the service's API version). */
export function queryErrorXml(xmlns: string, fault: QueryFault, requestId: string): string {
  return (
    `<ErrorResponse xmlns="${xmlns}"><Error><Type>${fault.type}</Type><Code>${fault.code}</Code>` +
    `<Message>${escapeXml(fault.message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`
  );
}

/** An XML answer with its length and a request id. */
export function sendXml(
  res: ServerResponse,
  status: number,
  xml: string,
  options: { readonly requestId?: string; readonly contentType?: string } = {},
): void {
  send(res, status, xml, {
    'content-type': options.contentType ?? 'text/xml',
    'x-amzn-requestid': options.requestId ?? 'local-request',
  });
}

/**
 * A JSON answer: the JSON 1.1 protocol's by default (Secrets Manager, EventBridge: the error type
 * in the body's `__type`), or REST-JSON's (EKS: `application/json`, the error type in a header).
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  options: { readonly contentType?: string; readonly errorType?: string } = {},
): void {
  send(res, status, JSON.stringify(body), {
    'content-type': options.contentType ?? 'application/x-amz-json-1.1',
    'x-amzn-requestid': 'local-request',
    ...(options.errorType ? { 'x-amzn-errortype': options.errorType } : {}),
  });
}

function send(res: ServerResponse, status: number, text: string, headers: OutgoingHttpHeaders) {
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
