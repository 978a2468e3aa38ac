/**
 * The fault matrix of docs/RELIABILITY.md: one entry per fault — its name, how it is injected, what
 * is expected (the ground truth: the notifications that must arrive, once each) — run through the
 * real parts (testkit/watchdog-harness.ts: the middy handler `createHandler` builds, the sim
 * over HTTPS, dynalite, the local SNS server), counted by one tally (reliability-tally.ts).
 *
 * Every scenario starts from a healthy cluster of six nodes (a–f, two per zone) checked once, on
 * the fake clock at 2026-11-29T12:00:00Z, one invocation a minute. A row is one entry: add a fault
 * by adding an entry to SCENARIOS.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { partitionKey } from '../lambda/adapters/state/dynamodb/dynamodb-items.js';
import { DEFAULTS } from '../lambda/settings/index.js';
import { MAX_REFUSALS } from '../lambda/use-cases/check-cycle.js';
import { patchNode } from '../sim/node-writes.js';
import { MERGE_PATCH } from '../sim/patches.js';
import { type LossyProxy, startLossyProxy } from './lossy-proxy.js';
import { type Counts, keyOfMessage, tally } from './reliability-tally.js';
import { waitUntil } from './wait-until.js';
import {
  type Container,
  type Harness,
  type HarnessOptions,
  type Invocation,
  kindOf,
  type SimTarget,
  startWatchdogHarness,
} from './watchdog-harness.js';

export interface ScenarioContext {
  readonly h: Harness;
  readonly t: SimTarget;
  /** The node of a letter: `node('a')` is the first node. */
  node(letter: string): string;
  /** Advances the clock one schedule interval, then one invocation of the default container. */
  tick(): Promise<void>;
  /** One invocation at the clock's now (of `container`, default the harness's own). */
  invoke(container?: Container, invocation?: Invocation): Promise<void>;
  /** A lossy proxy in front of dynalite, closed after the scenario. */
  lossyDynamo(): Promise<LossyProxy>;
  /** A fact of the run worth a line in the table (deterministic). */
  note(text: string): void;
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
  run(ctx: ScenarioContext): Promise<void>;
}

export interface ScenarioResult {
  readonly name: string;
  readonly inject: string;
  readonly truth: readonly string[];
  readonly sent: readonly string[];
  /** Invocations by outcome: checked, unreadable, busy, failed (the invocation was an error). */
  readonly runs: Readonly<Record<string, number>>;
  readonly notes: readonly string[];
  readonly counts: Counts;
  readonly lostResponses: number;
  readonly duplicates: number;
  readonly resentAfterReset: readonly string[];
}

const LETTERS = ['a', 'b', 'c', 'd', 'e', 'f'];
const NODE_GROUP_LABEL = 'eks.amazonaws.com/nodegroup';
const KUBELET_ANNOTATION = 'sim.lease-watchdog.io/kubelet';

/** A Node written as kubectl writes it (a merge patch through the sim's own write path). */
function patch(t: SimTarget, name: string, metadata: Record<string, unknown>): void {
  patchNode(t.sim, name, MERGE_PATCH, { metadata });
}

/** Overwrites the state head's blob in DynamoDB with bytes that do not match its checksum. */
async function corruptStateHead(h: Harness, cluster: string): Promise<void> {
  const key = { pk: { S: partitionKey(cluster) }, sk: { S: 'head' } };
  const out = await h.dynamo.client.send(
    new GetItemCommand({ TableName: h.tableName, Key: key, ConsistentRead: true }),
  );
  if (!out.Item) throw new Error(`no state head for ${cluster}`);
  const item = { ...out.Item, state: { B: Buffer.from('garbage') } };
  await h.dynamo.client.send(new PutItemCommand({ TableName: h.tableName, Item: item }));
}

