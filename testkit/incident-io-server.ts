/**
 * A stand-in of incident.io's HTTP alert source on 127.0.0.1 and a random port, checking each
 * request as incident.io documents it (https://api-docs.incident.io/tag/Alert-Events-V2, CreateHTTP;
 * the OpenAPI description's AlertEventsCreateHTTPPayloadV2, e.g. as generated in
 * github.com/mustafabayar/incident-io-sdk, lib/incident_io_sdk/models/alert_events_create_http_payload_v2.rb):
 * `POST /v2/alert_events/http/{alert_source_config_id}` for the one alert source it has (else
 * 404), `Authorization: Bearer <the source's token>` (else 401 `authentication_error`), a JSON
 * object with `title` (a non-empty string) and `status` (`firing` or `resolved`) required,
 * `deduplication_key`, `description` and `source_url` strings, `metadata` an object, and no
 * other field (else 422 `validation_error`, the API's error shape: `type`, `status`, `errors`).
 * It answers 202 and a JSON body (the watchdog reads only the status). Scripted: `answer(429)` or
 * `answer(500)` for every request until `answer(null)`. Never incident.io.
 */
import { readBody, sendJson } from './aws-endpoint.js';
import { startVendorStandIn, type VendorStandIn } from './vendor-stand-in.js';

/** An alert event incident.io took. */
export interface IncidentIoEvent {
  readonly title: string;
  readonly status: 'firing' | 'resolved';
  readonly deduplication_key?: string;
  readonly description?: string;
  readonly metadata?: Record<string, unknown>;
}

const FIELDS = ['title', 'status', 'deduplication_key', 'description', 'metadata', 'source_url'];

/** What incident.io's 422 would list about an alert event; empty when nothing. */
export function alertEventProblems(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return ['not a JSON object'];
  const e = body as Record<string, unknown>;
  const problems = Object.keys(e)
    .filter((k) => !FIELDS.includes(k))
    .map((k) => `${k} is not a field of an alert event`);
  if (typeof e.title !== 'string' || e.title === '') problems.push('title is required');
  if (e.status !== 'firing' && e.status !== 'resolved')
    problems.push('status must be firing or resolved');
  for (const k of ['deduplication_key', 'description', 'source_url']) {
    if (e[k] !== undefined && typeof e[k] !== 'string') problems.push(`${k} must be a string`);
  }
  const m = e.metadata;
  if (m !== undefined && (typeof m !== 'object' || m === null || Array.isArray(m))) {
    problems.push('metadata must be an object');
  }
  return problems;
}

export async function startIncidentIoServer(
  token: string,
  alertSourceId: string,
): Promise<VendorStandIn<IncidentIoEvent>> {
  return startVendorStandIn<IncidentIoEvent>(async (req, res, book) => {
    const { body } = await readBody(req, 512 * 1024);
    const reply = (status: number, value: unknown) => {
      book.answers.push(status);
      sendJson(res, status, value);
    };
    const refuse = (status: number, type: string, problems: string[]) => {
      book.rejected.push(problems.join('; '));
      const errors = problems.map((message) => ({ code: type, message }));
      reply(status, { type, status, request_id: 'stand-in', errors });
    };
    if (book.forced !== null) {
      refuse(book.forced, book.forced === 429 ? 'too_many_requests' : 'internal_error', [
        'scripted',
      ]);
      return;
    }
    if (req.method !== 'POST' || req.url !== `/v2/alert_events/http/${alertSourceId}`) {
      refuse(404, 'not_found', [`${req.method} ${req.url} is not this alert source`]);
      return;
    }
    if (req.headers.authorization !== `Bearer ${token}`) {
      refuse(401, 'authentication_error', ['Authorization must be Bearer <the token>']);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const typed = String(req.headers['content-type'] ?? '').startsWith('application/json');
    const problems = [...(typed ? [] : ['Content-Type must be application/json'])];
    problems.push(...alertEventProblems(parsed));
    if (problems.length > 0) {
      refuse(422, 'validation_error', problems);
      return;
    }
    const event = parsed as IncidentIoEvent;
    book.accepted.push(event);
    reply(202, { status: 'success', deduplication_key: event.deduplication_key });
  });
}
