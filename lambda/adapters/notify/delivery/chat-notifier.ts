/**
 * Chat notifications: after the notification topic accepted a notification, the same
 * notification as an Amazon Q Developer in chat applications custom notification (chat.ts) to the
 * chat topic, which a Slack or Microsoft Teams channel configuration subscribes to.
 *
 * Why a topic of its own: the chat service subscribes to a topic with protocol `https`, so in a
 * `MessageStructure: json` publish it would get the `https` entry, which every HTTPS webhook
 * subscriber (PagerDuty, Opsgenie, a team's own endpoint) shares; no protocol key reaches the chat
 * integration alone. On its own topic it gets exactly the custom-notification event, and the
 * notification topic keeps its formats.
 *
 * The notification topic stays the record: `publish` resolves once it accepted the notification,
 * as before. The chat copy is then published once; when that fails, the failure is logged
 * (`chat notification not published`) and the notification is not sent again, so a chat outage
 * neither delays nor duplicates the emails and the machine subscribers' messages.
 */
import type { Notifier } from '../../../ports/index.js';
import { PATTERNS } from '../../../settings/patterns.js';
import { type ChatContext, renderChatNotification } from '../render/chat.js';
import { cleanText, truncate } from '../render/text.js';
import { CopyAfterAccept, publishCopy, type TopicCopyOptions } from './copy-after-accept.js';

/** Publishes to `primary`, then a chat copy to the chat topic (best effort, logged). */
export class WithChatCopy extends CopyAfterAccept {
  constructor(primary: Notifier, options: TopicCopyOptions<ChatContext>) {
    const { client, topicArn, logger, contextFor } = options;
    if (!PATTERNS.TOPIC_ARN.test(topicArn) || topicArn.endsWith('.fifo')) {
      throw new Error(
        `the chat topic must be a standard SNS topic ARN, got "${truncate(cleanText(topicArn), 200)}"`,
      );
    }
    super(primary, async (notification, signal) => {
      const chat = renderChatNotification(notification, contextFor?.(notification.cluster) ?? {});
      const input = { TopicArn: topicArn, Message: JSON.stringify(chat) };
      await publishCopy(input, notification, { client, logger, what: 'chat notification', signal });
    });
  }
}
