/**
 * A signed webhook: each on-call event POSTed as a JSON document to a URL of the user's (Splunk
 * On-Call, FireHydrant, Rootly, a team's own service), signed as Standard Webhooks signs
 * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md),
 * so that its libraries verify it in any language:
 * - `webhook-id`: the event's id, the same on every retry of it (the receiver's idempotency key);
 * - `webhook-timestamp`: when this attempt was signed, integer Unix seconds (a receiver rejects
 *   one too far from its clock: no replays);
 * - `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`, the body
 *   exactly as sent, keyed by the secret as the spec's libraries read it: base64, with or
 *   without the `whsec_` prefix (libraries/javascript/src/webhook.test.ts: "verification works
 *   with and without signature prefix").
 * The body is the spec's `{type, timestamp, data}`: `type` `incident.firing` or
 * `incident.resolved`, `data.incidentKey` and `data.state` the incident's key and state. The
 * answer follows the one retry rule (on-call-request.ts): 2xx taken, 400 and 422 poison.
 */
import { createHmac } from 'node:crypto';
import type { OnCallEvent } from '../../core/on-call-events.js';
import type { SendOnCall } from '../../ports/index.js';
import type { WatchdogSettings } from '../../settings/index.js';
import { bodyText } from '../notify/render/format.js';
import { postWithKey, type ReceiverParts } from './on-call-request.js';

/** The document POSTed for `event`. */
export function webhookBody(event: OnCallEvent): Record<string, unknown> {
  const state = event.action === 'trigger' ? 'firing' : 'resolved';
  const details = Object.entries(event.details).map(([k, v]) => [k, bodyText(v, 1_000)]);
  return {
    type: `incident.${state}`,
    timestamp: new Date(event.at).toISOString(),
    data: {
      incidentKey: event.key,
      state,
      cluster: bodyText(event.cluster, 255),
      source: bodyText(event.source, 255),
      severity: event.severity,
      summary: bodyText(event.summary, 1_024),
      details: Object.fromEntries(details),
      ...(event.members ? { members: event.members } : {}),
    },
  };
}

/** The Standard Webhooks headers that sign `body` with `secret`. */
export function webhookHeaders(id: string, seconds: number, body: string, secret: string) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${seconds}.${body}`).digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': `v1,${signature}`,
  };
}

/** Sends each event to the webhook, signed at the moment of each attempt. */
export function webhookSend(
  { url, signingKeySecret }: NonNullable<WatchdogSettings['webhook']>,
  { key, clock, baseUrl }: ReceiverParts,
): SendOnCall {
  const signingKey = key(signingKeySecret);
  // Always the current key, even for a resolve: the receiver verifies with the key it has now
  // (a tool pairing events under one key is the vendors' rule, not a webhook's).
  return (event, signal) => {
    const body = JSON.stringify(webhookBody(event));
    const id = `${event.key}-${event.action}-${event.at}`;
    const seconds = Math.floor(clock() / 1000);
    return postWithKey({ key: signingKey }, 'webhook', signal, (secret) => ({
      url: baseUrl ?? url,
      body,
      headers: webhookHeaders(id, seconds, body, secret),
    }));
  };
}
