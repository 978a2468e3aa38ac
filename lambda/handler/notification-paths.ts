/**
 * Where a check's notifications go from the Lambda: the topic, then its copies (the machine topic,
 * chat, EventBridge), and the paging receivers (adapters/on-call/receivers.ts) with their keys
 * from Secrets Manager. Built by create-handler.ts from the runtime configuration.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SNSClient } from '@aws-sdk/client-sns';
import { WithChatCopy } from '../adapters/notify/delivery/chat-notifier.js';
import { WithEventCopy } from '../adapters/notify/delivery/event-notifier.js';
import { WithMachineCopy } from '../adapters/notify/delivery/machine-notifier.js';
import { SnsNotifier } from '../adapters/notify/delivery/sns-notifier.js';
import { RECEIVERS, type Receiver } from '../adapters/on-call/receivers.js';
import { SecretKey } from '../adapters/on-call/secret-key.js';
import { DynamoDbSendSlots } from '../adapters/state/dynamodb/dynamodb-send-slots.js';
import type { MetricsRecorder, Notifier, OnCallSender, StructuredLogger } from '../ports/index.js';
import type { RuntimeConfig } from '../settings/index.js';
import { PATTERNS } from '../settings/patterns.js';
import type { ClusterPlaces } from './cluster-places.js';

/** What the notifier uses of the handler's AWS clients. */
export interface NotifierClients {
  readonly sns: SNSClient;
  readonly region: string;
  readonly eventBridge?: ((region: string) => EventBridgeClient) | undefined;
}

/** What the paging tools use of the handler's parts. */
export interface OnCallParts {
  readonly clients: { readonly secrets: SecretsManagerClient; readonly dynamodb: DynamoDBClient };
  /** The receivers; default RECEIVERS (adapters/on-call/receivers.ts; tests add one by its row). */
  readonly receivers?: readonly Receiver[] | undefined;
  /**
   * Tests only: where each receiver's API is, by its `tool` (stand-ins of testkit/, e.g.
   * pagerduty-server.ts). The Lambda's entry (handler.ts) never sets it, and no setting reaches
   * it: the vendors' hosts are fixed.
   */
  readonly onCallBaseUrls?: Readonly<Record<string, string | undefined>> | undefined;
}

/**
 * The notifier a check publishes through: SNS, then the machine topic's copy (with
 * `machineTopic`), a chat copy (with a chat topic) and an EventBridge copy (with `eventBus`), each
 * rendered with the cluster's context.
 */
export function cloudNotifier(
  config: RuntimeConfig,
  clients: NotifierClients,
  { logger, metrics }: { readonly logger: StructuredLogger; readonly metrics: MetricsRecorder },
  renderContext: ClusterPlaces['renderContext'],
): Notifier {
  const topic = (topicArn: string, contextFor = renderContext) => ({
    client: clients.sns,
    topicArn,
    logger,
    contextFor,
  });
  const sns = new SnsNotifier(topic(config.topicArn));
  const { machineTopicArn, chatTopicArn } = config;
  const withMachine =
    machineTopicArn === undefined ? sns : new WithMachineCopy(sns, topic(machineTopicArn));
  const chatLink = config.settings.chatNotifications?.link;
  const chatContext = (name: string) => ({ ...renderContext(name), link: chatLink });
  const withChat =
    chatTopicArn === undefined
      ? withMachine
      : new WithChatCopy(withMachine, topic(chatTopicArn, chatContext));
  const eventBus = config.settings.eventBus;
  if (eventBus === undefined) return withChat;
  if (clients.eventBridge === undefined) {
    throw new Error('eventBus is set but no EventBridge client was given to createHandler');
  }
  const busRegion = PATTERNS.EVENT_BUS_ARN.exec(eventBus)?.[1] ?? clients.region;
  return new WithEventCopy(withChat, {
    client: clients.eventBridge(busRegion),
    eventBus,
    logger,
    metrics,
  });
}

/** The receivers the settings switch on, each reading its keys from Secrets Manager once per TTL. */
export function onCallSenders(
  config: RuntimeConfig,
  parts: OnCallParts,
  clock: () => number,
): OnCallSender[] {
  const key = (secret: string) => new SecretKey(parts.clients.secrets, secret, clock);
  const slots = new DynamoDbSendSlots(parts.clients.dynamodb, config.stateTable, clock);
  return (parts.receivers ?? RECEIVERS).flatMap((row) => {
    const settings = row.settingsOf(config.settings);
    if (settings === undefined) return [];
    const baseUrl = parts.onCallBaseUrls?.[row.tool];
    const send = row.send(settings, { key, slots, clock, baseUrl });
    return [{ tool: row.tool, send, refresh: row.refresh }];
  });
}
