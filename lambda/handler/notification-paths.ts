/**
 * Where a check's notifications go from the Lambda: the topic, then its copies (the machine topic,
 * chat, EventBridge), and the paging tools (PagerDuty, Opsgenie) with their keys from Secrets
 * Manager. Built by create-handler.ts from the runtime configuration.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SNSClient } from '@aws-sdk/client-sns';
import { WithChatCopy } from '../adapters/notify/delivery/chat-notifier.js';
import { WithEventCopy } from '../adapters/notify/delivery/event-notifier.js';
import { WithMachineCopy } from '../adapters/notify/delivery/machine-notifier.js';
import { SnsNotifier } from '../adapters/notify/delivery/sns-notifier.js';
import { OpsgenieSender } from '../adapters/on-call/opsgenie-sender.js';
import { PagerDutySender } from '../adapters/on-call/pagerduty-sender.js';
import { SecretKey } from '../adapters/on-call/secret-key.js';
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
  readonly clients: { readonly secrets: SecretsManagerClient };
  readonly onCallBaseUrls?:
    | { readonly pagerDuty?: string | undefined; readonly opsgenie?: string | undefined }
    | undefined;
}

/**
 * The notifier a check publishes through: SNS, then the machine topic's copy (with
 * `machineTopic`), a chat copy (with a chat topic) and an EventBridge copy (with `eventBus`), each
 * rendered with the cluster's context.
 */
export function cloudNotifier(
  config: RuntimeConfig,
  clients: NotifierClients,
  logger: StructuredLogger,
  metrics: MetricsRecorder,
  renderContext: ClusterPlaces['renderContext'],
): Notifier {
  const sns = new SnsNotifier({
    client: clients.sns,
    topicArn: config.topicArn,
    logger,
    contextFor: renderContext,
  });
  const withMachine =
    config.machineTopicArn === undefined
      ? sns
      : new WithMachineCopy(sns, {
          client: clients.sns,
          topicArn: config.machineTopicArn,
          logger,
          contextFor: renderContext,
        });
  const chatLink = config.settings.chatNotifications?.link;
  const withChat =
    config.chatTopicArn === undefined
      ? withMachine
      : new WithChatCopy(withMachine, {
          client: clients.sns,
          topicArn: config.chatTopicArn,
          logger,
          contextFor: (name) => ({ ...renderContext(name), link: chatLink }),
        });
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

/** The paging tools of the settings, each reading its key from Secrets Manager once per TTL. */
export function onCallSenders(
  config: RuntimeConfig,
  parts: OnCallParts,
  clock: () => number,
): OnCallSender[] {
  const { pagerDuty, opsgenie } = config.settings;
  const keyOf = (secret: string) => new SecretKey(parts.clients.secrets, secret, clock);
  const urls = parts.onCallBaseUrls;
  const senders: OnCallSender[] = [];
  if (pagerDuty !== undefined) {
    const routingKey = keyOf(pagerDuty.routingKeySecret);
    senders.push(new PagerDutySender({ routingKey, clock, baseUrl: urls?.pagerDuty }));
  }
  if (opsgenie !== undefined) {
    const apiKey = keyOf(opsgenie.apiKeySecret);
    senders.push(new OpsgenieSender({ apiKey, region: opsgenie.region, baseUrl: urls?.opsgenie }));
  }
  return senders;
}
