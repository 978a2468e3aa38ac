/**
 * Opsgenie Alert API: a trigger creates an alert whose `alias` is the incident key, a resolve
 * closes the alert of that alias, so that one incident is one alert from FIRING to RESOLVED. The
 * API key comes from Secrets Manager (secret-key.ts) and goes only in `Authorization: GenieKey`.
 * https://docs.opsgenie.com/docs/alert-api:
 * - Create: `POST /v2/alerts`, JSON with `message` (required, at most 130 characters), `alias`
 *   (at most 512), `description` (at most 15,000), `tags` (at most 20, 50 characters each),
 *   `details` (string to string, at most 8,000 characters in all), `source` (at most 100),
 *   `priority` P1..P5.
 * - Close: `POST /v2/alerts/{identifier}/close?identifierType=alias`, JSON with optional
 *   `source` (at most 100), `user` (at most 100), `note` (at most 25,000).
 * - Both are asynchronous: 202 `{result, took, requestId}`.
 * https://docs.opsgenie.com/docs/api-rate-limiting: 429 when over the rate limit (retried); 5xx
 * and the network are retried; other 4xx (422 a body it cannot process) are not.
 * The host is api.opsgenie.com, or api.eu.opsgenie.com for the EU instance.
 * Jira Service Management, where Atlassian moves Opsgenie's users, takes the same calls under
 * https://api.atlassian.com/jsm/ops/integration (region `jsm`; https://developer.atlassian.com/cloud/jira/service-desk-ops/rest/v1/api-group-integration-events/),
 * but documents no close by alias: a close answered 404 (no alert of that alias, or the alias
 * refused) is given up at once, not retried for 30 minutes: no retry makes that alert appear.
 */

import type { Severity } from '../../core/notification.js';
import type { OnCallEvent } from '../../core/on-call-events.js';
import { OnCallSendError, type SendOnCall } from '../../ports/index.js';
import type { WatchdogSettings } from '../../settings/index.js';
import { bodyText } from '../notify/render/format.js';
import { postWithKey, type ReceiverParts } from './on-call-request.js';

export const OPSGENIE_API_URLS = {
  us: 'https://api.opsgenie.com',
  eu: 'https://api.eu.opsgenie.com',
  jsm: 'https://api.atlassian.com/jsm/ops/integration',
} as const;
export const OPSGENIE_MESSAGE_MAX_CHARS = 130;
const DESCRIPTION_MAX_CHARS = 15_000;
const SOURCE_MAX_CHARS = 100;
const TAG_MAX_CHARS = 50;
/** Each value, so that a few details stay well under the 8,000 characters of all of them. */
const DETAIL_MAX_CHARS = 1_000;

/** Our severity as Opsgenie's priority (P1 the most urgent). */
const PRIORITIES: Readonly<Record<Severity, string>> = {
  critical: 'P1',
  warning: 'P3',
  info: 'P5',
};

/** The path (with query) and JSON body of `event`'s request: create for a trigger, close for a resolve. */
export function opsgenieRequest(event: OnCallEvent): {
  path: string;
  body: Record<string, unknown>;
} {
  const source = 'lease-watchdog';
  if (event.action === 'resolve') {
    return {
      path: `/v2/alerts/${encodeURIComponent(event.key)}/close?identifierType=alias`,
      body: { source, note: bodyText(event.summary, 1_000) },
    };
  }
  const details: Record<string, string> = { cluster: bodyText(event.cluster, DETAIL_MAX_CHARS) };
  for (const [k, v] of Object.entries(event.details)) details[k] = bodyText(v, DETAIL_MAX_CHARS);
  return {
    path: '/v2/alerts',
    body: {
      message: bodyText(event.summary, OPSGENIE_MESSAGE_MAX_CHARS),
      alias: event.key,
      description: bodyText(event.summary, DESCRIPTION_MAX_CHARS),
      priority: PRIORITIES[event.severity],
      source,
      entity: bodyText(event.source, SOURCE_MAX_CHARS) || bodyText(event.cluster, SOURCE_MAX_CHARS),
      tags: ['lease-watchdog', bodyText(`cluster:${event.cluster}`, TAG_MAX_CHARS)],
      details,
    },
  };
}

/** Sends each event to Opsgenie's Alert API: create for a trigger, close by alias for a resolve. */
export function opsgenieSend(
  { apiKeySecret, region }: NonNullable<WatchdogSettings['opsgenie']>,
  { key, baseUrl }: ReceiverParts,
): SendOnCall {
  const apiKey = key(apiKeySecret);
  const base = baseUrl ?? OPSGENIE_API_URLS[region];
  const tool = region === 'jsm' ? 'Jira Service Management' : 'Opsgenie';
  return (event, signal, version) => {
    const { path, body } = opsgenieRequest(event);
    const sent = postWithKey({ key: apiKey, version }, tool, signal, (apiKey) => ({
      url: `${base}${path}`,
      body: JSON.stringify(body),
      headers: { Authorization: `GenieKey ${apiKey}` },
    }));
    return sent.catch((error: unknown) => {
      const closeRefused = error instanceof OnCallSendError && error.status === 404;
      if (event.action !== 'resolve' || !closeRefused) throw error;
      const message = `${error.message} (closing alias ${event.key}: close that alert by hand)`;
      throw new OnCallSendError(message, false, 404);
    });
  };
}
