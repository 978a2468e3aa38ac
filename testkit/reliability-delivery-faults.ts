/**
 * The rows of the fault matrix (reliability-matrix.ts) about what the watchdog writes: SNS
 * refusing, hanging or losing its answer, a poison notification, DynamoDB answers lost after the
 * write was applied, two overlapping runs; and its own state: cold starts, a corrupt state item, a
 * hostile silence, an outbox lock that ends years from now.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { partitionKey } from '../lambda/adapters/state/dynamodb/dynamodb-items.js';
import { DynamoDbStateStore } from '../lambda/adapters/state/dynamodb/dynamodb-store.js';
import type { Notification } from '../lambda/core/notification.js';
import { GIVE_UP_AFTER_MS } from '../lambda/use-cases/outbox-publishing.js';
import { plantHostileSilence } from './hostile-silence.js';
import { type Scenario, ticks } from './reliability-scenario.js';
import type { InjectedFailure } from './sns-server.js';
import { waitUntil } from './wait-until.js';
import type { Harness } from './watchdog-harness.js';

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

/** Puts a notification no renderer can read at the head of the stored outbox (another version's). */
async function storeUnrenderable(h: Harness, cluster: string): Promise<void> {
  const store = new DynamoDbStateStore({
    client: h.dynamo.client,
    tableName: h.tableName,
    clock: h.clock.now,
  });
  const { state, version } = await store.load(cluster);
  const broken = {
    ...{ id: `${cluster}-unrenderable`, cluster, kind: 'FIRING', severity: 'critical' },
    ...{ at: h.clock.now(), firing: null, resolved: [], reminders: [], flapping: [] },
  } as unknown as Notification;
  await store.save(cluster, { ...state, outbox: [broken] }, version);
}

/** Stores an outbox lock of another run that ends ten years from now (a clock gone wrong). */
async function storeStuckLock(h: Harness, cluster: string): Promise<void> {
  const store = new DynamoDbStateStore({
    client: h.dynamo.client,
    tableName: h.tableName,
    clock: h.clock.now,
  });
  const { state, version } = await store.load(cluster);
  const until = h.clock.now() + 10 * 365 * 86_400_000;
  await store.save(cluster, { ...state, lock: { owner: 'stuck-run', until } }, version);
}

/**
 * Node a dies; SNS meets its FIRING with `failure` (it never answers) in a new container whose
 * deadline is 6 s away; two scheduled checks follow.
 */
function deadlineOnPublish(failure: InjectedFailure): Scenario['run'] {
  return async (ctx) => {
    ctx.t.sim.stopKubelet(ctx.node('a'));
    ctx.h.sns.failNext(1, failure);
    ctx.h.clock.advance(60_000);
    await ctx.invoke(ctx.h.container(), { remainingMs: 6_000 });
    await ticks(ctx, 2);
  };
}

/**
 * Node a dies; in the next check, of a container whose DynamoDB client goes through a lossy
 * proxy, the PutItem after `skip` others is applied and its answer lost; three checks follow.
 */
function lostPutItem(skip: number): Scenario['run'] {
  return async (ctx) => {
    const proxy = await ctx.lossyDynamo();
    ctx.t.sim.stopKubelet(ctx.node('a'));
    ctx.h.clock.advance(60_000);
    proxy.loseNext('PutItem', 1, { skip });
    await ctx.invoke(ctx.h.container({ dynamoEndpoint: proxy.url }));
    await ticks(ctx, 3);
  };
}

