/**
 * A silence added by the CLI (a process, against dynalite: the deployed watchdog's table) is
 * honoured by the scheduled function built by createHandler: the dead node is suppressed while it
 * lasts (no FIRING), and pages once it has ended. A maintenance window from the config suppresses
 * the same way. Real parts: see testkit/watchdog-harness.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../testkit/cli-process.js';
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
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 4 } } });
    target = h.target('prod');
    // The CLI stamps silences with the real clock: the watchdog's fake clock starts there.
    h.clock.advanceTo(Date.now());
  });
  after(() => h.close());

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
    ]);
    assert.equal(added.code, 0, added.stderr);
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
