/**
 * PagerDuty Events API v2: one alert event per on-call event, `POST /v2/enqueue` with the routing
 * key from Secrets Manager (secret-key.ts) and the incident key as `dedup_key`, so that the
 * resolve closes the alert the trigger opened.
 * https://developer.pagerduty.com/docs/send-alert-event and the API's OpenAPI description
 * (github.com/PagerDuty/api-schema, reference/events-v2/openapiv3.json):
 * - `routing_key`, `event_action` (trigger, acknowledge, resolve) and, for a trigger, `payload`
 *   with `summary` (at most 1,024 characters), `source`, `severity` (critical, error, warning,
 *   info), optional `timestamp`, `component`, `group`, `class`, `custom_details`; `dedup_key` at
 *   most 255 characters.
 * - 202: accepted. 400: the event is wrong, do not retry (but a 400 naming the routing key is a key
 *   to fix: on-call-request.ts). 429 and 5xx (and network errors): retry after some time; at most
 *   PAGERDUTY_EVENTS_PER_MINUTE events a minute per routing key.
 * One request lasts at most ON_CALL_REQUEST_TIMEOUT_MS (on-call-request.ts) and ends on the caller's signal.
 */
import type { OnCallEvent } from '../../core/on-call-events.js';
import type { SendOnCall } from '../../ports/index.js';
import type { WatchdogSettings } from '../../settings/index.js';
import { bodyText } from '../notify/render/format.js';
import { postWithKey, type ReceiverParts, takeSlot } from './on-call-request.js';

export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com';
/**
 * Events API v2's rate limit: "Events - 120/min/integration key" (PagerDuty support,
 * https://community.pagerduty.com/forum/t/monitoring-api-rate-limiting/3318).
 */
export const PAGERDUTY_EVENTS_PER_MINUTE = 120;
export const PAGERDUTY_SUMMARY_MAX_CHARS = 1024;

/** The Events API v2 body of `event` (the routing key added by the sender). */
export function pagerDutyBody(event: OnCallEvent): Record<string, unknown> {
  const common = { event_action: event.action, dedup_key: event.key };
  if (event.action === 'resolve') return common;
  return {
    ...common,
    client: 'lease-watchdog',
    payload: {
      summary: bodyText(event.summary, PAGERDUTY_SUMMARY_MAX_CHARS),
      source: bodyText(event.source, 255) || event.cluster,
      severity: event.severity,
      timestamp: new Date(event.at).toISOString(),
      component: 'kubelet lease',
      group: bodyText(event.cluster, 255),
      custom_details: Object.fromEntries(
        Object.entries(event.details).map(([k, v]) => [k, bodyText(v, 1000)]),
      ),
    },
  };
}

/** Sends each event to PagerDuty, at most PAGERDUTY_EVENTS_PER_MINUTE a minute under one key. */
export function pagerDutySend(
  config: NonNullable<WatchdogSettings['pagerDuty']>,
  { key: keyOf, slots, clock, baseUrl }: ReceiverParts,
): SendOnCall {
  const routingKey = keyOf(config.routingKeySecret);
  const count = {
    slots,
    clock,
    key: `pagerduty ${routingKey.secretId}`,
    perMinute: PAGERDUTY_EVENTS_PER_MINUTE,
  };
  return async (event, signal, version) => {
    await takeSlot(count, 'PagerDuty', signal);
    const key = { key: routingKey, version };
    return postWithKey(key, 'PagerDuty', signal, (routingKey) => ({
      url: `${baseUrl ?? PAGERDUTY_EVENTS_URL}/v2/enqueue`,
      body: JSON.stringify({ routing_key: routingKey, ...pagerDutyBody(event) }),
    }));
  };
}