/** SNS and DynamoDB misbehaving, runs overlapping. */
export const DELIVERY_FAULTS: readonly Scenario[] = [
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
    waitsOnRealTime: true,
    inject:
      "node a dies; SNS never answers the publish; the invocation's deadline (6 s left) strikes",
    truth: ['FIRING(a)'],
    run: deadlineOnPublish('hang'),
  },
  {
    name: 'SNS accepts, the answer is lost',
    waitsOnRealTime: true,
    inject: 'node a dies; SNS takes the FIRING and never answers; the deadline (6 s left) strikes',
    truth: ['FIRING(a)'],
    lostResponses: 1,
    duplicates: 1,
    run: deadlineOnPublish('accept-then-hang'),
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
      for (let i = 1; i <= GIVE_UP_AFTER_MS / 60_000; i++) {
        ctx.h.sns.failNext(1, 'invalid-parameter');
        await ctx.tick();
      }
      await ticks(ctx, 2);
      const abandoned = ctx.h.metrics
        .of('NotificationsAbandoned', 'prod')
        .reduce((sum, m) => sum + m.value, 0);
      ctx.note(
        `FIRING(a) given up ${GIVE_UP_AFTER_MS / 60_000} min after its first refusal: logged, NotificationsAbandoned = ${abandoned}`,
      );
    },
  },
  {
    name: 'The clock jumps 2 h forward while SNS refuses',
    inject:
      "node a dies; its FIRING refused with InvalidParameter (a disabled KMS key) on 3 checks; the watchdog's clock jumps 2 h forward; 3 more refusals, then SNS takes it",
    truth: ['FIRING(a)'],
    async run(ctx) {
      ctx.t.sim.stopKubelet(ctx.node('a'));
      const refused = async () => {
        for (let i = 0; i < 3; i++) {
          ctx.h.sns.failNext(1, 'invalid-parameter');
          await ctx.tick();
        }
      };
      await refused();
      ctx.h.clock.advance(2 * 60 * 60_000);
      await refused();
      await ticks(ctx, 1);
      ctx.note('the jump counted as one step of the give-up time (at most 10 min), not 2 h');
    },
  },
  {
    name: 'DynamoDB: the answer to the claim is lost',
    inject:
      'node a dies; the PutItem that claims the outbox is applied, its answer lost (no SDK retries)',
    truth: ['FIRING(a)'],
    lostResponses: 1,
    run: lostPutItem(0),
  },
  {
    name: 'DynamoDB: the answer to the record is lost',
    inject: 'node a dies; the PutItem that records what SNS accepted is applied, its answer lost',
    truth: ['FIRING(a)'],
    lostResponses: 1,
    run: lostPutItem(1),
  },
  {
    name: 'Two overlapping runs',
    waitsOnRealTime: true,
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
  {
    name: 'SNS refuses for 70 s, checks ~4 a minute',
    inject:
      'node a dies; SNS answers 403 AuthorizationError (a key policy being fixed) to 5 publishes, checks 15 s apart',
    truth: ['FIRING(a)'],
    async run(ctx) {
      ctx.t.sim.stopKubelet(ctx.node('a'));
      ctx.h.sns.failNext(5, 'authorization');
      for (let i = 0; i < 12; i++) {
        ctx.h.clock.advance(15_000);
        await ctx.invoke(ctx.h.container());
      }
      ctx.note(
        'refused on 5 checks over 60 s, then sent: give-up is by time (30 min), not by count',
      );
    },
  },
  {
    name: 'Given-up FIRING',
    inject: `node a dies; its FIRING refused with InvalidParameter for ${GIVE_UP_AFTER_MS / 60_000} min, then given up; node b dies`,
    truth: ['FIRING(b)'],
    async run(ctx) {
      ctx.t.sim.stopKubelet(ctx.node('a'));
      for (let i = 0; i <= GIVE_UP_AFTER_MS / 60_000 + 1; i++) {
        ctx.h.sns.failNext(1, 'invalid-parameter');
        await ctx.tick();
      }
      ctx.t.sim.stopKubelet(ctx.node('b'));
      await ticks(ctx, 2);
      const firing = ctx.h.sns.messages.at(-1)?.message ?? '';
      const named = /^Never sent: .*\n.*\n/m.exec(firing)?.[0].includes(ctx.node('a')) === true;
      ctx.note(
        named
          ? "FIRING(b) says a's FIRING was never sent and a is still down"
          : "FIRING(b) does not name a's lost FIRING",
      );
    },
  },
  {
    name: 'A notification that cannot be rendered',
    inject:
      'the stored outbox holds a FIRING whose node list is null (rendering throws a TypeError); node a dies',
    truth: ['FIRING(a)'],
    async run(ctx) {
      await storeUnrenderable(ctx.h, 'prod');
      ctx.t.sim.stopKubelet(ctx.node('a'));
      await ticks(ctx, GIVE_UP_AFTER_MS / 60_000 + 2);
      const abandoned = ctx.h.metrics
        .of('NotificationsAbandoned', 'prod')
        .reduce((sum, m) => sum + m.value, 0);
      ctx.note(
        `refused for good (not a PublishError), never in the way of FIRING(a); given up: NotificationsAbandoned = ${abandoned}`,
      );
    },
  },
  {
    name: 'The looks cannot be delivered',
    inject:
      'looks on; the re-check queue refuses SendMessage while node a dies and recovers, then the event source mapping is disabled while node b dies and recovers',
    truth: ['FIRING(a)', 'RESOLVED(a)', 'FIRING(b)', 'RESOLVED(b)'],
    harness: { withLooks: true },
    async run(ctx) {
      const looks = ctx.h.looks as NonNullable<Harness['looks']>;
      // A minute at a time, delivering the looks due (as the queue and its mapping would).
      const minutes = async (n: number) => {
        for (let i = 0; i < n; i++) {
          await ctx.h.advanceTo(ctx.h.clock.now() + 60_000);
          await ctx.invoke();
        }
      };
      const delivered = () => looks.delivered.length;
      await minutes(2);
      const before = delivered();
      looks.refusing = true;
      looks.pending.length = 0; // those already queued would still arrive; none is left
      for (const [letter, stopped] of [
        ['a', () => undefined],
        [
          'b',
          () => {
            looks.refusing = false;
            looks.mappingEnabled = false;
          },
        ],
      ] as const) {
        stopped();
        ctx.t.sim.stopKubelet(ctx.node(letter));
        await minutes(3);
        ctx.t.sim.startKubelet(ctx.node(letter));
        await minutes(2);
      }
      ctx.note(
        `paged by the schedule alone; ${before} looks delivered before, ${delivered() - before} while the looks were refused or not delivered (LooksStoppedAlarm)`,
      );
    },
  },
];

