/**
 * The SNS notifier: one `Publish` per notification, to a standard or FIFO topic.
 *
 * The client is built by the composition root and passed in (so tests hand in one pointed at a
 * local endpoint). `publish` resolves only once SNS accepted the message; any failure rejects with
 * a `PublishError`, and the caller keeps the notification in its outbox to retry on the next
 * check. The abort signal (the Lambda deadline) cancels the request.
 */

import { createHash } from 'node:crypto';
import {
  type MessageAttributeValue,
  PublishCommand,
  type PublishCommandInput,
  type SNSClient,
} from '@aws-sdk/client-sns';
import type { Notification } from '../../../core/notification.js';
import type { Notifier } from '../../../ports/index.js';
import { PATTERNS } from '../../../settings/patterns.js';
import { nodeGroupsOf, renderDocument, zonesOf } from '../render/document.js';
import { type RenderContext, renderBody, renderSubject } from '../render/render.js';
import { asciiText, cleanText, squeeze, truncate, utf8Bytes } from '../render/text.js';
import { oneLine } from './copy-after-accept.js';

export interface SnsNotifierOptions {
  readonly client: SNSClient;
  readonly topicArn: string;
  /** The part of a logger this notifier uses (Powertools Logger fits). */
  readonly logger?: { info(message: string, fields: Record<string, unknown>): void } | undefined;
  /** How each cluster is set up, for the email body (default: leases in kube-node-lease). */
  readonly contextFor?: ((cluster: string) => RenderContext) | undefined;
}

/** SNS did not accept a notification. `retryable`: whether trying again later may succeed. */
export class PublishError extends Error {
  override readonly name = 'PublishError';
  readonly retryable: boolean;
  /** The SDK's error name (e.g. `InternalErrorException`, `AbortError`), when there is one. */
  readonly code: string | undefined;
  /** HTTP status SNS answered with, when it answered. */
  readonly statusCode: number | undefined;

  constructor(
    message: string,
    fields: Pick<PublishError, 'retryable' | 'code' | 'statusCode' | 'cause'>,
  ) {
    super(message, { cause: fields.cause });
    this.retryable = fields.retryable;
    this.code = fields.code;
    this.statusCode = fields.statusCode;
  }
}

export class SnsNotifier implements Notifier {
  readonly #options: SnsNotifierOptions;

  constructor(options: SnsNotifierOptions) {
    if (!PATTERNS.TOPIC_ARN.test(options.topicArn)) {
      throw new Error(
        `topicArn must be an SNS topic ARN (arn:aws:sns:<region>:<account>:<name>), got "${truncate(cleanText(options.topicArn), 200)}"`,
      );
    }
    this.#options = options;
  }

  subjectOf(notification: Notification): string {
    return renderSubject(notification);
  }

  async publish(notification: Notification, signal?: AbortSignal): Promise<void> {
    const { client, topicArn, logger, contextFor } = this.#options;
    const input = publishInput(notification, topicArn, contextFor?.(notification.cluster));
    let messageId: string | undefined;
    try {
      const output = await client.send(new PublishCommand(input), { abortSignal: signal });
      messageId = output.MessageId;
    } catch (error) {
      throw toPublishError(error, notification, signal);
    }
    logger?.info('notification published', {
      cluster: attributeValue(notification.cluster),
      kind: notification.kind,
      notificationId: notification.id,
      messageId,
      nodes:
        notification.firing.length +
        notification.reminders.length +
        notification.flapping.length +
        notification.resolved.length,
      bytes: utf8Bytes(input.Message ?? ''),
    });
  }
}

/** The protocols that receive the JSON document; every other one (email, SMS...) gets `default`. */
export const DOCUMENT_PROTOCOLS = ['sqs', 'lambda', 'http', 'https', 'firehose'] as const;

/**
 * The most UTF-8 bytes of the `Message` parameter (the whole JSON message structure): SNS takes
 * 262,144 bytes for message, subject and attributes together; the rest is kept for those.
 */
export const MESSAGE_MAX_BYTES = 250_000;
/** The most UTF-8 bytes of one String.Array attribute value (`zones`, `nodeGroups`). */
export const ARRAY_ATTRIBUTE_MAX_BYTES = 4_096;

/**
 * The `Publish` request for a notification (pure; exported for tests): `MessageStructure: json`
 * with the email text under `default` (email, email-json and SMS subscribers get it) and the
 * versioned JSON document (document-schema.ts) under each machine protocol's key. The whole
 * message stays within MESSAGE_MAX_BYTES: the document lists what fits in DOCUMENT_MAX_BYTES, and
 * the email text is shortened to fit the rest.
 *
 * No message attributes: AWS documents that "Message attributes are sent only when the message
 * structure is String, not JSON" (https://docs.aws.amazon.com/sns/latest/dg/sns-message-attributes.html),
 * so a filter policy on them would rest on nothing. They go with the String-structure publish to
 * the machine topic (machine-notifier.ts).
 */
export function publishInput(
  n: Notification,
  topicArn: string,
  context: RenderContext = {},
): PublishCommandInput {
  const input: PublishCommandInput = {
    TopicArn: topicArn,
    Subject: renderSubject(n),
    Message: structuredMessage(n, context),
    MessageStructure: 'json',
  };
  return withFifoIds(input, n);
}

