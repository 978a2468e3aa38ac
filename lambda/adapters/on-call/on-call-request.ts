/**
 * One request to a paging tool's HTTP API (PagerDuty, Opsgenie): a JSON POST bounded by
 * ON_CALL_REQUEST_TIMEOUT_MS and the caller's signal, its answer turned into OnCallSendError.
 */
import { OnCallSendError } from '../../ports/index.js';
import { bodyText } from '../notify/render/format.js';

/** How long one request to a paging tool may take. */
export const ON_CALL_REQUEST_TIMEOUT_MS = 3_000;

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
