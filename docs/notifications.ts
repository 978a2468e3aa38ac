/**
 * The machine-readable notifications, rendered by the real code: the source of
 * docs/NOTIFICATIONS.md and of the JSON Schema docs/schema/notification.v1.json
 * (`npm run docs:notifications` rewrites both; a test checks that they are current).
 */

import { writeFile } from 'node:fs/promises';
import {
  EVENT_DETAIL_TYPE,
  EVENT_SOURCE,
  notificationEvent,
} from '../lambda/adapters/notify/delivery/event-notifier.js';
import {
  DOCUMENT_PROTOCOLS,
  MESSAGE_MAX_BYTES,
  messageAttributes,
} from '../lambda/adapters/notify/delivery/sns-notifier.js';
import { renderChatNotification } from '../lambda/adapters/notify/render/chat.js';
import { renderDocument } from '../lambda/adapters/notify/render/document.js';
import {
  DOCUMENT_SCHEMA,
  documentJsonSchema,
} from '../lambda/adapters/notify/render/document-schema.js';
import { composeNotification } from '../lambda/core/grouping.js';
import { incidentKey } from '../lambda/core/incident-keys.js';
import type { AlertNode, Notification } from '../lambda/core/notification.js';
import { incidentKeySection, pagerDutySection } from './notifications-on-call.js';

const T = Date.UTC(2026, 10, 29, 17, 55, 0);

function micro(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -1)}000Z`;
}

function node(name: string, spec: Partial<AlertNode>): AlertNode {
  const since = spec.since ?? T - 60_000;
  return {
    key: incidentKey('node', 'prod-eu', name, since),
    name,
    zone: 'eu-west-1a',
    instance: 'i-0a1b2c3d4e5f67890',
    nodeGroup: 'general-purpose',
    instanceType: 'm7g.xlarge',
    capacityType: 'on-demand',
    verdict: 'expired',
    reason: 'lease not renewed for 1m50s (grace period 50 s, lease duration 40 s)',
    renewTime: micro(T - 110_000),
    silentForSeconds: 110,
    since: T - 60_000,
    ...spec,
  };
}

function compose(spec: Partial<Parameters<typeof composeNotification>[0]>): Notification {
  const n = composeNotification({
    cluster: 'prod-eu',
    at: T,
    firing: [],
    resolved: [],
    reminders: [],
    flapping: [],
    ...spec,
  });
  if (!n) throw new Error('the example composes no notification');
  return n;
}

const expired = node('ip-10-0-1-11.eu-west-1.compute.internal', {});
const notReady = node('ip-10-0-2-12.eu-west-1.compute.internal', {
  zone: 'eu-west-1b',
  instance: 'i-0f9e8d7c6b5a43210',
  nodeGroup: 'batch-spot',
  instanceType: 'c7g.2xlarge',
  capacityType: 'spot',
  verdict: 'not-ready',
  reason: 'Ready=False (KubeletNotReady): PLEG is not healthy: pleg was last seen active 3m10s ago',
  renewTime: micro(T - 4_000),
  silentForSeconds: 4,
});

const stormNodes = [11, 12, 13, 14].map((i, k) =>
  node(`ip-10-0-3-${i}.eu-west-1.compute.internal`, {
    zone: 'eu-west-1c',
    instance: `i-0c${String(k).repeat(15)}`,
    reason: 'lease not renewed for 1m15s (grace period 50 s, lease duration 40 s)',
    renewTime: micro(T - 75_000),
    silentForSeconds: 75,
    since: T,
  }),
);

/** The example notifications, titled: one per situation the docs show. */
export function notificationExamples(): { title: string; notification: Notification }[] {
  return [
    {
      title: 'FIRING: a node stops renewing its lease; another reports Ready=False',
      notification: compose({ firing: [expired, notReady] }),
    },
    {
      title: 'RESOLVED: one recovers, the other is cordoned',
      notification: compose({
        resolved: [
          { ...expired, verdict: 'healthy', silentForSeconds: 3, resolution: 'recovered' },
          { ...notReady, verdict: 'suppressed', resolution: 'cordoned' },
        ],
      }),
    },
    {
      title: 'STORM: a zone goes dark',
      notification: compose({
        firing: stormNodes,
        storm: {
          scope: 'zone',
          zones: [{ zone: 'eu-west-1c', total: 4, silent: 4 }],
          clusterTotal: 12,
          clusterSilent: 4,
          key: incidentKey('storm', 'prod-eu', '', T),
        },
      }),
    },
    {
      title: 'WATCHDOG: the watchdog cannot read the cluster',
      notification: compose({
        watchdog: {
          state: 'failing',
          failure: 'forbidden',
          message:
            'cannot list leases in namespace kube-node-lease (403 Forbidden) — grant get/list on leases, see deploy/rbac.yaml',
          since: T - 60_000,
          key: incidentKey('watchdog', 'prod-eu', '', T - 60_000),
        },
      }),
    },
  ];
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

export function schemaJson(): string {
  return `${json(documentJsonSchema())}\n`;
}

/** docs/NOTIFICATIONS.md: the formats, the attributes, each example, then chat and EventBridge. */
export function notificationsMarkdown(): string {
  const examples = notificationExamples();
  const [first] = examples;
  if (!first) throw new Error('no example');
  return [
    ...formatSections(),
    ...attributesSection(),
    ...incidentKeySection(),
    ...examples.flatMap(exampleSection),
    ...chatSection(first.notification),
    ...eventSection(first.notification),
    ...pagerDutySection(first.notification),
  ].join('\n');
}

/** What a subscriber receives, by protocol, and where the document's schema is. */
function formatSections(): string[] {
  return [
    '# Machine-readable notifications',
    '',
    'Rendered by the code (`lambda/adapters/notify/render/document.ts`, `lambda/adapters/notify/delivery/sns-notifier.ts`) from the',
    'examples in `docs/notifications.ts`; `npm run docs:notifications` rewrites this file and',
    '`docs/schema/notification.v1.json`, and a test checks that both are current.',
    '',
    '## One publish, a format per protocol',
    '',
    'Each notification is one SNS `Publish` with `MessageStructure: json`. SNS gives every',
    'subscription the entry of its protocol, or `default` when there is none:',
    '',
    '| subscription protocol | receives |',
    '| --- | --- |',
    '| `email`, `email-json`, `sms` | `default`: the plain-text email of [EMAILS.md](EMAILS.md) |',
    `| ${DOCUMENT_PROTOCOLS.map((p) => `\`${p}\``).join(', ')} | the JSON document below (\`schema\`: \`${DOCUMENT_SCHEMA}\`) |`,
    '',
    'SQS, Lambda, HTTP(S) and Firehose subscribers find the document, as a string, in the `Message`',
    'field of the SNS envelope (or as the whole body with raw message delivery). The text is not',
    'repeated under `email`: email subscriptions fall back to `default`.',
    '',
    `The whole message (the text and the document under each key) stays within ${MESSAGE_MAX_BYTES.toLocaleString('en-US')} bytes, SNS's`,
    'limit being 262,144 for message, subject and attributes together: the document lists nodes,',
    'most urgent first (firing, flapping, reminder, resolved), while they fit in 32,000 bytes and',
    'says how many it left out in `nodesOmitted`; `counts` always has the full numbers. FIFO topics',
    'take the same message (group: the cluster; deduplication id: the notification id).',
    '',
    '## The document',
    '',
    'Its JSON Schema (draft 2020-12) is [docs/schema/notification.v1.json](schema/notification.v1.json),',
    'generated from the declaration in `lambda/adapters/notify/render/document-schema.ts`. Within v1, fields are only',
    'added and enums may gain values (a new kind, verdict or severity): ignore what you do not know.',
    'A change that breaks a consumer gets a new `schema` string.',
    '',
  ];
}

