/**
 * The rows of the fault matrix (reliability-matrix.ts) about what the watchdog reads: the API
 * server refusing, stalling or answering what was not asked (through the hostile front), skewed
 * kubelet clocks, a proxy that never answers CONNECT, a gateway echoing the credentials; and the
 * nodes themselves: a cordoned node left silent, a node group going silent together, a wave of
 * not-ready nodes.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { DEFAULTS } from '../lambda/settings/index.js';
import { patchNode } from '../sim/node-writes.js';
import { MERGE_PATCH } from '../sim/patches.js';
import type { HostileAnswer } from './hostile-front.js';
import { type Scenario, ticks } from './reliability-scenario.js';
import { MINUTE, runSchedule } from './schedule-runs.js';
import { type Harness, kindOf, type SimTarget } from './watchdog-harness.js';

const NODE_GROUP_LABEL = 'eks.amazonaws.com/nodegroup';
const KUBELET_ANNOTATION = 'sim.lease-watchdog.io/kubelet';
/** Slow reads: a request may take longer than a whole invocation has (real time). */
const SLOW_READ_TIMEOUT_SECONDS = 30;
const SLOW_READ_INVOCATION_MS = 13_500;
/** The watchdog reads the sim through a hostile front (testkit/hostile-front.ts). */
const FRONTED = { clusters: { prod: { nodes: 6, front: true } } };
/** The watchdog reads the sim through a kubeconfig proxy-url (testkit/connect-proxy.ts). */
const PROXIED = { clusters: { prod: { nodes: 6, proxy: true as const } } };

