/**
 * The rows of the fault matrix (reliability-matrix.ts) about the paging tools (PagerDuty,
 * Opsgenie): each tool a receiver with its own lane, whatever SNS or the tool does. These rows
 * count what the tool took (`counted`), not what SNS accepted: `trigger(a)` and `resolve(a)` by
 * the node of the incident key, `trigger(group 1)` for an incident that is not one node's.
 */
import { DynamoDbStateStore } from '../lambda/adapters/state/dynamodb/dynamodb-store.js';
import type { PendingOnCall } from '../lambda/ports/index.js';
import { PAGERDUTY_ROUTING_KEY, PAGERDUTY_SECRET_ID } from './harness-parts.js';
import { type OnCallTool, type Scenario, ticks } from './reliability-scenario.js';
import type { Harness } from './watchdog-harness.js';

/** What a row reads of a paging tool's stand-in: its name, its key and action words. */
interface OnCallStandIn {
  readonly name: string;
  /** The incident key's name in the tool's API (`dedup_key`, `alias`). */
  readonly keyName: string;
  answer(status: number | null): void;
  answers(): readonly number[];
  /**
   * `[action, key, source, integration]` of each request the tool took, in order (trigger or
   * resolve; the integration of its key, for PagerDuty).
   */
  taken(): readonly (readonly [string, string, string | undefined, number?])[];
}

/** The stand-in of `tool` in `h`, read as an OnCallStandIn; throws when the harness lacks it. */
function standIn(h: Harness, tool: OnCallTool): OnCallStandIn {
  const pd = tool === 'pagerduty' ? h.pagerDuty : undefined;
  if (pd) {
    return {
      ...{ name: 'PagerDuty', keyName: 'dedup_key', answer: pd.answer, answers: () => pd.answers },
      taken: () =>
        pd.accepted.map(
          (e) => [e.event_action, e.dedup_key, e.payload?.source, e.integration] as const,
        ),
    };
  }
  const og = tool === 'opsgenie' ? h.opsgenie : undefined;
  if (og) {
    return {
      ...{ name: 'Opsgenie', keyName: 'alias', answer: og.answer, answers: () => og.answers },
      taken: () =>
        og.accepted.map((c) => {
          const entity = c.action === 'create' ? String(c.body.entity) : undefined;
          return [c.action === 'create' ? 'trigger' : 'resolve', c.alias, entity] as const;
        }),
    };
  }
  throw new Error(`the scenario needs the ${tool} harness option`);
}

/**
 * What `tool` took, as the tally counts it: `trigger(a)`, `resolve(a)` by the node whose name the
 * incident key's first trigger carried (`letters`: letter → node name); any other incident
 * (a storm, a group of nodes, a key never triggered) `group N` in the order first seen, and
 * `, another key` when it went under another integration key than its first event; then one
 * `over the rate limit` per request PagerDuty's stand-in took beyond 120 a minute.
 */
export function takenKeys(
  h: Harness,
  tool: OnCallTool,
  letters: ReadonlyMap<string, string>,
): string[] {
  const letterOf = new Map([...letters].map(([letter, name]) => [name, letter]));
  const labels = new Map<string, { label: string; integration: number | undefined }>();
  const taken = standIn(h, tool)
    .taken()
    .map(([action, key, source, integration]) => {
      let first = labels.get(key);
      if (first === undefined) {
        first = { label: letterOf.get(source ?? '') ?? `group ${labels.size + 1}`, integration };
        labels.set(key, first);
      }
      // PagerDuty pairs the events of an alert under one integration key only.
      const elsewhere = integration === first.integration ? '' : ', another key';
      return `${action}(${first.label}${elsewhere})`;
    });
  // Each request beyond PagerDuty's rate limit is a fault of its own (not in any ground truth).
  const over = tool === 'pagerduty' ? (h.pagerDuty?.overLimit ?? 0) : 0;
  return [...taken, ...Array.from({ length: over }, () => 'over the rate limit')];
}

/**
 * With a paging tool's stand-in answering `status` to everything: node a dies (FIRING), recovers
 * (RESOLVED), the tool answers again 3 checks later; `after` more checks. Notes what it refused.
 */
