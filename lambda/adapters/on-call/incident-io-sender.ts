/**
 * incident.io alert events: each on-call event is one event of an HTTP alert source, its
 * `deduplication_key` the incident key and its `status` `firing` (a trigger) or `resolved` (a
 * resolve), so that one incident is one incident.io alert from FIRING to RESOLVED. The alert
 * source's token comes from Secrets Manager (secret-key.ts) and goes only in `Authorization:
 * Bearer` (never in the URL's `token` query parameter, which would reach logs).
 * https://api-docs.incident.io/tag/Alert-Events-V2 (CreateHTTP, payload AlertEventsCreateHTTPPayloadV2):
 * - `POST https://api.incident.io/v2/alert_events/http/{alert_source_config_id}`, JSON with
 *   `title` and `status` (`firing` or `resolved`) required; `deduplication_key` ("If you send an
 *   event with the same deduplication_key multiple times, only one alert will be created"),
 *   `description` (markdown), `metadata` (an object), `source_url`.
 * - 2xx accepted; 401 a token it does not know; 422 a body that fails validation (poison); 429
 *   over the rate limit; 5xx: the one retry rule (on-call-request.ts).
 */
import type { OnCallEvent } from '../../core/on-call-events.js';
import type { SendOnCall } from '../../ports/index.js';
import type { WatchdogSettings } from '../../settings/index.js';
import { bodyText } from '../notify/render/format.js';
import { postWithKey, type ReceiverParts } from './on-call-request.js';

/** The alert event of `event`. */
export function incidentIoBody(event: OnCallEvent): Record<string, unknown> {
  const facts = { cluster: event.cluster, source: event.source, ...event.details };
  return {
    title: bodyText(event.summary, 1_024),
    status: event.action === 'trigger' ? 'firing' : 'resolved',
    deduplication_key: event.key,
    description: bodyText(event.summary, 4_000),
    metadata: {
      severity: event.severity,
      ...Object.fromEntries(Object.entries(facts).map(([k, v]) => [k, bodyText(v, 1_000)])),
    },
  };
}

/** Sends each event to the alert source `alertSourceId`. */
export function incidentIoSend(
  { alertSourceId, tokenSecret }: NonNullable<WatchdogSettings['incidentIo']>,
  { key, baseUrl }: ReceiverParts,
): SendOnCall {
  const token = key(tokenSecret);
  const base = baseUrl ?? 'https://api.incident.io';
  const url = `${base}/v2/alert_events/http/${encodeURIComponent(alertSourceId)}`;
  return (event, signal, version) =>
    postWithKey({ key: token, version }, 'incident.io', signal, (token) => ({
      url,
      body: JSON.stringify(incidentIoBody(event)),
      headers: { Authorization: `Bearer ${token}` },
    }));
}
