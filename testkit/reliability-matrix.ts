/**
 * The fault matrix of docs/RELIABILITY.md: one entry per fault — its name, how it is injected, what
 * is expected (the ground truth: the notifications that must arrive, once each) — run through the
 * real parts (testkit/watchdog-harness.ts: the middy handler `createHandler` builds, the sim
 * over HTTPS, dynalite, the local SNS server), counted by one tally (reliability-tally.ts).
 *
 * Every scenario starts from a healthy cluster of six nodes (a–f, two per zone) checked once, on
 * the fake clock at 2026-11-29T12:00:00Z, one invocation a minute. A row is one entry: add a fault
 * by adding an entry to the list of its kind (reliability-delivery-faults.ts: what the watchdog
 * writes and its state; reliability-on-call-faults.ts: the paging tools;
 * reliability-cluster-faults.ts: what it reads and the nodes).
 */

import type { HandlerEvent } from '../lambda/handler/create-handler.js';
import { type LossyProxy, startLossyProxy } from './lossy-proxy.js';
import { API_FAULTS, NODE_FAULTS } from './reliability-cluster-faults.js';
import { DELIVERY_FAULTS, STATE_FAULTS } from './reliability-delivery-faults.js';
import { DISCOVERY_FAULTS } from './reliability-discovery-faults.js';
import { ON_CALL_FAULTS, takenKeys } from './reliability-on-call-faults.js';
import type { Scenario, ScenarioContext, ScenarioResult } from './reliability-scenario.js';
import { keyOfMessage, tally } from './reliability-tally.js';
import {
  type Container,
  type Harness,
  type HarnessOptions,
  type Invocation,
  kindOf,
  startWatchdogHarness,
} from './watchdog-harness.js';

export type { Scenario, ScenarioContext, ScenarioResult } from './reliability-scenario.js';

/**
 * The rows, in the order of the table: delivery, the paging tools, the cluster's API, state, the
 * nodes, discovery.
 */
export const SCENARIOS: readonly Scenario[] = [
  ...DELIVERY_FAULTS,
  ...ON_CALL_FAULTS,
  ...API_FAULTS,
  ...STATE_FAULTS,
  ...NODE_FAULTS,
  ...DISCOVERY_FAULTS,
];

const LETTERS = ['a', 'b', 'c', 'd', 'e', 'f'];

const DEFAULT_HARNESS: HarnessOptions = {
  clusters: { prod: { nodes: 6 } },
  snsMaxAttempts: 1,
  requestTimeoutSeconds: 2,
};

/** What a scenario's run leaves besides the messages: invocations by outcome, notes, proxies. */
interface RunRecord {
  readonly runs: Record<string, number>;
  readonly notes: string[];
  readonly proxies: LossyProxy[];
}

/** The context a scenario runs in: its harness, its cluster's nodes by letter, and its steps. */
function scenarioContext(
  h: Harness,
  letters: Map<string, string>,
  record: RunRecord,
): ScenarioContext {
  const invoke = async (container?: Container, invocation?: Invocation, event?: HandlerEvent) => {
    let status: string;
    try {
      // The harness's default container (its metrics and logs are h.metrics, h.logger).
      const report = container ? await container.invoke(null, invocation) : await h.run(event);
      status = report.clusters[0]?.lastStatus ?? (report.discovery ? 'discovery' : 'not-run');
    } catch {
      status = 'failed';
    }
    record.runs[status] = (record.runs[status] ?? 0) + 1;
  };
  return {
    h,
    t: h.target('prod'),
    node(letter) {
      const name = letters.get(letter);
      if (!name) throw new Error(`no node ${letter}`);
      return name;
    },
    async tick(event) {
      h.clock.advance(60_000);
      await invoke(undefined, undefined, event);
    },
    invoke,
    async lossyDynamo() {
      const proxy = await startLossyProxy(h.dynamo.endpoint);
      record.proxies.push(proxy);
      return proxy;
    },
    note: (text) => record.notes.push(text),
    nodesAre(names) {
      letters.clear();
      for (const [i, name] of names.entries()) letters.set(LETTERS[i] ?? String(i), name);
    },
  };
}

/** Runs one scenario on its own harness; resolves to what happened, counted. */
export async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const prepared = await scenario.prepare?.();
  const h = await startWatchdogHarness({
    ...DEFAULT_HARNESS,
    ...scenario.harness,
    ...prepared?.harness,
  }).catch(async (error: unknown) => {
    await prepared?.close();
    throw error;
  });
  const record: RunRecord = { runs: {}, notes: [], proxies: [] };
  try {
    const letters = new Map(
      h.target('prod').nodes.map((name, i) => [LETTERS[i] ?? String(i), name]),
    );
    const ctx = scenarioContext(h, letters, record);
    await ctx.invoke();
    await scenario.run(ctx);
    const sent = scenario.counted
      ? takenKeys(h, scenario.counted, letters)
      : h.sns.messages.map((m) => keyOfMessage(kindOf(m), m.subject, m.message, letters));
    return {
      name: scenario.name,
      inject: scenario.inject,
      truth: scenario.truth,
      sent,
      runs: record.runs,
      waitsOnRealTime: scenario.waitsOnRealTime === true,
      notes: record.notes,
      counts: tally(scenario.truth, sent, {
        unreadable: scenario.unreadable ?? false,
        resent: scenario.resentAfterReset ?? [],
      }),
      lostResponses: scenario.lostResponses ?? 0,
      duplicates: scenario.duplicates ?? 0,
      resentAfterReset: scenario.resentAfterReset ?? [],
    };
  } finally {
    for (const proxy of record.proxies) await proxy.close();
    await h.close();
    await prepared?.close();
  }
}

/** Runs every scenario, one after the other. */
export async function runMatrix(
  scenarios: readonly Scenario[] = SCENARIOS,
): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) results.push(await runScenario(scenario));
  return results;
}
