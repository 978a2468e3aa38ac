/**
 * The chat and EventBridge sections of docs/NOTIFICATIONS.md (docs/notifications.ts assembles the
 * page): how a chat channel and an event rule receive a notification, rendered by the real code.
 */
import {
  EVENT_DETAIL_TYPE,
  EVENT_SOURCE,
  notificationEvent,
} from '../lambda/adapters/notify/delivery/event-notifier.js';
import { renderChatNotification } from '../lambda/adapters/notify/render/chat.js';
import type { Notification } from '../lambda/core/notification.js';

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** The chat topic: how to show it in a channel, and a notification as it receives it. */
export function chatSection(notification: Notification): string[] {
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
    'The chat topic is for the chat service alone (it subscribes with protocol `https`, which on the',
    "notification topic would get the webhooks' JSON entry): subscribe nothing else to it, and do",
    'not add the notification topic to a channel.',
    '',
    'The format is the "Event schema" AWS documents on that page. A payload the service cannot read',
    "is dropped without a word (its only trace is the service's `UnsupportedEvents` metric), so the",
    'tests check every payload the renderer makes, hostile and huge names included, against it',
    '(`testkit/chat-notification-format.ts`).',
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
export function eventSection(notification: Notification): string[] {
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
    'is refused and counts as a failure. Best effort, like the chat copy: a put that fails (an',
    'error, a 5xx, or PutEvents answering with `FailedEntryCount` 1) is logged as',
    '`notification event not put` with the error code and counted in the metric',
    '`NotificationEventsFailed` (one for the deployment, with its alarm',
    '`NotificationEventsFailedAlarm`); the notification is not sent again, and the emails are',
    'neither delayed (one put takes at most 5 s) nor repeated.',
    '',
    'Rules choose on the detail, arrays included: `"nodeGroups": ["gpu"]` matches a notification',
    'whose node groups include `gpu`',
    '([arrays in event patterns](https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-event-patterns-arrays.html)).',
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
