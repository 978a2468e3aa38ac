/**
 * The on-call sections of docs/NOTIFICATIONS.md (docs/notifications.ts renders the file): the
 * incident key that ties the notifications of one incident together, PagerDuty, Opsgenie and Jira
 * Service Management, incident.io, the signed webhook, and Alertmanager.
 */
import { alertmanagerAlert } from '../lambda/adapters/on-call/alertmanager-sender.js';
import { incidentIoBody } from '../lambda/adapters/on-call/incident-io-sender.js';
import { opsgenieRequest } from '../lambda/adapters/on-call/opsgenie-sender.js';
import {
  PAGERDUTY_EVENTS_PER_MINUTE,
  pagerDutyBody,
} from '../lambda/adapters/on-call/pagerduty-sender.js';
import { webhookBody } from '../lambda/adapters/on-call/webhook-sender.js';
import type { Notification } from '../lambda/core/notification.js';
import { ON_CALL_NODE_EVENTS, onCallEvents } from '../lambda/core/on-call-events.js';
import {
  ON_CALL_BACKOFF_MAX_MS,
  ON_CALL_BACKOFF_MS,
  ON_CALL_BUDGET_MS,
  ON_CALL_GIVE_UP_MS,
  ON_CALL_OPEN_MAX,
  ON_CALL_OUTBOX_MAX,
} from '../lambda/use-cases/on-call-delivery.js';
import { STEP_MAX_MS } from '../lambda/use-cases/outbox-publishing.js';

/** Incident keys: what they are made of, where they appear, what stays the same. */
export function incidentKeySection(): string[] {
  return [
    '## Incident keys: one incident, one key',
    '',
    'Every incident has a key, and every notification of it carries that key: the FIRING, each',
    'REMINDER, a FLAPPING notice and the RESOLVED of a node; the failing and resolved WATCHDOG of a',
    'cluster the watchdog cannot read; the start, spread and end of a STORM. An on-call tool pairs',
    'them with it (PagerDuty `dedup_key`, Opsgenie `alias`, a ticket id) and resolves on its own.',
    '',
    '| incident | key made from | form |',
    '| --- | --- | --- |',
    '| a node | cluster, node name, when its incident opened | `lw-node-` and 24 hex digits |',
    '| the watchdog cannot read the cluster | cluster, when reads started failing | `lw-watchdog-` and 24 hex digits |',
    '| a storm | cluster, when the storm started | `lw-storm-` and 24 hex digits |',
    '',
    'The hex digits are the first 96 bits of a SHA-256 over those parts (`lambda/core/incident-keys.ts`):',
    'at most 36 ASCII characters, safe in a URL, a header and a file name, deterministic (every',
    'container, every retry, and state written before keys existed give the same key), and',
    'without the cluster or node name in clear. When the node fails again after its RESOLVED, that',
    'is a new incident with a new key. A node that flaps keeps one key for the episode: the key of',
    'the incident open (or just resolved) when it started flapping, to the FIRING or RESOLVED that',
    'releases it. One outage is one incident: a node whose incident opens in a storm takes the',
    "storm's key (its on-call trigger is the storm's), and the storm's incident resolves once, when",
    'the last of its nodes is back (until then the recoveries and the end of the STORM leave the key',
    'out). Nodes paged before the storm keep their own keys.',
    '',
    'Where it is:',
    '',
    '- the document (and the EventBridge detail, which is the document): `nodes[].incidentKey`,',
    '  `watchdog.incidentKey`, `storm.incidentKey`;',
    '- the email: one line per node at the foot, `incident lw-node-…  <node>` (twenty at most,',
    '  then a count);',
    '- the chat notification: `metadata.additionalContext.incidentKeys`, space-separated (the',
    "  watchdog's or storm's first, then the first ten nodes').",
    '',
    'The notification `id` is something else: the id of one message (its deduplication id), new',
    'for every check that says something.',
    '',
  ];
}

const PD_SEND = 'https://developer.pagerduty.com/docs/send-alert-event';
const PD_OPENAPI =
  'https://github.com/PagerDuty/api-schema/blob/main/reference/events-v2/openapiv3.json';

