/**
 * The machine topic (`machineTopic`): after the notification topic accepted a notification, the
 * same notification as one String-structure `Publish` (no `MessageStructure`) whose Message is the
 * versioned JSON document (document-schema.ts) and which carries the message attributes `cluster`,
 * `kind`, `severity`, `zones` and `nodeGroups` (sns-notifier.ts `messageAttributes`).
 *
 * Why a topic of its own: the notification topic's publish is JSON-structured (email text and
 * document per protocol), and AWS documents that "Message attributes are sent only when the
 * message structure is String, not JSON"
 * (https://docs.aws.amazon.com/sns/latest/dg/sns-message-attributes.html). Filter policies on
 * attributes, the documented way to route by cluster, kind, severity, zone or node group, need a
 * String-structure publish; this one gives every subscriber the same document.
 *
 * Best effort, like the chat copy: the notification topic stays the record; a failed publish here
 * is logged (`machine notification not published`) and not sent again.
 */
import type { Notifier } from '../../../ports/index.js';
import { PATTERNS } from '../../../settings/patterns.js';
import { renderDocument } from '../render/document.js';
import type { RenderContext } from '../render/render.js';
import { renderSubject } from '../render/subject.js';
import { cleanText, truncate } from '../render/text.js';
import { CopyAfterAccept, publishCopy, type TopicCopyOptions } from './copy-after-accept.js';
import { messageAttributes, withFifoIds } from './sns-notifier.js';

/** Publishes to `primary`, then the document with its attributes to the machine topic. */
export class WithMachineCopy extends CopyAfterAccept {
  /** `contextFor`: each cluster's runbook URL, for the document. */
  constructor(primary: Notifier, options: TopicCopyOptions<RenderContext>) {
    const { client, topicArn, logger, contextFor } = options;
    if (!PATTERNS.TOPIC_ARN.test(topicArn)) {
      throw new Error(
        `the machine topic must be an SNS topic ARN, got "${truncate(cleanText(topicArn), 200)}"`,
      );
    }
    super(primary, async (notification, signal) => {
      const runbookUrl = contextFor?.(notification.cluster).runbookUrl;
      // String structure (no MessageStructure): the document, with the attributes.
      const input = withFifoIds(
        {
          TopicArn: topicArn,
          Subject: renderSubject(notification),
          Message: JSON.stringify(renderDocument(notification, { runbookUrl })),
          MessageAttributes: messageAttributes(notification),
        },
        notification,
      );
      const what = 'machine notification';
      await publishCopy(input, notification, { client, logger, what, signal });
    });
  }
}
