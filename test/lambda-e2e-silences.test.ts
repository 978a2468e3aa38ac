/**
 * A silence added by the CLI (a process, against dynalite: the deployed watchdog's table) is
 * honoured by the scheduled function built by createHandler: the dead node is suppressed while it
 * lasts (no FIRING), and pages once it has ended. A maintenance window from the config suppresses
 * the same way. Real parts: see testkit/watchdog-harness.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NotificationDocument } from '../lambda/adapters/notify/render/document-schema.js';
import { DynamoDbSilenceStore } from '../lambda/adapters/state/dynamodb/dynamodb-silence-store.js';
import { runCli } from '../testkit/cli-process.js';
import { type TempKubeconfig, tempKubeconfig } from '../testkit/sim-fixture.js';
import { deliveredAs } from '../testkit/sns-deliveries.js';
import {
  type Harness,
  SCHEDULE_MS,
  type SimTarget,
  startWatchdogHarness,
  summary,
  T0,
} from '../testkit/watchdog-harness.js';

describe('lambda e2e: a silence added with the CLI against the table', () => {
  let h: Harness;
  let target: SimTarget;
  let kube: TempKubeconfig;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 4 } } });
    target = h.target('prod');
    // `silence add` reads the cluster's nodes to show what the silence matches.
    kube = await tempKubeconfig(target.server, 'lease-watchdog-e2e-silence');
    // The CLI stamps silences with the real clock: the watchdog's fake clock starts there.
    h.clock.advanceTo(Date.now());
  });
  after(async () => {
    await kube.remove();
    await h.close();
  });

  const cli = (args: string[]) =>
    runCli(['silence', ...args, '--table', h.tableName, '--cluster', 'prod'], {
      AWS_ENDPOINT_URL_DYNAMODB: h.dynamo.endpoint,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
    });

  it('suppresses the dead node while it lasts, and FIRING follows its end', async () => {
    const victim = target.nodes[0] as string;
    await h.run();
    const added = await cli([
      'add',
      '--node',
      victim,
      '--for',
      '10m',
      '--comment',
      'kernel upgrade',
      '--kubeconfig',
      kube.kubeconfig,
    ]);
    assert.equal(added.code, 0, added.stderr);
    assert.match(
      added.stdout,
      new RegExp(`in DynamoDB table ${h.tableName} until .*\\nmatches 1 node now: ${victim}\\n$`),
    );
    const id = /silence (s-[0-9a-f]{6}) added/.exec(added.stdout)?.[1];
    assert.ok(id, added.stdout);
    const endsAt = Date.parse(
      JSON.parse((await cli(['list', '-o', 'json'])).stdout).silences[0].endsAt,
    );
    assert.ok(endsAt > h.clock.now(), 'the silence holds on the watchdog clock');

    target.sim.stopKubelet(victim);
    while (h.clock.now() + SCHEDULE_MS < endsAt) {
      const report = await h.tick();
      assert.equal(report.clusters[0]?.lastStatus, 'checked');
      assert.equal(report.clusters[0]?.alerting, 0, 'a silenced node does not count as alerting');
      assert.equal(
        h.messages('FIRING').length,
        0,
        `no FIRING while silenced: ${summary(h.messages())}`,
      );
    }
    assert.equal(h.sns.messages.length, 0, summary(h.messages()));

    // Past its end: the node is judged as usual and pages.
    await h.tick();
    await h.tick();
    const [firing] = h.messages('FIRING');
    assert.ok(firing, `a FIRING once the silence ended: ${summary(h.messages())}`);
    assert.ok(firing.receivedAt >= endsAt, 'not before the silence ended');
    assert.ok(firing.message.includes(victim));
  });

  it('refuses a cluster the table holds nothing of (a mistyped --cluster)', async () => {
    const wrong = await runCli(['silence', 'list', '--table', h.tableName, '--cluster', 'prd'], {
      AWS_ENDPOINT_URL_DYNAMODB: h.dynamo.endpoint,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
    });
    assert.equal(wrong.code, 2, wrong.stderr);
    assert.equal(
      wrong.stderr,
      `lease-watchdog: DynamoDB table ${h.tableName} holds no state of cluster "prd": check --cluster (the cluster's name in the deployment config) and --table (the stack's STATE_TABLE)\n`,
    );
  });
});

describe('lambda e2e: silencing a node that is firing', () => {
  let h: Harness;
  let target: SimTarget;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 4 } } });
    target = h.target('prod');
  });
  after(() => h.close());

  it('says SILENCED, not RESOLVED, and pages again when the silence ends with the node still down', async () => {
    const victim = target.nodes[0] as string;
    await h.run();
    target.sim.stopKubelet(victim);
    while (h.messages('FIRING').length === 0) await h.tick();
    const store = new DynamoDbSilenceStore({
      client: h.dynamo.client,
      tableName: h.tableName,
      clock: h.clock.now,
    });
    const now = h.clock.now();
    const endsAt = now + 10 * 60_000;
    await store.add('prod', {
      id: 's-51e4ce',
      target: { nodes: [victim] },
      comment: 'kernel upgrade',
      author: 'ops@laptop',
      createdAt: now,
      endsAt,
    });
    const before = h.sns.messages.length;
    await h.tick();
    const said = h.sns.messages.slice(before);
    assert.equal(said.length, 1, summary(said));
    const [message] = said;
    assert.ok(message);
    assert.equal(h.messages('RESOLVED').length, 0, `a silence is not a recovery: ${summary(said)}`);
    assert.match(message.subject ?? '', /^\[prod\] SILENCED: 1 node silenced \(/);
    const document = JSON.parse(deliveredAs(message, 'sqs')) as NotificationDocument;
    assert.equal(document.kind, 'SILENCED');
    assert.equal(document.severity, 'info');
    assert.deepEqual(
      document.nodes.map((x) => [x.name, x.change, x.resolution]),
      [[victim, 'silenced', 'silenced']],
    );
    assert.equal(document.counts.resolved, 0);
    assert.equal(document.counts.silenced, 1);

    while (h.clock.now() + SCHEDULE_MS < endsAt) await h.tick();
    assert.equal(
      h.sns.messages.length,
      before + 1,
      `quiet while silenced: ${summary(h.messages())}`,
    );
    await h.tick();
    await h.tick();
    assert.equal(h.messages('FIRING').length, 2, `paged again: ${summary(h.messages())}`);
  });
});

describe('lambda e2e: a maintenance window from the config', () => {
  // Every day 12:01 UTC for 20 minutes, zone eu-west-1a only (the harness starts at 12:00 UTC).
  const opens = T0 + 60_000;
  const closes = opens + 20 * 60_000;
  let h: Harness;
  let target: SimTarget;
  before(async () => {
    h = await startWatchdogHarness({
      clusters: {
        prod: {
          nodes: 4,
          settings: {
            maintenanceWindows: [
              {
                schedule: '1 12 * * *',
                duration: '20m',
                selector: 'topology.kubernetes.io/zone=eu-west-1a',
                comment: 'zone patching',
              },
            ],
          },
        },
      },
    });
    target = h.target('prod');
  });
  after(() => h.close());

  it('suppresses the nodes its selector names while it is open, and FIRING after it closes', async () => {
    const victim = target.nodes[0] as string;
    assert.equal(h.clock.now(), T0);
    await h.run();
    h.clock.at(opens, () => target.sim.stopKubelet(victim));
    while (h.clock.now() + SCHEDULE_MS < closes) {
      const report = await h.tick();
      assert.equal(report.clusters[0]?.alerting, 0);
      assert.equal(h.sns.messages.length, 0, `nothing while it is open: ${summary(h.messages())}`);
    }
    await h.tick();
    await h.tick();
    const [firing] = h.messages('FIRING');
    assert.ok(firing, `FIRING after the window: ${summary(h.messages())}`);
    assert.ok(firing.receivedAt >= closes);
  });
});
