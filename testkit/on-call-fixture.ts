/**
 * What the on-call end-to-end tests (PagerDuty, Opsgenie) share: checks until the topic has
 * received a number of messages of a kind, and the on-call outbox as DynamoDB holds it.
 */
import assert from 'node:assert/strict';
import { DynamoDbStateStore } from '../lambda/adapters/state/dynamodb/dynamodb-store.js';
import type { Harness } from './watchdog-harness.js';
import { summary } from './watchdog-messages.js';

/** Scheduled checks (20 at most) until the topic has `count` messages of `kind`; asserts it has. */
export async function tickUntil(h: Harness, kind: string, count: number): Promise<void> {
  for (let i = 0; i < 20 && h.messages(kind).length < count; i++) await h.tick();
  assert.equal(h.messages(kind).length, count, summary(h.messages()));
}

/** `cluster`'s on-call outbox as stored: `[tool, action, source, attempts]` each, and the state's JSON. */
export async function storedOutbox(h: Harness, cluster: string) {
  const store = new DynamoDbStateStore({ client: h.dynamo.client, tableName: h.tableName });
  const { state } = await store.load(cluster);
  const waiting = (state.onCall ?? []).map((p) => [
    p.tool,
    p.event.action,
    p.event.source,
    p.attempts,
  ]);
  return { waiting, json: JSON.stringify(state) };
}