/** PagerDuty: what is sent when, the promises and the pages they rest on, and why from the function. */
export function pagerDutySection(firing: Notification): string[] {
  const [event] = onCallEvents(firing);
  const body = event ? { routing_key: '<from the secret>', ...pagerDutyBody(event) } : {};
  return [
    '## PagerDuty',
    '',
    'With `"pagerDuty": {"routingKeySecret": "<secret name or ARN>"}` in the deployment file, the',
    'function sends PagerDuty an Events API v2 event for every incident that opens or ends: a',
    '`trigger` for a node in a FIRING (or a FLAPPING notice), for a paging WATCHDOG and for a STORM',
    'that starts or spreads; a `resolve` for a RESOLVED node, a resolved WATCHDOG and a storm that',
    'ended. The incident key is the `dedup_key`, so the resolve closes the alert the trigger',
    'opened. A REMINDER sends nothing (the alert is still open in PagerDuty), nor does a NOTICE.',
    `A notification that opens more than ${ON_CALL_NODE_EVENTS} node incidents opens one group incident instead`,
    '(a `lw-storm-` key, the nodes named in its summary and details), never dropping a node; it',
    'is resolved when the last of its nodes is. Every trigger sent gets its resolve, under the',
    'same key, however deaths and recoveries are split across notifications.',
    '',
    '1. In PagerDuty, add an **Events API v2** integration to the service and copy its',
    '   integration key (the routing key).',
    '2. Keep it in Secrets Manager as a plain string: `aws secretsmanager create-secret --name',
    '   lease-watchdog/pagerduty --secret-string <routing key>`.',
    '3. Name the secret in the deployment file and deploy: the stack grants the function',
    '   `secretsmanager:GetSecretValue` on exactly that secret. The key is never in the',
    '   template, the settings, the state or a log line; the function reads it at run time and',
    '   keeps it for 5 minutes per container (a rotated key is picked up within 5 minutes).',
    "   A resolve goes under the key its trigger went under: the function keeps the secret's",
    '   `VersionId` with each open incident and reads that version (`AWSPREVIOUS` after one',
    '   rotation), since PagerDuty pairs a resolve with its trigger under one integration key.',
    '   Rotate by adding a second integration and keep the old one until its incidents resolved.',
    '',
    `What PagerDuty documents, and the function relies on ([Send an Alert Event](${PD_SEND}); the`,
    `Events API v2 [OpenAPI description](${PD_OPENAPI})):`,
    '',
    '| promise | how it is kept |',
    '| --- | --- |',
    '| `POST https://events.pagerduty.com/v2/enqueue`, JSON, `routing_key`, `event_action` `trigger` or `resolve` | one request per event |',
    '| `dedup_key` "identifies the alert to trigger, acknowledge, or resolve", at most 255 characters | the incident key, 36 characters at most |',
    '| a trigger needs `payload.summary` (at most 1,024 characters), `payload.source`, `payload.severity` (`critical`, `error`, `warning`, `info`) | summary cut to 1,024 characters (control and invisible characters removed); source: the node, or the cluster; severity: `critical` for FIRING, WATCHDOG, STORM, `warning` for FLAPPING |',
    '| 202: accepted; 400: "Check that the JSON is valid", do not retry; 429 "Too many API calls at a time" and 5xx: "retry after some time"; a networking error: retry | 202 leaves the outbox; a 400 is poison, given up at once, unless its errors name the routing key (a wrong or rotated key: retried, the key read again); 429, 5xx, network errors and timeouts are retried by the next checks |',
    '',
    'A FIRING as PagerDuty receives it (the first node of the first example above):',
    '',
    '```json',
    JSON.stringify(body, null, 2),
    '```',
    '',
    '### Delivery: beside SNS, each tool its own lane',
    '',
    'The events of a notification join the on-call outbox in the same save that puts the',
    "notification in the topic's outbox, and are sent beside the publish, not after it: SNS",
    'refusing (a KMS key or topic policy being fixed) never holds back or silences PagerDuty.',
    `They are sent within ${ON_CALL_BUDGET_MS / 1000} s per run and the invocation's own deadline (each request`,
    'at most 3 s). The email never waits for PagerDuty, and a PagerDuty outage never fails or',
    'delays a publish. One retry rule for every paging tool: events the tool did not take for a',
    'reason that passes (429, 5xx, the network, a timeout, the secret unreadable) or that a person',
    'can fix (a key refused: 401, 403, 404, a 400 that names the key; the cached key is dropped)',
    "wait in the cluster's state (the on-call outbox: attempts counted, at most",
    `${ON_CALL_OUTBOX_MAX} events, the oldest given up first) and are sent again by every following check,`,
    'oldest first; a resolve never overtakes the trigger of its incident. An event still refused',
    `after ${ON_CALL_GIVE_UP_MS / 60_000} minutes of attempts is given up, as SNS gives up a notification: a person`,
    'fixes a key in minutes once the alarm below told them, and the email covers a longer outage of',
    `the tool. The time counts each check's step, at most ${STEP_MAX_MS / 60_000} minutes, so a clock that jumps hours`,
    'neither cuts it short nor stretches it. Poison is given up at once: a request the tool calls',
    "malformed (another 4xx), an event that cannot be rendered. The tool's error text is logged",
    'with the key redacted. Rate limits: PagerDuty takes about 120 events a minute per',
    'integration key ("Events - 120/min/integration key",',
    '[PagerDuty community: API rate limiting](https://community.pagerduty.com/forum/t/monitoring-api-rate-limiting/3318)),',
    `and the deployment never sends more than ${PAGERDUTY_EVENTS_PER_MINUTE} in any 60 s under one key, whatever containers and`,
    "clusters share it: each event takes a slot of the key's 10-second window from one count in the",
    'state table (a conditional UpdateItem), at most a seventh of the limit per window. A 429',
    'pauses the whole tool (every incident) for its `Retry-After`, or else for',
    `${ON_CALL_BACKOFF_MS / 1000} s doubling at each attempt up to ${ON_CALL_BACKOFF_MAX_MS / 60_000} minutes (PagerDuty asks for retries at least 30 s`,
    'apart), kept in the state so that a new container honours it too. Every failed attempt and every event',
    'given up is logged (`on-call event not delivered`: the tool, the incident key, the attempts,',
    'the error) and counted in the metric `OnCallEventsFailed` (dimension `receiver`), which the',
    'receiver\'s alarm `OnCallEventsFailed-pagerduty` watches. A retried trigger is harmless: "If there is already an',
    "open incident with a matching key, this event will be appended to that incident's alert",
    'log" ([PagerDuty, Event Management](https://support.pagerduty.com/docs/event-management)).',
    '',
    'Not through EventBridge API destinations: an input transformer cannot turn one notification',
    'event, which lists many nodes, into one PagerDuty event per node. Rules on the `eventBus`',
    'events remain for any other HTTP API.',
    '',
  ];
}

