/**
 * One request to a paging tool's HTTP API (PagerDuty, Opsgenie): a JSON POST bounded by
 * ON_CALL_REQUEST_TIMEOUT_MS and the caller's signal, its answer turned into OnCallSendError.
 */
import { OnCallSendError } from '../../ports/index.js';
import { bodyText } from '../notify/render/format.js';
import type { SecretKey } from './secret-key.js';

/** How long one request to a paging tool may take. */
export const ON_CALL_REQUEST_TIMEOUT_MS = 3_000;

/** One POST to a tool, built from its key: where, what, and the headers (they may hold the key). */
export interface KeyedRequest {
  readonly url: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Reads the tool's key (cached, secret-key.ts), builds the request with it and POSTs it, all
 * within ON_CALL_REQUEST_TIMEOUT_MS and the caller's signal.
 */
export async function postWithKey(
  key: SecretKey,
  tool: string,
  signal: AbortSignal,
  build: (key: string) => KeyedRequest,
): Promise<void> {
  const limited = AbortSignal.any([signal, AbortSignal.timeout(ON_CALL_REQUEST_TIMEOUT_MS)]);
  const request = build(await key.value(limited));
  await postJson(request.url, request.body, request.headers ?? {}, limited, tool);
}

/**
 * POSTs a JSON body; resolves on a 2xx, throws OnCallSendError otherwise: 429 and 5xx and the
 * network are retryable, other answers are not. Neither the body nor the headers (they hold the
 * key) reach the error.
 */
export async function postJson(
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
  tool: string,
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body,
      signal,
      redirect: 'error',
    });
  } catch (error) {
    const name = signal.aborted ? 'timeout' : error instanceof Error ? error.name : 'error';
    throw new OnCallSendError(`${tool} not reached (${name})`, true);
  }
  const answer = bodyText(await response.text().catch(() => ''), 200);
  if (response.ok) return;
  const retryable = response.status === 429 || response.status >= 500;
  throw new OnCallSendError(
    `${tool} answered ${response.status}${answer ? `: ${answer}` : ''}`,
    retryable,
    response.status,
  );
}