/** Whether a check since log entry `mark` judged `node` suppressed. */
function suppressedSince(h: Harness, mark: number, node: string): boolean {
  return h.logger.entries
    .slice(mark)
    .some(
      (e) =>
        e.message === 'node verdict' && e.fields.node === node && e.fields.verdict === 'suppressed',
    );
}
const ticks = async (ctx: ScenarioContext, n: number) => {
  for (let i = 0; i < n; i++) await ctx.tick();
};

/** A cluster API fault held for three checks, then healed: one WATCHDOG, then its resolution. */
function failingApi(
  name: string,
  inject: string,
  failure: string,
  apply: (t: SimTarget) => void,
  options: { front?: boolean } = {},
): Scenario {
  return {
    name,
    inject,
    truth: [`WATCHDOG(${failure})`, 'WATCHDOG RESOLVED'],
    unreadable: true,
    ...(options.front ? { harness: { clusters: { prod: { nodes: 6, front: true } } } } : {}),
    async run(ctx) {
      apply(ctx.t);
      await ticks(ctx, 3);
      ctx.t.server.setFault(null);
      ctx.t.front?.setAnswer(null);
      await ticks(ctx, 2);
    },
  };
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'SNS throttled, then 5xx',
    inject: 'node a dies; SNS answers 429 Throttled, then 500 InternalError (no SDK retries)',
    truth: ['FIRING(a)', 'RESOLVED(a)'],
    async run(ctx) {
      ctx.t.sim.stopKubelet(ctx.node('a'));
      ctx.h.sns.failNext(1, 'throttled');
      await ctx.tick();
      ctx.h.sns.failNext(1, 'internal');
      await ticks(ctx, 2);
      ctx.t.sim.startKubelet(ctx.node('a'));
      await ticks(ctx, 2);
    },
  },
  {
    name: 'SNS hangs past the deadline',
    inject:
      "node a dies; SNS never answers the publish; the invocation's deadline (6 s left) strikes",
    truth: ['FIRING(a)'],
    async run(ctx) {
      ctx.t.sim.stopKubelet(ctx.node('a'));
      ctx.h.sns.failNext(1, 'hang');
      ctx.h.clock.advance(60_000);
      await ctx.invoke(ctx.h.container(), { remainingMs: 6_000 });
      await ticks(ctx, 2);
    },
  },
  {
    name: 'SNS accepts, the answer is lost',
    inject: 'node a dies; SNS takes the FIRING and never answers; the deadline (6 s left) strikes',
    truth: ['FIRING(a)'],
    lostResponses: 1,
    duplicates: 1,
    async run(ctx) {
      ctx.t.sim.stopKubelet(ctx.node('a'));
      ctx.h.sns.failNext(1, 'accept-then-hang');
      ctx.h.clock.advance(60_000);
      await ctx.invoke(ctx.h.container(), { remainingMs: 6_000 });
      await ticks(ctx, 2);
    },
  },
  {
    name: 'A poison notification among good ones',
    inject: `node a dies, its FIRING refused with InvalidParameter on every try; node b dies next check`,
    truth: ['FIRING(b)'],
    async run(ctx) {
      ctx.t.sim.stopKubelet(ctx.node('a'));
      ctx.h.sns.failNext(1, 'invalid-parameter');
      await ctx.tick();
      ctx.t.sim.stopKubelet(ctx.node('b'));
      for (let i = 1; i < MAX_REFUSALS; i++) {
        ctx.h.sns.failNext(1, 'invalid-parameter');
        await ctx.tick();
      }
      await ticks(ctx, 2);
      const abandoned = ctx.h.metrics
        .of('NotificationsAbandoned', 'prod')
        .reduce((sum, m) => sum + m.value, 0);
      ctx.note(
        `FIRING(a) given up after ${MAX_REFUSALS} refusals: logged, NotificationsAbandoned = ${abandoned}`,
      );
    },
  },
  {
    name: 'DynamoDB: the answer to the claim is lost',
    inject:
      'node a dies; the PutItem that claims the outbox is applied, its answer lost (no SDK retries)',
    truth: ['FIRING(a)'],
    lostResponses: 1,
    async run(ctx) {
      const proxy = await ctx.lossyDynamo();
      ctx.t.sim.stopKubelet(ctx.node('a'));
      ctx.h.clock.advance(60_000);
      proxy.loseNext('PutItem', 1);
      await ctx.invoke(ctx.h.container({ dynamoEndpoint: proxy.url }));
      await ticks(ctx, 3);
    },
  },
  {
    name: 'DynamoDB: the answer to the record is lost',
    inject: 'node a dies; the PutItem that records what SNS accepted is applied, its answer lost',
    truth: ['FIRING(a)'],
    lostResponses: 1,
    async run(ctx) {
      const proxy = await ctx.lossyDynamo();
      ctx.t.sim.stopKubelet(ctx.node('a'));
      ctx.h.clock.advance(60_000);
      proxy.loseNext('PutItem', 1, { skip: 1 });
      await ctx.invoke(ctx.h.container({ dynamoEndpoint: proxy.url }));
      await ticks(ctx, 3);
    },
  },
  {
    name: 'Two overlapping runs',
    inject: "node a dies; run A's publish hangs until its deadline while run B starts",
    truth: ['FIRING(a)'],
    async run(ctx) {
      const a = ctx.h.container();
      const b = ctx.h.container();
      ctx.t.sim.stopKubelet(ctx.node('a'));
      ctx.h.clock.advance(60_000);
      ctx.h.sns.failNext(1, 'hang');
      const requests = ctx.h.sns.requests;
      const first = ctx.invoke(a, { remainingMs: 6_000 });
      await waitUntil(() => ctx.h.sns.requests !== requests, "run A's publish reached SNS");
      await ctx.invoke(b);
      await first;
      ctx.h.clock.advance(60_000);
      await ctx.invoke(b);
      ctx.h.clock.advance(60_000);
      await ctx.invoke(a);
    },
  },
  failingApi(
    'API unreachable',
    'the API server drops every connection for 3 checks',
    'unreachable',
    (t) => t.server.setFault({ kind: 'close' }),
  ),
  failingApi(
    'TLS: a certificate from another CA',
    'the API server presents a certificate signed by a CA the watchdog does not trust, 3 checks',
    'tls',
    (t) => t.front?.setAnswer({ kind: 'foreign-ca' }),
    { front: true },
  ),
  failingApi('401 Unauthorized', 'every request answered 401 for 3 checks', 'unauthorized', (t) =>
    t.server.setFault({ kind: 'status', status: 401 }),
  ),
  failingApi('403 Forbidden', 'every request answered 403 for 3 checks', 'forbidden', (t) =>
    t.server.setFault({ kind: 'status', status: 403 }),
  ),
  {
    name: '403 on Nodes only (degraded)',
    inject: 'Node lists answered 403 for 4 checks (leases readable); node a dies meanwhile',
    truth: ['NOTICE(degraded checks)', 'FIRING(a)', 'NOTICE(complete again)', 'RESOLVED(a)'],
    async run(ctx) {
      ctx.t.server.setFault({ kind: 'status', status: 403, resource: 'nodes' });
      await ctx.tick();
      ctx.t.sim.stopKubelet(ctx.node('a'));
      await ticks(ctx, 3);
      ctx.t.server.setFault(null);
      ctx.t.sim.startKubelet(ctx.node('a'));
      await ticks(ctx, 2);
      ctx.note(
        'the checks ran on the leases alone, said so once (and once when over); the dead node fired all the same',
      );
    },
  },
  {
    name: 'API stall of 45 s',
    inject:
      'from 40 s after a check, for 45 s: lists hang and no kubelet can renew its lease (a check falls inside)',
    truth: [],
    async run(ctx) {
      const { h, t } = ctx;
      const start = h.clock.now() + 40_000;
      h.clock.at(start, () => {
        t.server.setFault({ kind: 'hang' });
        for (const name of t.nodes) t.sim.stopKubelet(name);
      });
      h.clock.at(start + 45_000, () => {
        t.server.setFault(null);
        for (const name of t.nodes) t.sim.startKubelet(name);
      });
      await ticks(ctx, 4);
    },
  },
  {
    name: 'A 200 that is not a list',
    inject: 'node a down and paged; then the lease list answers 200 `{}` for 3 checks',
    truth: ['FIRING(a)', 'WATCHDOG(invalid-response)', 'WATCHDOG RESOLVED'],
    unreadable: true,
    harness: { clusters: { prod: { nodes: 6, front: true } } },
    async run(ctx) {
      ctx.t.sim.stopKubelet(ctx.node('a'));
      await ctx.tick();
      ctx.t.front?.setAnswer({ kind: 'not-a-list' });
      await ticks(ctx, 3);
      ctx.t.front?.setAnswer(null);
      await ticks(ctx, 2);
    },
  },
  failingApi(
    'A cycling continue token',
    'every lease list page carries a continue token, a → b → a, for 3 checks',
    'invalid-response',
    (t) => t.front?.setAnswer({ kind: 'cycling-continue' }),
    { front: true },
  ),
  {
    name: 'Most nodes vanish from one list',
    inject: 'nodes c and e down and paged; then one check lists only 1 of the 6 nodes and leases',
    truth: ['FIRING(c,e)', 'RESOLVED(c,e)'],
    harness: { clusters: { prod: { nodes: 6, front: true } } },
    async run(ctx) {
      ctx.t.sim.stopKubelet(ctx.node('c'));
      ctx.t.sim.stopKubelet(ctx.node('e'));
      await ctx.tick();
      ctx.t.front?.setAnswer({ kind: 'lacks-most', keep: 1 });
      await ctx.tick();
      ctx.t.front?.setAnswer(null);
      await ticks(ctx, 2);
      ctx.t.sim.startKubelet(ctx.node('c'));
      ctx.t.sim.startKubelet(ctx.node('e'));
      await ticks(ctx, 2);
    },
  },
  {
    name: 'Most leases vanish from one list, Nodes all listed',
    inject: 'node c down and paged; then one check lists 2 of the 6 leases and every Node',
    truth: ['FIRING(c)', 'RESOLVED(c)'],
    harness: { clusters: { prod: { nodes: 6, front: true } } },
    async run(ctx) {
      ctx.t.sim.stopKubelet(ctx.node('c'));
      await ctx.tick();
      ctx.t.front?.setAnswer({ kind: 'lacks-most', keep: 2, only: 'leases' });
      await ctx.tick();
      ctx.t.front?.setAnswer(null);
      await ticks(ctx, 2);
      ctx.t.sim.startKubelet(ctx.node('c'));
      await ticks(ctx, 2);
    },
  },
  {
    name: 'Most Nodes vanish from one list, leases all listed',
    inject: 'node c down and paged; then one check lists 2 of the 6 Nodes and every lease',
    truth: ['FIRING(c)', 'RESOLVED(c)'],
    harness: { clusters: { prod: { nodes: 6, front: true } } },
    async run(ctx) {
      ctx.t.sim.stopKubelet(ctx.node('c'));
      await ctx.tick();
      ctx.t.front?.setAnswer({ kind: 'lacks-most', keep: 2, only: 'nodes' });
      await ctx.tick();
      ctx.t.front?.setAnswer(null);
      await ticks(ctx, 2);
      ctx.t.sim.startKubelet(ctx.node('c'));
      await ticks(ctx, 2);
    },
  },
  {
    name: 'Clock-skewed kubelets (±10 min, and a step)',
    inject:
      "node a's clock steps 10 min ahead, b's 10 min behind, c's ahead then back; 5 checks; then a dies",
    truth: ['FIRING(a)'],
    async run(ctx) {
      ctx.t.sim.setClockSkew(ctx.node('a'), 600_000);
      ctx.t.sim.setClockSkew(ctx.node('b'), -600_000);
      ctx.t.sim.setClockSkew(ctx.node('c'), 600_000);
      await ticks(ctx, 2);
      ctx.t.sim.setClockSkew(ctx.node('c'), 0);
      await ticks(ctx, 3);
      ctx.t.sim.stopKubelet(ctx.node('a'));
      await ticks(ctx, 3);
    },
  },
  {
    name: 'Cold starts',
    inject:
      'node a dies; every later invocation runs in a new container (state reloaded from DynamoDB)',
    truth: ['FIRING(a)', 'RESOLVED(a)'],
    async run(ctx) {
      ctx.t.sim.stopKubelet(ctx.node('a'));
      for (let i = 0; i < 4; i++) {
        ctx.h.clock.advance(60_000);
        await ctx.invoke(ctx.h.container());
      }
      ctx.t.sim.startKubelet(ctx.node('a'));
      for (let i = 0; i < 2; i++) {
        ctx.h.clock.advance(60_000);
        await ctx.invoke(ctx.h.container());
      }
    },
  },
  {
    name: 'A corrupt state item',
    inject:
      'node a down and paged; the state head in DynamoDB is overwritten with bytes that fail its checksum',
    truth: ['FIRING(a)', 'NOTICE(state reset)'],
    resentAfterReset: ['FIRING(a)'],
    async run(ctx) {
      ctx.t.sim.stopKubelet(ctx.node('a'));
      await ticks(ctx, 3);
      await corruptStateHead(ctx.h, 'prod');
      await ticks(ctx, 5);
      ctx.note(
        'reset to empty and said once; node a, still down, paged again once its silence was confirmed afresh',
      );
    },
  },
  {
    name: 'A cordoned node that stays silent',
    inject: `node a cordoned and its kubelet stopped (a removal that never completes); stuckRemovalSeconds ${DEFAULTS.stuckRemovalSeconds} s`,
    truth: ['FIRING(a)'],
    async run(ctx) {
      const { h, t } = ctx;
      const a = ctx.node('a');
      t.sim.cordon(a);
      t.sim.stopKubelet(a);
      let heldAt: number | undefined;
      for (let i = 0; i < 5 && heldAt === undefined; i++) {
        const mark = h.logger.entries.length;
        await ctx.tick();
        if (suppressedSince(h, mark, a)) heldAt = h.clock.now();
      }
      if (heldAt === undefined) throw new Error('the cordoned silent node was never suppressed');
      const limit = heldAt + DEFAULTS.stuckRemovalSeconds * 1000;
      while (h.clock.now() + 60_000 < limit) await ctx.tick();
      h.clock.advanceTo(limit - 1000);
      await ctx.invoke();
      const early = h.sns.messages.length;
      if (early > 0) throw new Error(`${early} sent before stuckRemovalSeconds had passed`);
      h.clock.advanceTo(limit);
      await ctx.invoke();
      await ticks(ctx, 2);
      const stuck = h.sns.messages.some((m) => /removal seems stuck/.test(m.message));
      ctx.note(
        `suppressed while cordoned; ${early} sent up to 1 s before the limit, the FIRING at ${(limit - heldAt) / 60_000} min cordoned and silent${stuck ? ', naming the stuck removal' : ''}`,
      );
    },
  },
  {
    name: 'A node group goes silent together',
    inject: `nodes a, b, c (one per zone) labelled ${NODE_GROUP_LABEL}=gpu; all three die at once`,
    truth: ['STORM(node group gpu: a,b,c)', 'RESOLVED(a,b,c)'],
    async run(ctx) {
      const group = ['a', 'b', 'c'].map((letter) => ctx.node(letter));
      for (const name of group) patch(ctx.t, name, { labels: { [NODE_GROUP_LABEL]: 'gpu' } });
      await ctx.tick();
      for (const name of group) ctx.t.sim.stopKubelet(name);
      await ticks(ctx, 3);
      for (const name of group) ctx.t.sim.startKubelet(name);
      await ticks(ctx, 2);
      ctx.note(
        '3 of 3 of the group (50 % of each zone and of the cluster): one STORM, no per-node FIRING',
      );
    },
  },
  {
    name: 'A not-ready wave is not a storm',
    inject: `nodes a–d (4 of 6) report Ready=False, leases fresh (${KUBELET_ANNOTATION}=not-ready)`,
    truth: ['FIRING(a,b,c,d)', 'RESOLVED(a,b,c,d)'],
    async run(ctx) {
      const wave = ['a', 'b', 'c', 'd'].map((letter) => ctx.node(letter));
      for (const name of wave)
        patch(ctx.t, name, { annotations: { [KUBELET_ANNOTATION]: 'not-ready' } });
      await ticks(ctx, 3);
      for (const name of wave)
        patch(ctx.t, name, { annotations: { [KUBELET_ANNOTATION]: 'running' } });
      await ticks(ctx, 2);
      const firing = ctx.h.sns.messages.find((m) => kindOf(m) === 'FIRING')?.message ?? '';
      const judged = firing.match(/verdict:\s+not-ready \(/g)?.length ?? 0;
      ctx.note(
        `4 of 6 not ready, none silent (storms count silent nodes only): the FIRING judges ${judged} not-ready, no STORM`,
      );
    },
  },
];