const OG_ALERT = 'https://docs.opsgenie.com/docs/alert-api';
const OG_RATE = 'https://docs.opsgenie.com/docs/api-rate-limiting';
const OG_ALERT_V1 = 'https://docs.opsgenie.com/docs/alert-deprecated';

/** Opsgenie: the same incidents as PagerDuty, as alerts created and closed by alias. */
export function opsgenieSection(firing: Notification): string[] {
  const [event] = onCallEvents(firing);
  const create = event ? opsgenieRequest(event) : undefined;
  // Its end, as on-call-events.ts words a resolved node.
  const summary = event ? `[${event.cluster}] node ${event.source} resolved (recovered)` : '';
  const close = event ? opsgenieRequest({ ...event, action: 'resolve', summary }) : undefined;
  return [
    '## Opsgenie',
    '',
    'With `"opsgenie": {"apiKeySecret": "<secret name or ARN>"}` (and `"region": "eu"` for an',
    'account on the EU instance) in the deployment file, the function creates an Opsgenie alert',
    'for every incident that opens and closes it when the incident ends: the same events as',
    "PagerDuty's above (a create where PagerDuty gets a trigger, a close where it gets a resolve),",
    'with the incident key as the alert `alias`. Both tools can be set at once; each gets every',
    'event, and one that is down never holds up the other.',
    '',
    '1. In Opsgenie, add an **API** integration to the team and copy its API key (the Alert',
    '   API page: "Create an API Integration and obtain your apiKey").',
    '2. Keep it in Secrets Manager as a plain string: `aws secretsmanager create-secret --name',
    '   lease-watchdog/opsgenie --secret-string <API key>`.',
    '3. Name the secret in the deployment file and deploy: the stack grants the function',
    '   `secretsmanager:GetSecretValue` on exactly that secret (`ReadOpsgenieApiKey`). The key is',
    '   never in the template, the settings, the state or a log line; it is read as the PagerDuty',
    '   key is, kept 5 minutes per container, and sent only in the `Authorization` header.',
    '',
    `What Opsgenie documents, and the function relies on ([Alert API](${OG_ALERT});`,
    `[Rate Limiting](${OG_RATE})):`,
    '',
    '| promise | how it is kept |',
    '| --- | --- |',
    '| `https://api.opsgenie.com`, or `https://api.eu.opsgenie.com` "if using the EU instance"; header `Authorization: GenieKey <key>` | `region` picks the host; the key from the secret |',
    '| Create Alert: `POST /v2/alerts`, JSON, `message` mandatory, at most 130 characters; `alias` at most 512, "the key element of Alert De-Duplication"; `description` at most 15,000; `priority` P1 to P5; `source` at most 100; `tags` at most 20 of 50 characters; `details` key-value pairs | `message`: the summary cut to 130 characters (control and invisible characters removed); `alias`: the incident key (36 characters at most); `description`: the whole summary; `priority` `P1` for FIRING, WATCHDOG, STORM, `P3` for FLAPPING; `entity`: the node or the cluster; `source` `lease-watchdog`; `tags` `lease-watchdog`, `cluster:<name>`; `details`: cluster, verdict, reason, zone, instance, node group |',
    '| Close Alert: `POST /v2/alerts/:identifier/close?identifierType=alias`, optional JSON `source`, `user`, `note` | the incident key as identifier, `source` and a `note` (the resolve summary) |',
    '| creation and action requests "are processed asynchronously", answered `202 Accepted` with `result`, `took`, `requestId` | 202 leaves the outbox (the request status is not polled: an alert Opsgenie then fails to create, or a close of an alias it never saw, shows only in Opsgenie) |',
    '| a request over the rate limit is "rejected with the HTTP status 429 - Too Many Requests" | 429, 5xx, network errors and timeouts are retried by the next checks; 401, 403 and 404 (a wrong or rotated key) are retried, the key read again; another 4xx (a body it cannot process) is poison, given up at once |',
    '',
    'A retried create is harmless: with one `alias`, "there can be only one alert with open status',
    `with the same alias" ([Alert API, deprecated version](${OG_ALERT_V1}); the current page calls`,
    `\`alias\` "the key element of Alert De-Duplication"). Delivery is PagerDuty's above: beside SNS and`,
    'never in its way, a lane of its own, the same `OnCallEventsFailed` metric with its own',
    '`receiver` dimension and alarm, `OnCallEventsFailed-opsgenie`.',
    '',
    'The first node of the FIRING above, as Opsgenie receives its create, then its close:',
    '',
    '```',
    `POST ${create?.path ?? ''}`,
    JSON.stringify(create?.body ?? {}, null, 2),
    '',
    `POST ${close?.path ?? ''}`,
    JSON.stringify(close?.body ?? {}, null, 2),
    '```',
    '',
    ...jsmLines(),
  ];
}

