/**
 * What the watchdog's messages say, as the local SNS endpoint received them: their kind, cluster
 * and severity, and a compact summary for assertion messages. A notification-topic message (JSON
 * structure, no attributes) says them in its document; a machine-topic message in its attributes;
 * a chat message says none.
 */
import type { ReceivedMessage } from './sns-deliveries.js';

/** The `kind` of a received notification (undefined for a chat message). */
export function kindOf(message: ReceivedMessage): string | undefined {
  return attributesOf(message).kind;
}

/** Cluster, kind and severity: from the document of a JSON-structure publish, else the attributes. */
export function attributesOf(message: ReceivedMessage): {
  cluster: string | undefined;
  kind: string | undefined;
  severity: string | undefined;
} {
  const document = message.structure?.sqs;
  if (document !== undefined) {
    const { cluster, kind, severity } = JSON.parse(document) as Record<string, string | undefined>;
    return { cluster, kind, severity };
  }
  return {
    cluster: message.attributes.cluster?.stringValue,
    kind: message.attributes.kind?.stringValue,
    severity: message.attributes.severity?.stringValue,
  };
}

/** Subject and kind of each message, in order: compact for assertion messages. */
export function summary(messages: readonly ReceivedMessage[]): string {
  return JSON.stringify(messages.map((m) => `${kindOf(m)} | ${m.subject}`));
}