function onCallOutage(tool: OnCallTool, status: number, after = 2): Scenario['run'] {
  return async (ctx) => {
    const stub = standIn(ctx.h, tool);
    stub.answer(status);
    ctx.t.sim.stopKubelet(ctx.node('a'));
    await ticks(ctx, 3);
    ctx.t.sim.startKubelet(ctx.node('a'));
    await ticks(ctx, 3);
    stub.answer(null);
    await ticks(ctx, after);
    const refused = stub.answers().filter((a) => a === status).length;
    ctx.note(
      `${stub.name}: ${refused} answered ${status}, then took ${stub.taken().length} events`,
    );
  };
}

/**
 * Puts at the head of the stored on-call outbox a PagerDuty trigger that cannot be rendered (its
 * time is not a number: another version's), and the resolve of its incident behind it.
 */
async function storePoisonTrigger(h: Harness, cluster: string): Promise<void> {
  const store = new DynamoDbStateStore({ client: h.dynamo.client, tableName: h.tableName });
  const { state, version } = await store.load(cluster);
  const event = {
    ...{ key: 'lw-node-000000000000000000000bad', cluster, source: cluster, details: {} },
    ...{ severity: 'critical', summary: `[${cluster}] unrenderable`, at: h.clock.now() },
  } as const;
  const poison = [
    { tool: 'pagerduty', event: { ...event, action: 'trigger', at: 'never' }, attempts: 0 },
    { tool: 'pagerduty', event: { ...event, action: 'resolve' }, attempts: 0 },
  ] as unknown as PendingOnCall[];
  await store.save(cluster, { ...state, onCall: poison }, version);
}

/** The letter of the `i`th node (reliability-matrix.ts: a–f, then the index). */
const letter = (i: number) => (i < 6 ? 'abcdef'[i] : String(i));