const EOS = 'https://support.atlassian.com/opsgenie/docs/what-happens-when-opsgenie-is-turned-off/';
const JSM_EVENTS =
  'https://developer.atlassian.com/cloud/jira/service-desk-ops/rest/v1/api-group-integration-events/';
const JSDCLOUD = 'https://jira.atlassian.com/browse/JSDCLOUD-14179';

/** Jira Service Management: Opsgenie's end, the migration, the region, the close by alias. */
function jsmLines(): string[] {
  return [
    '### Jira Service Management (Opsgenie after 5 April 2027)',
    '',
    'Opsgenie is no longer sold since 4 June 2025 and its support ends on **5 April 2027**;',
    `its REST API works until that day, even after a migration ([Atlassian](${EOS})).`,
    'Atlassian moves its users to Jira Service Management (JSM), whose integration API',
    '(`https://api.atlassian.com/jsm/ops/integration/v2/alerts`) takes the same create and close',
    'calls, the same body and the same `Authorization: GenieKey` header',
    `([Integration events](${JSM_EVENTS})). **Migrating** is one setting: once your Opsgenie`,
    "site is moved to JSM, create (or keep) an API integration in JSM's Operations, put its API",
    'key in the secret (or a new one), and set `"region": "jsm"`:',
    '`"opsgenie": {"apiKeySecret": "lease-watchdog/jsm", "region": "jsm"}`. Nothing else',
    'changes: the same events, the same alias, the same lane, metric dimension and alarm',
    '(`OnCallEventsFailed-opsgenie`).',
    '',
    'Why a region and not a receiver of its own: the API is a drop-in (same calls, body, header)',
    'and a team pages through one of the two; alerts open when you switch are in JSM',
    'after the migration, so their closes must go on the same lane, under the same alias. A',
    'receiver of its own would be a second secret, grant, alarm and lane for the same alerts.',
    '',
    "Closing by alias is the one gap: JSM's page says only that an optional `identifierType` (id,",
    'tiny or alias) applies to "endpoints that support multiple identifier types", not that Close',
    `alert is one; [JSDCLOUD-14179](${JSDCLOUD}) reports that \`identifierType=alias\` on close`,
    'works but "is missing from the documentation". The',
    'function closes by alias. If JSM answers a close 404 (no alert of that alias, or the alias',
    'not taken), the close is given up at once, not retried for 30 minutes as a refused key is:',
    'no retry makes that alert appear, and retrying would only keep the alarm firing. It is',
    'logged (`on-call event not delivered`, `givenUp: true`, "close that alert by hand") and',
    'counted once in `OnCallEventsFailed`, so the alarm tells a person to close the alert in JSM.',
    'Any other refusal follows the one retry rule above.',
    '',
  ];
}

