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
import { bodyText } from '../notify/render/format.js';
import { postWithKey } from './on-call-request.js';
import type { SecretKey } from './secret-key.js';

/** `alertname` by the kind of incident, the second part of its key (core/incident-keys.ts). */
const ALERT_NAMES: Readonly<Record<string, string>> = {
  node: 'LeaseWatchdogNodeDown',
  storm: 'LeaseWatchdogNodesDown',
  watchdog: 'LeaseWatchdogCannotReadCluster',
};

export interface AlertmanagerOptions {
  /** The Alertmanager's https:// URL (a path prefix kept): the setting's `url`. */
  readonly url: string;
  readonly auth: SecretKey;
  readonly endsAfterMinutes: number;
  /** The watchdog's clock, epoch ms: a firing alert's `endsAt` counts from it. */
  readonly clock: () => number;
  /** Tests only (testkit/alertmanager.ts, on loopback http): the createHandler part, never a setting. */
  readonly baseUrl?: string | undefined;
}

/**
 * The `postableAlert` of `event`, labelled by its incident's `trigger` (the same labels for the
 * trigger, its re-sends and its resolve); `now` and `endsAfterMs` place a firing alert's end.
 */
export function alertmanagerAlert(
  event: OnCallEvent,
  {
    trigger = event,
    now,
    endsAfterMs,
  }: { trigger?: OnCallEvent; now: number; endsAfterMs: number },
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
  const ends = event.action === 'resolve' ? event.at : now + endsAfterMs;
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

/** Posts each event to Alertmanager as one alert, authenticated by the secret. */
export function alertmanagerSend(options: AlertmanagerOptions): SendOnCall {
  const base = (options.baseUrl ?? options.url).replace(/\/+$/, '');
  return (event, signal, version, trigger) => {
    const endsAfterMs = options.endsAfterMinutes * 60_000;
    const alert = alertmanagerAlert(event, { trigger, now: options.clock(), endsAfterMs });
    return postWithKey({ key: options.auth, version }, 'Alertmanager', signal, (secret) => ({
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
