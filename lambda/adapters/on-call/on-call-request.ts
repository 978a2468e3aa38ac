/**
 * One request to a paging tool's HTTP API (PagerDuty, Opsgenie): a JSON POST bounded by
 * ON_CALL_REQUEST_TIMEOUT_MS and the caller's signal, its answer turned into OnCallSendError by
 * the one retry rule (retryAnswer). The tool's error text is quoted with the key redacted, by the
 * redaction the cluster reader uses (kube/http/read-errors.ts `withoutSecrets`).
 */
import { OnCallSendError, type SendSlots } from '../../ports/index.js';
import { withoutSecrets } from '../kube/http/read-errors.js';
import { bodyText } from '../notify/render/format.js';
import type { SecretKey } from './secret-key.js';

/** What a receiver's sender is built with. */
export interface ReceiverParts {
  /** A secret's key, read through the function's Secrets Manager client (secret-key.ts). */
  readonly key: (secretId: string) => SecretKey;
  readonly clock: () => number;
  /** The deployment's count of the events sent under each key, for a tool's rate limit. */
  readonly slots: SendSlots;
  /** Tests only: where the tool's API is (a stand-in of testkit/); never a setting. */
  readonly baseUrl?: string | undefined;
}

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
 * The windows a key's minute is cut into: each takes at most `perMinute / (windows + 1)` events, so
 * that no 60 s, which meets at most `windows + 1` of them, holds more than `perMinute`.
 */
const SLOT_WINDOWS_PER_MINUTE = 6;

/** Where a sender counts a key's events: the deployment's count, the key, its limit. */
export interface KeySlots {
  readonly slots: SendSlots;
  readonly clock: () => number;
  /** The key's name (the receiver and the secret it is read from), never its value. */
  readonly key: string;
  readonly perMinute: number;
}

/**
 * Takes a slot for one event under a key from the deployment's count (SendSlots), so that no
 * 60 s holds more than `perMinute` of its events whatever containers and clusters share it; else
 * throws a retryable OnCallSendError (429) saying when the next window opens.
 */
export async function takeSlot(
  { slots, clock, key, perMinute }: KeySlots,
  tool: string,
  signal: AbortSignal,
): Promise<void> {
  const windowMs = 60_000 / SLOT_WINDOWS_PER_MINUTE;
  const now = clock();
  const window = Math.floor(now / windowMs);
  const limit = Math.floor(perMinute / (SLOT_WINDOWS_PER_MINUTE + 1));
  let taken: boolean;
  try {
    taken = await slots.take(`${key}#${window}`, limit, signal);
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    throw new OnCallSendError(
      `${tool}: cannot count the events sent under its key (${name})`,
      true,
    );
  }
  if (taken) return;
  const message = `${tool}: ${limit} events sent under one key in ${windowMs / 1000} s, its share of ${perMinute} a minute`;
  throw new OnCallSendError(message, true, 429, (window + 1) * windowMs - now);
}