const IIO_EVENTS = 'https://api-docs.incident.io/tag/Alert-Events-V2';

/** incident.io: an HTTP alert source's events, firing then resolved under one key. */
export function incidentIoSection(firing: Notification): string[] {
  const [event] = onCallEvents(firing);
  return [
    '## incident.io',
    '',
    'With `"incidentIo": {"alertSourceId": "<alert source config id>", "tokenSecret": "<secret>"}`,',
    'the function sends an alert event to an incident.io **HTTP alert source** for every incident',
    'that opens (`status` `firing`) and ends (`resolved`), the incident key as `deduplication_key`',
    "(the same events as PagerDuty's). In incident.io, create an alert source, *Connect via",
    'HTTP*: its URL ends with the alert source config id; keep the token it shows (the',
    '`Authorization: Bearer` one) in Secrets Manager as a plain string. The stack grants',
    '`ReadIncidentIoToken` on exactly that secret; the token goes only in the header, never in',
    "the URL's `token` parameter (URLs reach logs).",
    '',
    `What incident.io documents ([Alert Events V2, CreateHTTP](${IIO_EVENTS})):`,
    '`POST https://api.incident.io/v2/alert_events/http/{alert_source_config_id}`, JSON with `title` and',
    '`status` (`firing`, `resolved`) required, `deduplication_key` ("If you send an event with',
    'the same deduplication_key multiple times, only one alert will be created"), `description`,',
    '`metadata`, `source_url`. The answer follows the one retry rule above: 2xx taken; 429, 5xx,',
    '401, 403, 404 retried for 30 minutes; a 422 (validation) given up at once. Lane, metric',
    'dimension and alarm: `incident-io`. A FIRING as incident.io receives it:',
    '',
    '```json',
    JSON.stringify(event ? incidentIoBody(event) : {}, null, 2),
    '```',
    '',
  ];
}

const STANDARD_WEBHOOKS =
  'https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md';

/** The signed webhook: the document, the signature, what a receiver checks. */
export function webhookSection(firing: Notification): string[] {
  const [event] = onCallEvents(firing);
  return [
    '## A signed webhook (Splunk On-Call, FireHydrant, Rootly, your own service)',
    '',
    'With `"webhook": {"url": "https://...", "signingKeySecret": "<secret>"}`, the function POSTs',
    'one JSON document to the URL for every incident that opens and ends (the same events as',
    "PagerDuty's). The URL must be https and carry no user or password. The incident is",
    '`data.incidentKey`, its state `data.state` (`firing` or `resolved`, also in `type`:',
    '`incident.firing`, `incident.resolved`); `data.severity`, `data.summary`, `data.source` (the',
    'node, or the cluster), `data.cluster`, `data.details`, and `data.members` (the node',
    "incident keys of a group incident). In a tool's generic webhook alert source, map its",
    'deduplication key to `data.incidentKey` and its resolve condition to `data.state` being',
    "`resolved`. Splunk On-Call's REST endpoint wants its own fields (`entity_id`,",
    '`message_type`) at the top of the body: it needs a small relay.',
    '',
    `Each request is signed as [Standard Webhooks](${STANDARD_WEBHOOKS}) signs, so its libraries`,
    '(JavaScript, Python, Go, Java, Ruby, PHP, Rust, C#...) verify it:',
    '',
    '| header | value |',
    '| --- | --- |',
    "| `webhook-id` | the event's id, the same on every retry of it: the idempotency key |",
    '| `webhook-timestamp` | when this attempt was signed, Unix seconds: reject one more than 5 minutes from your clock (no replays) |',
    '| `webhook-signature` | `v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, the body exactly as received |',
    '',
    "The key: the secret's value, base64 with or without the spec's `whsec_` prefix (make one",
    'with `echo "whsec_$(openssl rand -base64 32)"`, give the same string to your receiver). The',
    'stack grants `ReadWebhookSigningKey` on exactly that secret. A resolve is signed with the',
    "current key, not its trigger's: your receiver checks with the key it has now. The answer",
    'follows the one retry rule above: 2xx taken; 401, 403, 404, 429, 5xx retried for 30 minutes',
    '(a 401 reads the key again: a rotated key is picked up at once); another 4xx given up.',
    'Lane, metric dimension and alarm: `webhook`. A FIRING as the webhook receives it:',
    '',
    '```json',
    JSON.stringify(event ? webhookBody(event) : {}, null, 2),
    '```',
    '',
  ];
}