const DEFAULT_HARNESS: HarnessOptions = {
  clusters: { prod: { nodes: 6 } },
  snsMaxAttempts: 1,
  requestTimeoutSeconds: 2,
};

/** Runs one scenario on its own harness; resolves to what happened, counted. */
export async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const h = await startWatchdogHarness({ ...DEFAULT_HARNESS, ...scenario.harness });
  const proxies: LossyProxy[] = [];
  const runs: Record<string, number> = {};
  const notes: string[] = [];
  try {
    const t = h.target('prod');
    const letters = new Map(t.nodes.map((name, i) => [LETTERS[i] ?? String(i), name]));
    const invoke = async (container?: Container, invocation?: Invocation) => {
      let status: string;
      try {
        // The harness's default container (its metrics and logs are h.metrics, h.logger).
        const report = container ? await container.invoke(null, invocation) : await h.run();
        status = report.clusters[0]?.lastStatus ?? 'not-run';
      } catch {
        status = 'failed';
      }
      runs[status] = (runs[status] ?? 0) + 1;
    };
    const ctx: ScenarioContext = {
      h,
      t,
      node(letter) {
        const name = letters.get(letter);
        if (!name) throw new Error(`no node ${letter}`);
        return name;
      },
      async tick() {
        h.clock.advance(60_000);
        await invoke();
      },
      invoke,
      async lossyDynamo() {
        const proxy = await startLossyProxy(h.dynamo.endpoint);
        proxies.push(proxy);
        return proxy;
      },
      note: (text) => notes.push(text),
    };
    await invoke();
    await scenario.run(ctx);
    const sent = h.sns.messages.map((m) => keyOfMessage(kindOf(m), m.subject, m.message, letters));
    return {
      name: scenario.name,
      inject: scenario.inject,
      truth: scenario.truth,
      sent,
      runs,
      notes,
      counts: tally(scenario.truth, sent, {
        unreadable: scenario.unreadable ?? false,
        resent: scenario.resentAfterReset ?? [],
      }),
      lostResponses: scenario.lostResponses ?? 0,
      duplicates: scenario.duplicates ?? 0,
      resentAfterReset: scenario.resentAfterReset ?? [],
    };
  } finally {
    for (const proxy of proxies) await proxy.close();
    await h.close();
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
