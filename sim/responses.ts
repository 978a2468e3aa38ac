/**
 * Writing answers and reading bodies: headers like kube-apiserver's, gzip over 128 KiB when the
 * client accepts it, Status errors, and a size-limited JSON body reader.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import { SimApiError } from './objects.js';
import { PROTOBUF, statusProto, wantsProtobuf } from './protobuf.js';
import { BadRequest, REASONS, statusBody } from './status.js';

const gzip = promisify(gzipCb);
const GZIP_THRESHOLD = 128 * 1024;
const MAX_BODY = 3 * 1024 * 1024;

/** One answer as it went out: what was asked for, and the bytes on the wire and decoded. */
export interface SentAnswer {
  readonly method: string;
  /** Path and query, as requested. */
  readonly url: string;
  readonly accept: string | undefined;
  readonly acceptEncoding: string | undefined;
  readonly status: number;
  readonly contentType: string;
  readonly contentEncoding: string | undefined;
  /** Body bytes on the wire (compressed when gzipped). */
  readonly bytes: number;
  /** Body bytes before compression. */
  readonly decodedBytes: number;
}

/** The last answers kept by the request log. */
const LOG_LIMIT = 10_000;

export interface Responder {
  send(
    req: IncomingMessage,
    res: ServerResponse,
    code: number,
    body: string | Buffer,
    contentType?: string,
  ): Promise<void>;
  sendStatus(
    req: IncomingMessage,
    res: ServerResponse,
    code: number,
    message: string,
    reason?: string,
    details?: Record<string, unknown>,
  ): Promise<void>;
}

export function createResponder(opts: {
  compression: boolean;
  stats: { bytesSent: number };
  /** Every answer sent, oldest first, the last LOG_LIMIT of them. */
  log?: SentAnswer[];
}): Responder {
  const send: Responder['send'] = async (
    req,
    res,
    code,
    body,
    contentType = 'application/json',
  ) => {
    let payload: Buffer = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const decodedBytes = payload.length;
    const headers: Record<string, string | number> = {
      'Content-Type': contentType,
      'Cache-Control': 'no-cache, private',
      'X-Kubernetes-Pf-Flowschema-Uid': 'sim',
      'Audit-Id': randomBytes(16).toString('hex'),
    };
    if (
      opts.compression &&
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
    opts.stats.bytesSent += payload.length;
    if (opts.log) {
      if (opts.log.length >= LOG_LIMIT) opts.log.shift();
      opts.log.push({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        accept: req.headers.accept,
        acceptEncoding: req.headers['accept-encoding'],
        status: code,
        contentType,
        contentEncoding: headers['Content-Encoding'] as string | undefined,
        bytes: payload.length,
        decodedBytes,
      });
    }
  };
  const sendStatus: Responder['sendStatus'] = (
    req,
    res,
    code,
    message,
    reason = REASONS[code] ?? 'Unknown',
    details,
  ) =>
    // As kube-apiserver: a Status in the encoding the request asked for.
    wantsProtobuf(req.headers.accept)
      ? send(req, res, code, statusProto(code, reason, message, details), PROTOBUF)
      : send(req, res, code, statusBody(code, reason, message, details));
  return { send, sendStatus };
}

/** The request body parsed as JSON (413 over 3 MiB, 400 when not JSON; `empty` when none). */
export function readBody(req: IncomingMessage, empty?: unknown): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY)
        reject(new SimApiError(413, 'RequestEntityTooLarge', 'request body too large'));
      else chunks.push(c);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (empty !== undefined && text.trim() === '') {
        resolve(empty);
        return;
      }
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new BadRequest('the request body is not valid JSON'));
      }
    });
    req.on('error', reject);
  });
}