const AM_CLIENTS = 'https://prometheus.io/docs/alerting/latest/clients/';
const AM_OPENAPI = 'https://github.com/prometheus/alertmanager/blob/main/api/v2/openapi.yaml';
const AM_CONFIG = 'https://prometheus.io/docs/alerting/latest/configuration/';
const AM_HTTPS = 'https://prometheus.io/docs/alerting/latest/https/';

/** Alertmanager: the same incidents as alerts, posted again while they fire. */
export function alertmanagerSection(firing: Notification): string[] {
  const [event] = onCallEvents(firing);
  const at = event?.at ?? 0;
  const alert = event ? alertmanagerAlert(event, event, at + 10 * 60_000) : {};
  return [
    '## Alertmanager',
    '',
    'With `"alertmanager": {"url": "https://alertmanager.example.com:9093", "authSecret": "<secret',
    'name or ARN>"}` in the deployment file, the function posts every incident to the team\'s own',
    'Alertmanager as an alert (API v2, `POST /api/v2/alerts`): the incidents PagerDuty gets above,',
    'a firing alert where PagerDuty gets a trigger, an ended one where it gets a resolve. The',
    "Alertmanager's routes, grouping, inhibitions, silences and receivers then take it as one of",
    'its own.',
    '',
    '- Labels: `alertname` (`LeaseWatchdogNodeDown` for a node, `LeaseWatchdogNodesDown` for a',
    '  storm or a group of nodes, `LeaseWatchdogCannotReadCluster` for the watchdog), `cluster`,',
    '  `node`, `zone`, `nodegroup` (where known) and `severity` (`critical`, `warning` for',
    '  FLAPPING). Labels identify an alert, so an ended alert carries the labels it fired with.',
    '  Annotations: `summary`, `incident_key`, and the details (verdict, reason, zone, instance, node group).',
    '- Kept alive: an alert ends when its `endsAt` passes, or `resolve_timeout` (default 5m) after',
    `  it was last received when it has none ([Configuration](${AM_CONFIG})), and clients "are expected`,
    '  to continuously re-send alerts as long as they are still active"',
    `  ([Sending alerts](${AM_CLIENTS})). So the function posts each firing alert again at every`,
    '  check, `endsAt` `endsAfterMinutes` (default 10) ahead of the check; keep it above twice',
    "  `scheduleMinutes`. If the watchdog stops, its alerts end that long after (its dead-man's",
    "  switch alarm says it stopped). The incidents kept alive are in the cluster's state",
    `  (at most ${ON_CALL_OPEN_MAX}); their posts take only the room the on-call outbox`,
    `  (${ON_CALL_OUTBOX_MAX} events) leaves, and are sent after the other receivers' events, none`,
    '  more in a run once one failed: a slow or hanging Alertmanager never holds back PagerDuty.',
    '- Ended: the same labels, `endsAt` the check that saw the incident end; `startsAt` is the',
    "  check that opened it. `endsAt` is judged on the Alertmanager's clock: keep both on NTP.",
    '- No `generatorURL`: the watchdog has no page of its own to link back to.',
    "- The secret holds `user:password`, sent as basic auth (Alertmanager's own",
    `  \`basic_auth_users\`, [HTTPS and authentication](${AM_HTTPS}), or a proxy's), or a token`,
    '  (no colon), sent as `Authorization: Bearer` (a proxy in front). The URL must be https.',
    '- 200 leaves the outbox; 400 (an alert it cannot take) is poison; 401, 403, 404, 429, 5xx and',
    "  the network are retried, as for PagerDuty; its lane's alarm is `OnCallEventsFailed-alertmanager`.",
    '',
    `The first node of the FIRING above, as Alertmanager receives it ([OpenAPI description](${AM_OPENAPI}),`,
    '`postableAlert`):',
    '',
    '```json',
    JSON.stringify([alert], null, 2),
    '```',
    '',
  ];
}