/** The message attributes, and filter policies on them. */
function attributesSection(): string[] {
  return [
    '## Message attributes, for filter policies',
    '',
    '| attribute | type | value |',
    '| --- | --- | --- |',
    '| `cluster` | String | the cluster name |',
    '| `kind` | String | the headline kind (`FIRING`, `RESOLVED`, ...) |',
    '| `severity` | String | `critical`, `warning` or `info` |',
    '| `zones` | String.Array | the zones of the nodes (and of a storm); absent when there are none |',
    '| `nodeGroups` | String.Array | the node groups of the nodes; absent when there are none |',
    '',
    'A String.Array attribute matches a filter policy when any of its elements does. So that a team',
    'gets the notifications about its own node group:',
    '',
    '```json',
    json({ nodeGroups: ['batch-spot'] }),
    '```',
    '',
    'A notification without nodes (a WATCHDOG: the watchdog cannot read the cluster) carries no',
    '`zones` or `nodeGroups`, and a policy on them does not match it; to receive those too:',
    '',
    '```json',
    json({ $or: [{ nodeGroups: ['batch-spot'] }, { kind: ['WATCHDOG'] }] }),
    '```',
    '',
    'Values are sanitised (control, bidi and invisible characters removed) and each array is cut to',
    'fit 4,096 bytes (about a hundred values). AWS documents that message attributes are not',
    'delivered to subscribers in the SNS envelope of a JSON-structured message; the document carries',
    'the same `cluster`, `kind`, `severity`, `zones` and `nodeGroups` for the consumer.',
    '',
  ];
}

/** One example: its message attributes and its document. */
function exampleSection({ title, notification }: { title: string; notification: Notification }) {
  const attributes = Object.fromEntries(
    Object.entries(messageAttributes(notification)).map(([name, a]) => [
      name,
      { DataType: a.DataType, StringValue: a.StringValue },
    ]),
  );
  return [
    `## ${title}`,
    '',
    'Message attributes:',
    '',
    '```json',
    json(attributes),
    '```',
    '',
    'Document:',
    '',
    '```json',
    json(renderDocument(notification)),
    '```',
    '',
  ];
}

