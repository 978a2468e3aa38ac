/**
 * Silences that cannot be trusted are kept aside and announced once, never allowed to stop a
 * check: through the real handler (dynalite, the local SNS server, the simulated cluster) a
 * stored silence whose end lies past JavaScript's date range, and one added by a laptop whose
 * clock runs a year fast; through `lease-watchdog watch --state-file` (in process) a truncated
 * silences file. The other silences and every node keep working.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { partitionKey } from '../lambda/adapters/state/dynamodb/dynamodb-items.js';
import { SimCluster } from '../sim/cluster.js';
import { localAws, runInProcess } from '../testkit/cli-in-process.js';
import { FakeClock } from '../testkit/fake-clock.js';
import { plantHostileSilence } from '../testkit/hostile-silence.js';
import { type SimFixture, startSimFixture, stopKubeletLongAgo } from '../testkit/sim-fixture.js';
import {
  type Harness,
  kindOf,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

const HOUR = 3600_000;
const YEAR = 365 * 24 * HOUR;
const NOTICE_SUBJECT = /NOTICE: a silence was unreadable and was set aside/;

/** The silence items of a cluster's partition, by sort key. */
async function silenceKeys(h: Harness, cluster: string): Promise<string[]> {
  const out = await h.dynamo.client.send(
    new QueryCommand({
      TableName: h.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: partitionKey(cluster) } },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? [])
    .map((item) => String(item.sk?.S))
    .filter((sk) => sk.includes('silence#'))
    .sort();
}

describe('lambda e2e: silences that cannot be trusted', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 4 } } });
  });
  after(() => h.close());

  it('a silence ending past the date range: set aside, one NOTICE, its node pages, the others hold', async () => {
    const target = h.target('prod');
    const [hostile, silenced] = target.nodes as [string, string];
    await h.run();
    // A well-formed document whose end lies in year 287,396, beside a good silence for an hour.
    await plantHostileSilence(h, hostile, silenced);

    target.sim.stopKubelet(hostile);
    target.sim.stopKubelet(silenced);
    for (let i = 0; i < 5; i++) {
      const report = await h.tick();
      assert.equal(report.clusters[0]?.lastStatus, 'checked', summary(h.messages()));
    }
    assert.deepEqual(h.sns.messages.map(kindOf), ['NOTICE', 'FIRING'], summary(h.messages()));
    const [notice, firing] = h.sns.messages;
    assert.match(notice?.subject ?? '', NOTICE_SUBJECT);
    assert.match(notice?.message ?? '', /s-bad001/);
    assert.ok(firing?.message.includes(hostile), 'the node it named pages');
    assert.ok(!firing?.message.includes(silenced), 'the good silence still holds');
    // Kept aside where the NOTICE says, gone from the live silences.
    const keys = await silenceKeys(h, 'prod');
    assert.equal(keys.filter((sk) => sk.startsWith('corrupt#')).length, 1, keys.join());
    assert.ok(!keys.includes('silence#s-bad001'), keys.join());
    assert.ok(keys.includes('silence#s-600d01'), keys.join());
    const copy = keys.find((sk) => sk.startsWith('corrupt#')) as string;
    assert.ok(notice?.message.includes(copy), 'the NOTICE says where the copy is');
  });

  it('a silence added by a laptop a year fast (--for 2h): set aside on the checker clock, its node pages', async () => {
    const target = h.target('prod');
    const victim = target.nodes[2] as string;
    const before = h.sns.messages.length;
    const laptop = new FakeClock(h.clock.now() + YEAR);
    const added = await runInProcess(
      [
        'silence',
        'add',
        '--node',
        victim,
        '--for',
        '2h',
        '--comment',
        'patching',
        '--table',
        h.tableName,
        '--cluster',
        'prod',
        '--region',
        'us-east-1',
        // No kubeconfig here to show what it matches: the clocks are what this test is about.
        '--allow-empty',
      ],
      { clock: laptop, aws: localAws({ dynamodb: h.dynamo.endpoint }) },
    );
    assert.equal(added.code, 0, added.stderr);

    target.sim.stopKubelet(victim);
    for (let i = 0; i < 5; i++) await h.tick();
    const sent = h.sns.messages.slice(before);
    assert.deepEqual(sent.map(kindOf), ['NOTICE', 'FIRING'], summary(sent));
    assert.match(sent[0]?.message ?? '', /clock/);
    assert.ok(sent[1]?.message.includes(victim));
  });
});

describe('lease-watchdog watch --state-file: a truncated silences file', () => {
  let sim: SimFixture;
  let dir: string;
  const clock = new FakeClock();
  before(async () => {
    const cluster = new SimCluster({ seed: 7, now: clock.now });
    const [dead] = cluster.addNodes(2, { zones: ['eu-west-1a'] });
    stopKubeletLongAgo(cluster, dead as string, clock.now());
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-silences-truncated' });
    dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-silences-'));
  });
  after(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is kept aside, the watch goes on with one NOTICE, the next run says nothing of it', async () => {
    const stateFile = join(dir, 'state.json');
    const truncated = '{"format":1,"clusters":{"sim":[{"id":"s-12';
    await writeFile(`${stateFile}.silences`, truncated);
    const watch = [
      'watch',
      '--kubeconfig',
      sim.kubeconfig,
      '--interval',
      '10',
      '--checks',
      '2',
      '--state-file',
      stateFile,
    ];

    const first = await runInProcess(watch, { clock });
    assert.equal(first.code, 1, first.stderr);
    assert.equal(first.stdout.match(NOTICE_SUBJECT)?.length, 1, first.stdout);
    const kept = (await readdir(dir)).filter((n) => n.startsWith('state.json.silences.corrupt-'));
    assert.equal(kept.length, 1, (await readdir(dir)).join());
    assert.equal(await readFile(join(dir, kept[0] as string), 'utf8'), truncated);
    assert.ok(first.stdout.includes(kept[0] as string), 'the NOTICE says where the copy is');

    const second = await runInProcess(watch, { clock });
    assert.doesNotMatch(second.stdout, /NOTICE/);
    assert.equal(second.stderr, '');
  });

  it('one entry it cannot honour among good ones: a copy of the file, the entry dropped, the rest kept', async () => {
    const stateFile = join(dir, 'one-bad.json');
    const good = {
      id: 's-600d02',
      target: { nodes: ['elsewhere'] },
      comment: 'kernel upgrade',
      author: 'ops@laptop',
      createdAt: clock.now(),
      endsAt: clock.now() + HOUR,
    };
    const bad = { ...good, id: 's-bad002', comment: 'hidden\u200btext' };
    const content = JSON.stringify({ format: 1, clusters: { 'lease-watchdog-sim': [good, bad] } });
    await writeFile(`${stateFile}.silences`, content);
    const watch = ['watch', '--kubeconfig', sim.kubeconfig, '--checks', '1'];

    const first = await runInProcess([...watch, '--state-file', stateFile], { clock });
    assert.equal(first.stdout.match(NOTICE_SUBJECT)?.length, 1, first.stdout);
    assert.match(first.stdout, /s-bad002: its comment must be printable/);
    const kept = (await readdir(dir)).filter((n) => n.startsWith('one-bad.json.silences.corrupt-'));
    assert.equal(kept.length, 1);
    assert.equal(await readFile(join(dir, kept[0] as string), 'utf8'), content);
    const left = JSON.parse(await readFile(`${stateFile}.silences`, 'utf8'));
    assert.deepEqual(
      left.clusters['lease-watchdog-sim'].map((s: { id: string }) => s.id),
      ['s-600d02'],
    );
  });
});
