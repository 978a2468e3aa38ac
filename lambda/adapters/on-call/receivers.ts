/**
 * The paging receivers, one row each. The handler builds the senders of those the settings switch
 * on (handler/notification-paths.ts), the lanes deliver to each on its own
 * (use-cases/on-call-delivery.ts), and the stack grants reading their secrets and alarms on each
 * one's failures (infra/on-call.ts). Adding a receiver is its sender's file, a row here, and its
 * setting in settings/catalogue.ts: nothing else names it.
 */
import type { SendOnCall } from '../../ports/index.js';
import type { WatchdogSettings } from '../../settings/index.js';
import { alertmanagerSend } from './alertmanager-sender.js';
import { incidentIoSend } from './incident-io-sender.js';
import type { ReceiverParts } from './on-call-request.js';
import { opsgenieSend } from './opsgenie-sender.js';
import { pagerDutySend } from './pagerduty-sender.js';
import { webhookSend } from './webhook-sender.js';

export interface Receiver<C = unknown> {
  /** Its name in the lanes, the state, the logs, and the `receiver` dimension of its metric. */
  readonly tool: string;
  /** Its name in the stack: `Read<label>…` statements, the `<label>EventsFailedAlarm`. */
  readonly label: string;
  /** Its open incidents' triggers are sent again at each check (use-cases/on-call-delivery.ts). */
  readonly refresh?: true;
  /** Its settings, when they switch it on. */
  settingsOf(settings: WatchdogSettings): C | undefined;
  /** The secrets it reads, by the suffix of the statement that grants reading each one. */
  secrets(config: C): Readonly<Record<string, string>>;
  send(config: C, parts: ReceiverParts): SendOnCall;
}

/** A row, its settings' type checked against its functions. */
const receiver = <C>(row: Receiver<C>): Receiver => row;

export const RECEIVERS: readonly Receiver[] = [
  receiver({
    tool: 'pagerduty',
    label: 'PagerDuty',
    settingsOf: (settings) => settings.pagerDuty,
    secrets: (config) => ({ RoutingKey: config.routingKeySecret }),
    send: pagerDutySend,
  }),
  receiver({
    tool: 'opsgenie',
    label: 'Opsgenie',
    settingsOf: (settings) => settings.opsgenie,
    secrets: (config) => ({ ApiKey: config.apiKeySecret }),
    send: opsgenieSend,
  }),
  receiver({
    tool: 'incident-io',
    label: 'IncidentIo',
    settingsOf: (settings) => settings.incidentIo,
    secrets: (config) => ({ Token: config.tokenSecret }),
    send: incidentIoSend,
  }),
  receiver({
    tool: 'webhook',
    label: 'Webhook',
    settingsOf: (settings) => settings.webhook,
    secrets: (config) => ({ SigningKey: config.signingKeySecret }),
    send: webhookSend,
  }),
  receiver({
    tool: 'alertmanager',
    label: 'Alertmanager',
    refresh: true,
    settingsOf: (settings) => settings.alertmanager,
    secrets: (config) => ({ Auth: config.authSecret }),
    send: alertmanagerSend,
  }),
];