/** The chat topic: how to show it in a channel, and a notification as it receives it. */
function chatSection(notification: Notification): string[] {
  return [
    '## Chat: Slack and Microsoft Teams',
    '',
    'With `"chatNotifications": {"link": "https://..."}` (or `{}` without a link) in the deployment',
    'file, the stack creates a second topic, encrypted like the first, and the function publishes',
    'each notification to it as an Amazon Q Developer in chat applications (formerly AWS Chatbot)',
    '[custom notification](https://docs.aws.amazon.com/chatbot/latest/adminguide/custom-notifs.html):',
    'a title with the headline, a description of the nodes (ten at most, then a count), the kubectl',
    'commands the email advises as next steps, and the link. To show them in a channel:',
    '',
    '1. `npx cdk deploy -c config=watchdog.json` and note the output `ChatTopicArn`.',
    '2. In the Amazon Q Developer in chat applications console, configure the Slack workspace or',
    '   Microsoft Teams team, then in the channel configuration add that topic (same region) under',
    '   notifications.',
    '',
    'Why a topic of its own: the chat service subscribes to a topic with protocol `https`, so in',
    'the JSON-structured publish above it would get the `https` entry, which every HTTPS webhook',
    'subscriber shares; no protocol key reaches the chat integration alone. Its own topic gets',
    'exactly the custom-notification event, and the notification topic keeps its formats.',
    '',
    'The notification topic stays the record: the chat copy is published once that topic has',
    'accepted the notification; if the chat publish fails, the function logs',
    '`chat notification not published` and goes on, so a chat outage neither delays nor',
    'duplicates the emails. Untrusted text loses `<`, `>` and backticks (chat markdown would read',
    'them as links, mentions or code).',
    '',
    `The first example above, with a link, as the chat topic receives it:`,
    '',
    '```json',
    json(
      renderChatNotification(notification, {
        link: 'https://wiki.example.com/runbooks/lease-watchdog',
      }),
    ),
    '```',
    '',
  ];
}

/** The EventBridge section: a notification as the event a rule's target receives. */
function eventSection(notification: Notification): string[] {
  const entry = notificationEvent(notification, 'on-call');
  const delivered = {
    version: '0',
    id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
    'detail-type': entry.DetailType,
    source: entry.Source,
    account: '123456789012',
    time: entry.Time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'eu-west-1',
    resources: [],
    detail: JSON.parse(entry.Detail) as unknown,
  };
  return [
    '## EventBridge: PagerDuty, Opsgenie, any HTTP API',
    '',
    'With `"eventBus": "<name or ARN>"` in the deployment file, the function also puts each',
    'notification, once the notification topic accepted it, on that event bus as one event:',
    `source \`${EVENT_SOURCE}\`, detail-type \`${EVENT_DETAIL_TYPE}\` (one detail-type: every kind has`,
    'the same detail, so rules choose by `detail.kind`), time the check time, detail the document',
    'above, no resources (the nodes and their instance ids are in the detail). The stack allows',
    '`events:PutEvents` on that bus only; a bus in another account also needs its resource policy',
    "to allow the function's role.",
    '',
    'Bounded: the document is at most 32,000 bytes (nodes listed while they fit, `nodesOmitted`',
    'counting the rest), far below the 256 KB PutEvents takes for one entry; an entry over that',
    'is not sent and counts as a failure. Best effort, like the chat copy: a put that fails (an',
    'error, a 5xx, or PutEvents answering with `FailedEntryCount` 1) is logged as',
    '`notification event not put` with the error code and counted in the metric',
    '`NotificationEventsFailed` (one for the deployment, with its alarm',
    '`NotificationEventsFailedAlarm`); the notification is not sent again, and the emails are',
    'neither delayed (one put takes at most 5 s) nor repeated.',
    '',
    'A rule that routes FIRING for the node group `gpu` of `prod-eu` (to an API destination, say):',
    '',
    '```json',
    json({
      source: [EVENT_SOURCE],
      'detail-type': [EVENT_DETAIL_TYPE],
      detail: { kind: ['FIRING'], cluster: ['prod-eu'], nodeGroups: ['gpu'] },
    }),
    '```',
    '',
    "The first example above as the rule's target receives it (`id`, `account` and `region` are",
    "EventBridge's):",
    '',
    '```json',
    json(delivered),
    '```',
    '',
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await writeFile(new URL('./NOTIFICATIONS.md', import.meta.url), notificationsMarkdown());
  await writeFile(new URL('./schema/notification.v1.json', import.meta.url), schemaJson());
  process.stdout.write('wrote docs/NOTIFICATIONS.md and docs/schema/notification.v1.json\n');
}