/** The paging tools' rows: outages, refusals, and SNS refusing beside them. */
export const ON_CALL_FAULTS: readonly Scenario[] = [
  {
    name: 'PagerDuty down (5xx)',
    inject:
      'pagerDuty set; node a dies and recovers while the Events API answers 500 to everything; it answers again 3 checks after the recovery',
    truth: ['trigger(a)', 'resolve(a)'],
    harness: { pagerDuty: true },
    counted: 'pagerduty',
    run: onCallOutage('pagerduty', 500),
  },
  {
    name: 'PagerDuty rate limit (429)',
    inject:
      'pagerDuty set; node a dies and recovers while the Events API answers 429 Too many API calls; it answers again 3 checks after the recovery; 6 more checks',
    truth: ['trigger(a)', 'resolve(a)'],
    harness: { pagerDuty: true },
    counted: 'pagerduty',
    run: onCallOutage('pagerduty', 429, 6),
  },
  {
    name: 'Opsgenie down (5xx)',
    inject:
      'opsgenie set; node a dies and recovers while the Alert API answers 500 to everything; it answers again 3 checks after the recovery',
    truth: ['trigger(a)', 'resolve(a)'],
    harness: { opsgenie: true },
    counted: 'opsgenie',
    run: onCallOutage('opsgenie', 500),
  },
  {
    name: 'SNS refuses for 35 min, PagerDuty up',
    inject:
      'pagerDuty set; node a dies; SNS answers 403 AuthorizationError (a KMS key policy) to every publish for 35 min; then node a recovers',
    truth: ['trigger(a)', 'resolve(a)'],
    harness: { pagerDuty: true },
    counted: 'pagerduty',
    async run(ctx) {
      const pd = ctx.h.pagerDuty as NonNullable<Harness['pagerDuty']>;
      ctx.t.sim.stopKubelet(ctx.node('a'));
      const sns = ctx.h.sns;
      let scripted = 0;
      const firstSeen = { refused: 0, triggered: 0 };
      for (let check = 1; check <= 35; check++) {
        // One refusal ready for each publish, none left over once the FIRING is given up.
        if (sns.rejections.length === scripted) sns.failNext(1, 'authorization');
        scripted = Math.max(scripted, sns.rejections.length + 1);
        await ctx.tick();
        if (!firstSeen.refused && sns.rejections.length > 0) firstSeen.refused = check;
        if (!firstSeen.triggered && pd.accepted.length > 0) firstSeen.triggered = check;
      }
      ctx.t.sim.startKubelet(ctx.node('a'));
      await ticks(ctx, 2);
      ctx.note(
        `SNS refused ${sns.rejections.length} publishes (its FIRING given up at 30 min); PagerDuty took the trigger on check ${firstSeen.triggered} of node a's silence, SNS first refused the FIRING on check ${firstSeen.refused}`,
      );
    },
  },
  {
    name: '120 nodes die in two waves, recover in one',
    inject:
      'pagerDuty set; 400 nodes; 60 die, 60 more 3 checks later, then all 120 recover together (more node incidents than a receiver takes from one notification)',
    truth: ['trigger(group 1)', 'trigger(group 2)', 'resolve(group 1)', 'resolve(group 2)'],
    // 400 nodes over HTTPS: on a loaded machine a read may take seconds, so a longer timeout, and
    // the row shows how many invocations ran rather than how each ended.
    harness: { clusters: { prod: { nodes: 400 } }, pagerDuty: true, requestTimeoutSeconds: 10 },
    waitsOnRealTime: true,
    counted: 'pagerduty',
    async run(ctx) {
      const wave = (from: number) => ctx.t.nodes.slice(from, from + 60);
      for (const name of wave(0)) ctx.t.sim.stopKubelet(name);
      await ticks(ctx, 3);
      for (const name of wave(60)) ctx.t.sim.stopKubelet(name);
      await ticks(ctx, 3);
      for (const name of [...wave(0), ...wave(60)]) ctx.t.sim.startKubelet(name);
      await ticks(ctx, 3);
      const pd = ctx.h.pagerDuty as NonNullable<Harness['pagerDuty']>;
      const keys = new Set(pd.accepted.map((e) => e.dedup_key));
      ctx.note(`PagerDuty took ${pd.accepted.length} events for ${keys.size} incidents`);
    },
  },
  {
    name: 'Opsgenie refuses the key for 3 min (401)',
    inject:
      'opsgenie set; node a dies while the Alert API answers 401 (a key being rotated) for 3 checks; then it answers again; node a recovers',
    truth: ['trigger(a)', 'resolve(a)'],
    harness: { opsgenie: true },
    counted: 'opsgenie',
    async run(ctx) {
      const og = standIn(ctx.h, 'opsgenie');
      og.answer(401);
      ctx.t.sim.stopKubelet(ctx.node('a'));
      await ticks(ctx, 3);
      og.answer(null);
      await ticks(ctx, 2);
      ctx.t.sim.startKubelet(ctx.node('a'));
      await ticks(ctx, 2);
      const refused = og.answers().filter((a) => a === 401).length;
      ctx.note(`Opsgenie: ${refused} answered 401, kept and retried (a key a person can fix)`);
    },
  },
  {
    name: 'PagerDuty routing key wrong for 3 min (400)',
    inject:
      "pagerDuty set; the secret holds a wrong routing key while node a dies (PagerDuty answers 400 naming 'routing_key'); 3 checks later the right key is put back; node a recovers",
    truth: ['trigger(a)', 'resolve(a)'],
    harness: { pagerDuty: true },
    counted: 'pagerduty',
    async run(ctx) {
      ctx.h.secrets.put(PAGERDUTY_SECRET_ID, 'R0UT1NGKEYwrongwrongwrongwrong000');
      ctx.t.sim.stopKubelet(ctx.node('a'));
      await ticks(ctx, 3);
      ctx.h.secrets.put(PAGERDUTY_SECRET_ID, PAGERDUTY_ROUTING_KEY);
      await ticks(ctx, 1);
      const pd = ctx.h.pagerDuty as NonNullable<Harness['pagerDuty']>;
      const after = pd.accepted.length > 0 ? 'taken by the first check after' : 'not taken yet';
      ctx.t.sim.startKubelet(ctx.node('a'));
      await ticks(ctx, 2);
      ctx.note(
        `${pd.rejected.length} refused (400, a fixable refusal, not poison); the key read again at once (cache dropped): the trigger ${after} the fix`,
      );
    },
  },
  {
    name: 'An on-call event that cannot be rendered',
    inject:
      'pagerDuty set; the stored on-call outbox holds a trigger whose time is not a number (rendering throws), its resolve behind it; node a dies and recovers',
    truth: ['resolve(group 1)', 'trigger(a)', 'resolve(a)'],
    harness: { pagerDuty: true },
    counted: 'pagerduty',
    async run(ctx) {
      await storePoisonTrigger(ctx.h, 'prod');
      ctx.t.sim.stopKubelet(ctx.node('a'));
      await ticks(ctx, 3);
      ctx.t.sim.startKubelet(ctx.node('a'));
      await ticks(ctx, 2);
      const failed = ctx.h.metrics.of('OnCallEventsFailed', 'prod').length;
      ctx.note(
        `poison: given up at its first attempt (OnCallEventsFailed = ${failed}); the resolve behind it went on`,
      );
    },
  },
  {
    name: 'The clock jumps 2 h forward while PagerDuty is down',
    inject:
      "pagerDuty set; node a dies while the Events API answers 500; the watchdog's clock jumps 2 h forward between two checks; 3 checks later PagerDuty answers again",
    truth: ['trigger(a)'],
    harness: { pagerDuty: true },
    counted: 'pagerduty',
    async run(ctx) {
      const pd = standIn(ctx.h, 'pagerduty');
      pd.answer(500);
      ctx.t.sim.stopKubelet(ctx.node('a'));
      await ticks(ctx, 2);
      ctx.h.clock.advance(2 * 60 * 60_000);
      await ticks(ctx, 3);
      pd.answer(null);
      await ticks(ctx, 1);
      ctx.note('the jump counted as one step of the give-up time (at most 10 min), not 2 h');
    },
  },
  {
    name: 'PagerDuty rate-limits for 10 min, 45 incidents',
    inject:
      'pagerDuty set; 400 nodes, checks every 15 s; 45 nodes die (45 incidents, each its own trigger) while the Events API answers 429 for 10 min; then it answers again',
    truth: Array.from({ length: 45 }, (_, i) => `trigger(${letter(i)})`),
    // 400 nodes over HTTPS: on a loaded machine a read may take seconds, so a longer timeout, and
    // the row shows how many invocations ran rather than how each ended.
    harness: { clusters: { prod: { nodes: 400 } }, pagerDuty: true, requestTimeoutSeconds: 10 },
    waitsOnRealTime: true,
    counted: 'pagerduty',
    async run(ctx) {
      const pd = ctx.h.pagerDuty as NonNullable<Harness['pagerDuty']>;
      const every15s = async (n: number) => {
        for (let i = 0; i < n; i++) {
          ctx.h.clock.advance(15_000);
          await ctx.invoke();
        }
      };
      pd.answer(429);
      for (const name of ctx.t.nodes.slice(0, 45)) ctx.t.sim.stopKubelet(name);
      await every15s(40);
      const refused = pd.answers.length;
      pd.answer(null);
      await every15s(24);
      ctx.note(
        `${refused} requests in the 10 min of 429s (the tool paused on each: 30 s doubling to 5 min), ${pd.overLimit} over 120 a minute; ${pd.accepted.length} triggers taken after`,
      );
    },
  },
  {
    name: 'PagerDuty routing key rotated between trigger and resolve',
    inject:
      'pagerDuty set; node a dies (trigger under the key of version 1); the secret gets a new key (a second integration of the service, AWSCURRENT); 6 checks later node a recovers',
    truth: ['trigger(a)', 'resolve(a)'],
    harness: { pagerDuty: true },
    counted: 'pagerduty',
    async run(ctx) {
      const pd = ctx.h.pagerDuty as NonNullable<Harness['pagerDuty']>;
      ctx.t.sim.stopKubelet(ctx.node('a'));
      await ticks(ctx, 2);
      const rotated = 'R0UT1NGKEYrotatedrotatedrotated00';
      pd.acceptKey(rotated);
      ctx.h.secrets.put(PAGERDUTY_SECRET_ID, rotated);
      await ticks(ctx, 6);
      ctx.t.sim.startKubelet(ctx.node('a'));
      await ticks(ctx, 2);
      ctx.note(
        `the resolve went under the key version its trigger used (by its VersionId, AWSPREVIOUS by then): integration ${pd.accepted.at(-1)?.integration === 0 ? 'of the trigger' : 'of the new key'}`,
      );
    },
  },
];
