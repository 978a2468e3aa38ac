/**
 * The machine-readable notifications, rendered by the real code: the source of
 * docs/NOTIFICATIONS.md and of the JSON Schema docs/schema/notification.v1.json
 * (`npm run docs:notifications` rewrites both; a test checks that they are current).
 */

import { writeFile } from 'node:fs/promises';
import {
  DOCUMENT_PROTOCOLS,
  MESSAGE_MAX_BYTES,
  messageAttributes,
} from '../lambda/adapters/notify/delivery/sns-notifier.js';
import { renderDocument } from '../lambda/adapters/notify/render/document.js';
import { documentJsonSchema } from '../lambda/adapters/notify/render/document-schema.js';
import { DOCUMENT_SCHEMA } from '../lambda/adapters/notify/render/document-version.js';
import { composeNotification } from '../lambda/core/grouping.js';
import { incidentKey } from '../lambda/core/incident-keys.js';
import type { AlertNode, Notification } from '../lambda/core/notification.js';
import { chatSection, eventSection } from './chat-and-events.js';
import {
  alertmanagerSection,
  incidentIoSection,
  incidentKeySection,
  opsgenieSection,
  pagerDutySection,
  webhookSection,
} from './notifications-on-call.js';

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

/**
 * docs/NOTIFICATIONS.md: the formats, the machine topic's attributes, each example, then chat and
 * EventBridge; every promise about SNS or EventBridge delivery beside the AWS sentence it rests on.
 */
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
    ...opsgenieSection(first.notification),
    ...incidentIoSection(first.notification),
    ...webhookSection(first.notification),
    ...alertmanagerSection(first.notification),
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
    'Each notification is one SNS `Publish` to the notification topic with `MessageStructure: json`',
    '([Publish](https://docs.aws.amazon.com/sns/latest/api/API_Publish.html)): every subscription',
    'gets the entry of its protocol, or `default` when there is none:',
    '',
    '| subscription protocol | receives |',
    '| --- | --- |',
    '| `email`, `email-json`, `sms` | `default`: the plain-text email of [EMAILS.md](EMAILS.md) |',
    `| ${DOCUMENT_PROTOCOLS.map((p) => `\`${p}\``).join(', ')} | the JSON document below (\`schema\`: \`${DOCUMENT_SCHEMA}\`) |`,
    '',
    'SQS, Lambda, HTTP(S) and Firehose subscribers find the document, as a string, in the `Message`',
    'field of the SNS envelope, or as the whole body with',
    '[raw message delivery](https://docs.aws.amazon.com/sns/latest/dg/sns-large-payload-raw-message-delivery.html).',
    '',
    '**No message attributes on this topic, so no filter policies on it.** AWS: "Message attributes',
    'are sent only when the message structure is String, not JSON"',
    '([message attributes](https://docs.aws.amazon.com/sns/latest/dg/sns-message-attributes.html)):',
    'every subscriber gets every notification. To route by cluster, kind, severity, zone or node',
    "group, use the machine topic or EventBridge (below), or sort on the document's fields.",
    '',
    `The whole message (the text and the document under each key) stays within ${MESSAGE_MAX_BYTES.toLocaleString('en-US')} bytes, under`,
    "SNS's 262,144 (Publish, above). The document lists nodes, most urgent first (firing, flapping,",
    'reminder, resolved), while they fit in 32,000 bytes and says how many it left out in',
    '`nodesOmitted`; `counts` always has the full numbers.',
    '',
    'FIFO topics take the same message, with the cluster as message group and the notification id as',
    'deduplication id (Publish, above: a repeated id is not delivered again within 5 minutes):',
    'messages of one cluster stay in order, and a publish repeated after a lost answer is delivered once.',
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

/** The machine topic: String-structure publishes with attributes, and filter policies on them. */
function attributesSection(): string[] {
  return [
    '## The machine topic: message attributes, for filter policies',
    '',
    'With `"machineTopic": true` in the deployment file, the stack creates a topic of its own,',
    'encrypted like the first (output `MachineTopicArn`), and the function also publishes each notification to',
    'it, once the notification topic accepted it, as one **String-structure** `Publish` (no',
    '`MessageStructure`): its `Message` is the JSON document below, the same for every protocol, and',
    'it carries these message attributes, which AWS sends with a String-structure message (quoted',
    'above):',
    '',
    '| attribute | type | value |',
    '| --- | --- | --- |',
    '| `cluster` | String | the cluster name |',
    '| `kind` | String | the headline kind (`FIRING`, `RESOLVED`, ...) |',
    '| `severity` | String | `critical`, `warning` or `info` |',
    '| `zones` | String.Array | the zones of the nodes (and of a storm); absent when there are none |',
    '| `nodeGroups` | String.Array | the node groups of the nodes; absent when there are none |',
    '',
    'A [subscription filter policy](https://docs.aws.amazon.com/sns/latest/dg/sns-subscription-filter-policies.html)',
    "(scope `MessageAttributes`, the default) chooses among them, matching a String.Array's values one",
    'by one, so that a team gets the notifications about its own node group:',
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
    'fit 4,096 bytes (about a hundred values). An HTTP/S or Firehose subscriber with raw delivery',
    'does not receive the attributes (quoted above): it reads the same fields in the document. A FIFO',
    'machine topic gets the same message group and deduplication ids as the notification topic.',
    'Best effort, like the chat copy: if the publish fails, the function logs',
    '`machine notification not published` and goes on; the notification topic stays the record.',
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
    'Message attributes (machine topic):',
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

if (import.meta.url === `file://${process.argv[1]}`) {
  await writeFile(new URL('./NOTIFICATIONS.md', import.meta.url), notificationsMarkdown());
  await writeFile(new URL('./schema/notification.v1.json', import.meta.url), schemaJson());
  process.stdout.write('wrote docs/NOTIFICATIONS.md and docs/schema/notification.v1.json\n');
}
