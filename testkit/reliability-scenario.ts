/**
 * What one row of the fault matrix (reliability-matrix.ts) is: its fault, how it is injected, its
 * ground truth, and the run that injects it through a ScenarioContext; what running it gives; and
 * the steps rows share.
 */

import type { HandlerEvent } from '../lambda/handler/create-handler.js';
import type { LossyProxy } from './lossy-proxy.js';
import type { Counts } from './reliability-tally.js';
import type {
  Container,
  Harness,
  HarnessOptions,
  Invocation,
  SimTarget,
} from './watchdog-harness.js';

/** A paging tool whose stand-in a row counts (reliability-on-call-faults.ts). */
export type OnCallTool = 'pagerduty' | 'opsgenie';

export interface ScenarioContext {
  readonly h: Harness;
  readonly t: SimTarget;
  /** The node of a letter: `node('a')` is the first node. */
  node(letter: string): string;
  /**
   * Advances the clock one schedule interval, then one invocation of the default container (of
   * `event`: `{ "cluster": NAME }`, `{ "discover": true }`; default the schedule's).
   */
  tick(event?: HandlerEvent): Promise<void>;
  /** One invocation at the clock's now (of `container`, default the harness's own). */
  invoke(container?: Container, invocation?: Invocation): Promise<void>;
  /** A lossy proxy in front of dynalite, closed after the scenario. */
  lossyDynamo(): Promise<LossyProxy>;
  /** A fact of the run worth a line in the table (deterministic). */
  note(text: string): void;
  /** Letters the nodes of another cluster (a discovered one) from here on: `a` its first. */
  nodesAre(names: readonly string[]): void;
}

export interface Scenario {
  readonly name: string;
  /** How the fault is injected. */
  readonly inject: string;
  /** The notifications that must arrive, once each (keys: see reliability-tally.ts). */
  readonly truth: readonly string[];
  /** The cluster cannot be read for long enough that a WATCHDOG must page. */
  readonly unreadable?: boolean;
  /** Answers lost after the call was applied (the bound: one duplicate each). */
  readonly lostResponses?: number;
  /** Duplicates this scenario ends with (within the bound). Default 0. */
  readonly duplicates?: number;
  /**
   * Notifications a state reset sends again, once each (docs/STATE.md: the stated cost of a reset,
   * nodes still down are paged again): counted as re-sent, neither a duplicate nor a lost one.
   */
  readonly resentAfterReset?: readonly string[];
  readonly harness?: HarnessOptions;
  /** Count what this paging tool took (reliability-on-call-faults.ts), not what SNS accepted. */
  readonly counted?: OnCallTool | undefined;
  /**
   * Parts started before the harness (an EKS endpoint to discover clusters at): the harness's
   * options over `harness`, and what closes them after the row.
   */
  readonly prepare?: () => Promise<{ harness: HarnessOptions; close(): Promise<void> }>;
  /**
   * The row waits out real time (an invocation's deadline, a request's timeout): mostly idle, so
   * test/reliability.test.ts runs these rows side by side with the others, not in line.
   */
  readonly waitsOnRealTime?: true;
  run(ctx: ScenarioContext): Promise<void>;
}

export interface ScenarioResult {
  readonly name: string;
  readonly inject: string;
  readonly truth: readonly string[];
  readonly sent: readonly string[];
  /** Invocations by outcome: checked, unreadable, busy, failed (the invocation was an error). */
  readonly runs: Readonly<Record<string, number>>;
  /** The scenario waits on real time: which outcome an invocation had may move with the load. */
  readonly waitsOnRealTime: boolean;
  readonly notes: readonly string[];
  readonly counts: Counts;
  readonly lostResponses: number;
  readonly duplicates: number;
  readonly resentAfterReset: readonly string[];
}

/** Checks on the schedule: `n` times, the clock one interval on, then one invocation. */
export async function ticks(ctx: ScenarioContext, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await ctx.tick();
}
