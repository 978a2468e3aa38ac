/**
 * What the watchdog's messages say, as the local SNS endpoint received them: their kind and the
 * attributes subscribers filter on, and a compact summary for assertion messages.
 */
import type { ReceivedMessage } from './sns-deliveries.js';

/** The `kind` attribute of a received message. */
export function kindOf(message: ReceivedMessage): string | undefined {
  return message.attributes.kind?.stringValue;
}

/** The three message attributes subscribers filter on, as SNS received them. */
export function attributesOf(message: ReceivedMessage): {
  cluster: string | undefined;
  kind: string | undefined;
  severity: string | undefined;
} {
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
