/**
 * What an answer's body reads as, whatever it came in: JSON (pruned to the fields a page keeps,
 * pruned-json.ts), or Kubernetes' protobuf when it was asked for first and the server answered
 * in it (node-protobuf.ts). An error's body is read as the text `statusError` quotes, its
 * protobuf Status decoded first. transport.ts fetches the bytes; this module reads them.
 */

import { ClusterReadError } from '../../../ports/index.js';
import type { ExchangeResponse } from '../http/http-exchange.js';
import { decodeOther, isProtobuf } from './node-protobuf.js';
import { PageValuesError } from './page-values.js';
import { record } from './projection.js';
import { ALL, type Keep, parseKept } from './pruned-json.js';

/** How a body is read: pruned by `keep`, or by `protobuf` when the answer came in protobuf. */
export interface BodyReading {
  readonly keep?: Keep | undefined;
  readonly protobuf?: ((body: Buffer) => unknown) | undefined;
}

/** Sees every 2xx answer body before it is parsed: `bench/check-once.ts --floor` keeps them. */
let bodyTap: ((body: Buffer) => void) | undefined;

/** Sets (or, with undefined, removes) the one body tap. For the bench's floor, never the check. */
export function tapBodies(tap: ((body: Buffer) => void) | undefined): void {
  bodyTap = tap;
}

/**
 * A 2xx body, read; `described` is the JSON an answer of another kind is described from
 * (wholeBody): the body itself, or for protobuf what was read of it, its kind and a Status's
 * words, never its bytes. Unreadable: the one-line invalid-response error.
 */
export function readBody(
  answer: Pick<ExchangeResponse, 'body' | 'contentType' | 'status'>,
  reading: BodyReading,
  what: string,
): { body: unknown; described: Buffer } {
  const { body: raw, contentType, status } = answer;
  // A copy: a gzip body's buffer is reused for the next answer (gzip-inflater.ts).
  bodyTap?.(Buffer.from(raw));
  const decode = isProtobuf(contentType) ? reading.protobuf : undefined;
  let body: unknown;
  try {
    // No page-sized string but for a small page: the pruned reader works on the bytes, and
    // counts what it builds (page-values.ts).
    body = decode ? decode(raw) : parseKept(raw, reading.keep ?? ALL);
  } catch (error) {
    const type = contentType?.split(';')[0];
    const why =
      error instanceof PageValuesError
        ? `holds ${error.message}: read given up`
        : `is not ${decode ? 'valid protobuf' : 'JSON'}`;
    throw new ClusterReadError(
      'invalid-response',
      `the API server's answer to ${what} ${why} (HTTP ${status}${type ? `, ${type}` : ''})`,
    );
  }
  return { body, described: decode ? Buffer.from(JSON.stringify(summary(body))) : raw };
}

/** An error's body as the text `statusError` reads: a protobuf Status as its JSON (else empty). */
export function errorText(raw: Buffer, contentType: string | undefined): string {
  if (!isProtobuf(contentType)) return raw.toString('utf8');
  try {
    return JSON.stringify(decodeOther(raw));
  } catch {
    return '';
  }
}

/** What an error may quote of a protobuf answer: its kind and a Status's words, not its items. */
function summary(body: unknown): Record<string, unknown> {
  const { kind, apiVersion, status, message, reason, code } = record(body);
  return { kind, apiVersion, status, message, reason, code };
}