/** A Node written as kubectl writes it (a merge patch through the sim's own write path). */
function patch(t: SimTarget, name: string, metadata: Record<string, unknown>): void {
  patchNode(t.sim, name, MERGE_PATCH, { metadata });
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

/** A cluster API fault held for three checks, then healed: one WATCHDOG, then its resolution. */
function failingApi(
  name: string,
  inject: string,
  failure: string,
  apply: (t: SimTarget) => void,
  options: { front?: boolean; proxy?: boolean; waitsOnRealTime?: true } = {},
): Scenario {
  return {
    name,
    inject,
    ...(options.waitsOnRealTime ? { waitsOnRealTime: true } : {}),
    truth: [`WATCHDOG(${failure})`, 'WATCHDOG RESOLVED'],
    unreadable: true,
    ...(options.front ? { harness: FRONTED } : {}),
    ...(options.proxy ? { harness: PROXIED } : {}),
    async run(ctx) {
      apply(ctx.t);
      await ticks(ctx, 3);
      ctx.t.server.setFault(null);
      ctx.t.front?.setAnswer(null);
      ctx.t.proxy?.setBehaviour('tunnel');
      await ticks(ctx, 2);
    },
  };
}

/**
 * A gateway that quotes the request's Authorization header in its 503s, for 3 checks: one
 * WATCHDOG quoting the gateway, and the token in no message, stored state or log line.
 */
function echoedCredentials(): Scenario {
  const failing = failingApi(
    'Echoed credentials',
    "a gateway answers every request 503, quoting the request's Authorization header, for 3 checks",
    'server',
    (t) => t.front?.setAnswer({ kind: 'echoes-credentials', status: 503, pad: 0 }),
    { front: true },
  );
  return {
    ...failing,
    async run(ctx) {
      await failing.run(ctx);
      const { h, t } = ctx;
      const state = await h.dynamo.client.send(new ScanCommand({ TableName: h.tableName }));
      const outputs = { messages: h.sns.messages, state: state.Items, logs: h.logger.entries };
      const holding = Object.entries(outputs)
        .filter(([, output]) => JSON.stringify(output).includes(t.server.token))
        .map(([where]) => where);
      if (holding.length > 0) throw new Error(`the token reached: ${holding.join(', ')}`);
      ctx.note('the token is in no message, stored state or log line: [redacted] in its place');
    },
  };
}

/**
 * Nodes `down` die and are paged; then one check's lists come back as `answer` has them (most
 * of their items gone); they recover: one FIRING, one RESOLVED, nothing from the thin list.
 */
function thinList(name: string, inject: string, down: string[], answer: HostileAnswer): Scenario {
  return {
    name,
    inject,
    truth: [`FIRING(${down.join(',')})`, `RESOLVED(${down.join(',')})`],
    harness: FRONTED,
    async run(ctx) {
      for (const letter of down) ctx.t.sim.stopKubelet(ctx.node(letter));
      await ctx.tick();
      ctx.t.front?.setAnswer(answer);
      await ctx.tick();
      ctx.t.front?.setAnswer(null);
      await ticks(ctx, 2);
      for (const letter of down) ctx.t.sim.startKubelet(ctx.node(letter));
      await ticks(ctx, 2);
    },
  };
}

/** The API server and the kubelets' clocks misbehaving. */
export const API_FAULTS: readonly Scenario[] = [
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
    waitsOnRealTime: true,
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
    harness: FRONTED,
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
  failingApi(
    'A page of more items than asked',
    'every lease list page holds one more (empty) item than its `limit` asked for, and a continue token, for 3 checks',
    'invalid-response',
    (t) => t.front?.setAnswer({ kind: 'more-than-asked', continues: true }),
    { front: true },
  ),
  failingApi(
    'A page of a million empty items',
    'every lease list is one 3 MB page of 1,000,001 `{}` items (the request asked for 500), for 3 checks',
    'invalid-response',
    (t) => t.front?.setAnswer({ kind: 'more-than-asked', items: 1_000_001 }),
    { front: true },
  ),
  thinList(
    'Most nodes vanish from one list',
    'nodes c and e down and paged; then one check lists only 1 of the 6 nodes and leases',
    ['c', 'e'],
    { kind: 'lacks-most', keep: 1 },
  ),
  thinList(
    'Most leases vanish from one list, Nodes all listed',
    'node c down and paged; then one check lists 2 of the 6 leases and every Node',
    ['c'],
    { kind: 'lacks-most', keep: 2, only: 'leases' },
  ),
  thinList(
    'Most Nodes vanish from one list, leases all listed',
    'node c down and paged; then one check lists 2 of the 6 Nodes and every lease',
    ['c'],
    { kind: 'lacks-most', keep: 2, only: 'nodes' },
  ),
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
  failingApi(
    'Proxy silent',
    "the kubeconfig proxy-url's proxy accepts every connection and never answers CONNECT, for 3 checks",
    'timeout',
    (t) => t.proxy?.setBehaviour('silent'),
    { proxy: true, waitsOnRealTime: true },
  ),
  echoedCredentials(),
  {
    name: 'Slow reads past the deadline',
    waitsOnRealTime: true,
    inject: `every request hangs for 3 checks; each may take ${SLOW_READ_TIMEOUT_SECONDS} s, each invocation has ${SLOW_READ_INVOCATION_MS / 1000} s`,
    truth: ['WATCHDOG(timeout)', 'WATCHDOG RESOLVED'],
    unreadable: true,
    harness: { requestTimeoutSeconds: SLOW_READ_TIMEOUT_SECONDS },
    async run(ctx) {
      const container = ctx.h.container();
      const minute = async () => {
        ctx.h.clock.advance(60_000);
        await ctx.invoke(container, { remainingMs: SLOW_READ_INVOCATION_MS });
      };
      ctx.t.server.setFault({ kind: 'hang' });
      for (let i = 0; i < 3; i++) await minute();
      ctx.t.server.setFault(null);
      for (let i = 0; i < 2; i++) await minute();
      ctx.note('each read cut short with time left to save and publish: the WATCHDOG went out');
    },
  },
  {
    name: '45 s blip with looks',
    waitsOnRealTime: true,
    inject:
      'the default looks (a read every ~30 s); from 58 s after a run, for 45 s: lists hang and no kubelet can renew its lease',
    truth: [],
    harness: { withLooks: true },
    async run(ctx) {
      const { h, t } = ctx;
      const start = h.clock.now();
      h.clock.at(start + 58_000, () => {
        t.server.setFault({ kind: 'hang' });
        for (const name of t.nodes) t.sim.stopKubelet(name);
      });
      h.clock.at(start + 103_000, () => {
        t.server.setFault(null);
        for (const name of t.nodes) t.sim.startKubelet(name);
      });
      const failedAt: number[] = [];
      h.metrics.onRecord = (m) => {
        if (m.name === 'ClusterReadFailures') failedAt.push(h.clock.now());
      };
      await runSchedule(h, start + MINUTE, start + 4 * MINUTE, () => 0);
      const checks = h.metrics.of('CheckDuration', 'prod').length;
      const span = ((failedAt.at(-1) ?? 0) - (failedAt[0] ?? 0)) / 1000;
      ctx.note(
        `${checks} checks in all (runs and looks); ${failedAt.length} fell inside the blip, ${span.toFixed(0)} s from the first to the last: no page`,
      );
    },
  },
];

/** Nodes going away in ways that are, or are not, one incident each. */
export const NODE_FAULTS: readonly Scenario[] = [
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
  {
    name: 'Two runs 5 s apart while a node is down',
    inject:
      'node a dies; the run that pages it is followed by another 5 s later (EventBridge Scheduler fires anywhere in its minute)',
    truth: ['FIRING(a)', 'RESOLVED(a)'],
    async run(ctx) {
      const a = ctx.node('a');
      ctx.t.sim.stopKubelet(a);
      const fired = () => ctx.h.sns.messages.some((m) => kindOf(m) === 'FIRING');
      for (let i = 0; i < 4 && !fired(); i++) await ctx.tick();
      // Too soon after the look that confirmed it for a look to confirm it on its own: it stays
      // expired (a silence once judged expired moves no way but to a renewal), no RESOLVED.
      ctx.h.clock.advance(5_000);
      await ctx.invoke();
      await ctx.tick();
      const resolved = ctx.h.sns.messages.filter((m) => kindOf(m) === 'RESOLVED').length;
      ctx.t.sim.startKubelet(a);
      await ticks(ctx, 2);
      ctx.note(
        `${resolved} RESOLVED while node a stayed down; its RESOLVED once its lease renewed`,
      );
    },
  },
];
