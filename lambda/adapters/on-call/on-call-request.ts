/**
 * One request to a paging tool's HTTP API (PagerDuty, Opsgenie): a JSON POST bounded by
 * ON_CALL_REQUEST_TIMEOUT_MS and the caller's signal, its answer turned into OnCallSendError by
 * the one retry rule (retryAnswer). The tool's error text is quoted with the key redacted, by the
 * redaction the cluster reader uses (kube/http/read-errors.ts `withoutSecrets`).
 */
import { OnCallSendError } from '../../ports/index.js';
import { withoutSecrets } from '../kube/http/read-errors.js';
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
 * A 4xx whose text blames the key, not the event: PagerDuty documents only 202, 400, 429 and
 * 5xx, and answers a routing key it does not know with a 400 whose errors name `routing_key`.
 */
const KEY_REFUSED = /routing[ _]?key|api[ _]?key|integration key|GenieKey/i;

/**
 * The retry rule: retry what passes (429, 5xx, the network) and what a person can fix (401, 403,
 * 404, and a 400 that blames the key); give up on a request the tool calls malformed (other 4xx).
 * `keyRefused`: the key itself was refused, so the cached key is read again.
 */
export function retryAnswer(status: number, text: string) {
  const keyRefused =
    status === 401 || status === 403 || (status >= 400 && status < 500 && KEY_REFUSED.test(text));
  const retryable = keyRefused || status === 404 || status === 429 || status >= 500;
  return { retryable, keyRefused };
}

/**
 * Reads the tool's key (cached, secret-key.ts) at `version` (absent: the current one), builds the
 * request with it and POSTs it, all within ON_CALL_REQUEST_TIMEOUT_MS and the caller's signal;
 * resolves with the key's version. A refused key is dropped from the cache, so that a fixed or
 * rotated key is read at the next attempt.
 */
export async function postWithKey(
  { key, version }: { readonly key: SecretKey; readonly version?: string | undefined },
  tool: string,
  signal: AbortSignal,
  build: (key: string) => KeyedRequest,
): Promise<string | undefined> {
  const limited = AbortSignal.any([signal, AbortSignal.timeout(ON_CALL_REQUEST_TIMEOUT_MS)]);
  const { value, version: used } = await key.value(limited, version);
  const answer = await postJson(build(value), tool, limited);
  if (answer === null) return used;
  const { retryable, keyRefused } = retryAnswer(answer.status, answer.text);
  if (keyRefused) key.forget();
  const text = bodyText(withoutSecrets(answer.text, [value]), 200);
  throw new OnCallSendError(
    `${tool} answered ${answer.status}${text ? `: ${text}` : ''}`,
    retryable,
    answer.status,
    answer.retryAfterMs,
  );
}

/**
 * POSTs a JSON body; null on a 2xx, else the status and the answer's text (to be redacted before
 * it is quoted). A network failure or a timeout throws a retryable OnCallSendError that quotes
 * nothing of the request.
 */
async function postJson(
  request: KeyedRequest,
  tool: string,
  signal: AbortSignal,
): Promise<{ status: number; text: string; retryAfterMs: number | undefined } | null> {
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...request.headers },
      body: request.body,
      signal,
      redirect: 'error',
    });
  } catch (error) {
    const name = signal.aborted ? 'timeout' : error instanceof Error ? error.name : 'error';
    throw new OnCallSendError(`${tool} not reached (${name})`, true);
  }
  const text = await response.text().catch(() => '');
  if (response.ok) return null;
  return { status: response.status, text, retryAfterMs: retryAfterMs(response.headers) };
}

/** `Retry-After` (RFC 9110: delay-seconds, or an HTTP-date against the answer's `Date`), ms. */
function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after')?.trim() ?? '';
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value) - Date.parse(headers.get('date') ?? '');
  return Number.isFinite(at) ? Math.max(0, at) : undefined;
}

/**
 * The events sent under one key in the last minute, so that the container never sends a tool more
 * than `perMinute` under one key (PAGERDUTY_EVENTS_PER_MINUTE), whatever clusters share it.
 */
export class KeyRate {
  readonly #sent: number[] = [];

  constructor(
    private readonly clock: () => number,
    private readonly perMinute: number,
  ) {}

  /** Takes a slot now, or throws a retryable OnCallSendError (429) saying when one frees. */
  take(tool: string): void {
    const now = this.clock();
    while ((this.#sent[0] ?? now) <= now - 60_000) this.#sent.shift();
    const oldest = this.#sent[0];
    if (oldest !== undefined && this.#sent.length >= this.perMinute) {
      const message = `${tool}: ${this.perMinute} events sent in the last minute, its limit per key`;
      throw new OnCallSendError(message, true, 429, oldest + 60_000 - now);
    }
    this.#sent.push(now);
  }
}
