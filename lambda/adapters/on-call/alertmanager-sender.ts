/**
 * Alertmanager API v2: each on-call event is one alert, `POST /api/v2/alerts` (a JSON array of
 * `postableAlert`), so that a team's own Alertmanager routes, groups, inhibits and silences it
 * like its own alerts. https://prometheus.io/docs/alerting/latest/clients/ and the API's OpenAPI
 * description (github.com/prometheus/alertmanager, api/v2/openapi.yaml, `postableAlert`):
 * - `labels` identify the alert (the same labels are the same alert), `annotations` are the
 *   latest received, `startsAt` and `endsAt` are RFC 3339; 200: taken; 400: a body it cannot take.
 * - "Clients are expected to continuously re-send alerts as long as they are still active": an
 *   alert is resolved once its `endsAt` passes (without one, `resolve_timeout` after it was last
 *   received). So the lanes post a firing alert again at each check (the row `refresh`es), its
 *   `endsAt` `endsAfterMinutes` ahead on the watchdog's clock; the resolve is the trigger's labels
 *   with `endsAt` the check that saw the end, which is past by the time it arrives.
 * - No `generatorURL`: the watchdog has no page of its own to link back to.
 * The secret holds `user:password` (sent as basic auth) or a bearer token (no colon in it).
 */
import type { OnCallEvent } from '../../core/on-call-events.js';
import type { SendOnCall } from '../../ports/index.js';
import type { WatchdogSettings } from '../../settings/index.js';
import { bodyText } from '../notify/render/format.js';
import { postWithKey, type ReceiverParts } from './on-call-request.js';

/** `alertname` by the kind of incident, the second part of its key (core/incident-keys.ts). */
const ALERT_NAMES: Readonly<Record<string, string>> = {
  node: 'LeaseWatchdogNodeDown',
  storm: 'LeaseWatchdogNodesDown',
  watchdog: 'LeaseWatchdogCannotReadCluster',
};

/**
 * The `postableAlert` of `event`, labelled by its incident's `trigger` (the same labels for the
 * trigger, its re-sends and its resolve); a firing alert ends at `firingEndsAt`.
 */
export function alertmanagerAlert(
  event: OnCallEvent,
  trigger: OnCallEvent = event,
  firingEndsAt = event.at,
): Record<string, unknown> {
  const kind = trigger.key.split('-')[1] ?? '';
  const labels = {
    alertname: ALERT_NAMES[kind] ?? 'LeaseWatchdog',
    cluster: trigger.cluster,
    node: kind === 'node' ? trigger.source : '',
    zone: trigger.details.zone ?? '',
    nodegroup: trigger.details.nodeGroup ?? '',
    severity: trigger.severity,
  };
  const annotations = { ...trigger.details, summary: event.summary, incident_key: event.key };
  const ends = event.action === 'resolve' ? event.at : firingEndsAt;
  const bounded = (values: Record<string, string>, max: number) =>
    Object.fromEntries(
      Object.entries(values).flatMap(([k, v]) => (v ? [[k, bodyText(v, max)]] : [])),
    );
  return {
    labels: bounded(labels, 255),
    annotations: bounded(annotations, 1_000),
    startsAt: new Date(Math.min(trigger.at, ends)).toISOString(),
    endsAt: new Date(ends).toISOString(),
  };
}

/**
 * Posts each event to Alertmanager as one alert, authenticated by the secret; a firing alert's
 * `endsAt` counts from the watchdog's clock. `baseUrl`: tests only (testkit/alertmanager.ts, on
 * loopback http), never a setting.
 */
export function alertmanagerSend(
  config: NonNullable<WatchdogSettings['alertmanager']>,
  { key, clock, baseUrl }: ReceiverParts,
): SendOnCall {
  const auth = key(config.authSecret);
  const base = (baseUrl ?? config.url).replace(/\/+$/, '');
  return (event, signal, version, trigger) => {
    const alert = alertmanagerAlert(event, trigger, clock() + config.endsAfterMinutes * 60_000);
    return postWithKey({ key: auth, version }, 'Alertmanager', signal, (secret) => ({
      url: `${base}/api/v2/alerts`,
      body: JSON.stringify([alert]),
      headers: {
        Authorization: secret.includes(':')
          ? `Basic ${Buffer.from(secret).toString('base64')}`
          : `Bearer ${secret}`,
      },
    }));
  };
}