/** On a FIFO topic, the cluster as message group and the notification id as deduplication id. */
export function withFifoIds(input: PublishCommandInput, n: Notification): PublishCommandInput {
  if (!input.TopicArn?.endsWith('.fifo')) return input;
  return {
    ...input,
    MessageGroupId: messageGroupId(n.cluster),
    MessageDeduplicationId: deduplicationId(n.id),
  };
}

/** The JSON message structure: `default` (the email text) and the document per machine protocol. */
export function structuredMessage(n: Notification, context: RenderContext = {}): string {
  const document = JSON.stringify(renderDocument(n, { runbookUrl: context.runbookUrl }));
  const machine: Record<string, string> = {};
  for (const protocol of DOCUMENT_PROTOCOLS) machine[protocol] = document;
  const without = utf8Bytes(JSON.stringify({ default: '', ...machine }));
  const limit = Math.min(context.maxBytes ?? MESSAGE_MAX_BYTES, MESSAGE_MAX_BYTES);
  // The text is escaped inside the JSON (newlines and quotes take two bytes): when the first
  // rendering overflows, render again for the room left at the escaping rate it showed.
  const textRoom = limit - without;
  let room = textRoom;
  for (let attempt = 0; ; attempt++) {
    const text = renderBody(n, { ...context, maxBytes: Math.max(1_000, room) });
    const message = JSON.stringify({ default: text, ...machine });
    const over = utf8Bytes(message) - limit;
    if (over <= 0 || attempt >= 4) return message;
    const rate = (utf8Bytes(JSON.stringify(text)) - 2) / Math.max(1, utf8Bytes(text));
    room = Math.min(room - over, Math.floor(textRoom / rate)) - 64;
  }
}

/**
 * The attributes of the machine topic's publish (machine-notifier.ts), which a subscription filter
 * policy can match: `cluster`, `kind`, `severity` (String)
 * and, when the notification has any, `zones` and `nodeGroups` (String.Array: a JSON array of
 * strings, matched when any element matches). Values are sanitised; arrays are cut to fit
 * ARRAY_ATTRIBUTE_MAX_BYTES.
 */
export function messageAttributes(n: Notification): Record<string, MessageAttributeValue> {
  const attributes: Record<string, MessageAttributeValue> = {
    cluster: { DataType: 'String', StringValue: attributeValue(n.cluster) },
    kind: { DataType: 'String', StringValue: n.kind },
    severity: { DataType: 'String', StringValue: n.severity },
  };
  const zones = arrayAttribute(zonesOf(n));
  if (zones) attributes.zones = { DataType: 'String.Array', StringValue: zones };
  const nodeGroups = arrayAttribute(nodeGroupsOf(n));
  if (nodeGroups) attributes.nodeGroups = { DataType: 'String.Array', StringValue: nodeGroups };
  return attributes;
}

/** A String.Array value (`["a","b"]`) of as many values as fit, or undefined for none. */
function arrayAttribute(values: readonly string[]): string | undefined {
  const kept: string[] = [];
  for (const value of values) {
    if (utf8Bytes(JSON.stringify([...kept, value])) > ARRAY_ATTRIBUTE_MAX_BYTES) break;
    kept.push(value);
  }
  return kept.length > 0 ? JSON.stringify(kept) : undefined;
}

/** A non-empty, single-line attribute value: SNS rejects empty String attributes. */
export function attributeValue(text: string): string {
  return truncate(squeeze(cleanText(text)), 256) || 'unknown';
}

/** SNS FIFO ids: 1–128 characters, ASCII letters, digits and punctuation. */
const FIFO_ID = /^[\x21-\x7e]{1,128}$/;

/** The cluster as a FIFO message group: messages of one cluster stay in order. */
export function messageGroupId(cluster: string): string {
  const id = asciiText(cluster)
    .replace(/[^\x21-\x7e]+/g, '-')
    .slice(0, 128);
  return id || 'cluster';
}

/** The notification id when it fits SNS's rules, else a digest of it (still deterministic). */
export function deduplicationId(id: string): string {
  return FIFO_ID.test(id) ? id : createHash('sha256').update(id, 'utf8').digest('hex');
}

const THROTTLING = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'KMSThrottlingException',
]);

function toPublishError(error: unknown, n: Notification, signal?: AbortSignal): PublishError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
    $metadata?: { httpStatusCode?: number };
    $retryable?: unknown;
  };
  const code = typeof e.name === 'string' ? e.name : undefined;
  const status = e.$metadata?.httpStatusCode;
  const aborted = code === 'AbortError' || signal?.aborted === true;
  const retryable =
    aborted ||
    e.$retryable !== undefined ||
    status === undefined || // no answer at all: network, DNS, timeout
    status === 429 ||
    status >= 500 ||
    (code !== undefined && THROTTLING.has(code));
  // The first line of the SDK's message, cleaned and short: never a dump of the request.
  const detail = oneLine(e.message);
  const what = aborted
    ? 'aborted (deadline)'
    : `${code ?? 'error'}${status !== undefined ? ` (HTTP ${status})` : ''}`;
  const cluster = truncate(squeeze(cleanText(n.cluster)), 100) || 'unknown';
  return new PublishError(
    `SNS did not accept the ${n.kind} notification for cluster ${cluster}: ${what}${detail ? `: ${detail}` : ''}`,
    {
      retryable: retryable && code !== 'CredentialsProviderError',
      code,
      statusCode: status,
      cause: error,
    },
  );
}