/** The watchdog's own state: reloaded by every new container, or found corrupt. */
export const STATE_FAULTS: readonly Scenario[] = [
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
    name: 'A hostile silence',
    inject:
      'a silence of node a ending past the date range is written to the table beside a good one of node b; both nodes die',
    truth: ['NOTICE(silence set aside)', 'FIRING(a)'],
    async run(ctx) {
      await plantHostileSilence(ctx.h, ctx.node('a'), ctx.node('b'));
      ctx.t.sim.stopKubelet(ctx.node('a'));
      ctx.t.sim.stopKubelet(ctx.node('b'));
      await ticks(ctx, 5);
      ctx.note(
        'kept aside under corrupt#<time>#silence#s-bad001 and said once; node a paged, node b stayed silenced',
      );
    },
  },
  {
    name: 'An outbox lock held for ten years',
    inject:
      "the stored state holds another run's outbox lock ending ten years from now; node a dies, then recovers",
    truth: ['FIRING(a)', 'RESOLVED(a)'],
    async run(ctx) {
      await storeStuckLock(ctx.h, 'prod');
      ctx.t.sim.stopKubelet(ctx.node('a'));
      await ticks(ctx, 3);
      ctx.t.sim.startKubelet(ctx.node('a'));
      await ticks(ctx, 2);
      ctx.note('a lock is trusted for at most the lease a run takes: the first check took it over');
    },
  },
];
