/**
 * `lease-watchdog silence add|list|expire --state-file`, and `watch --state-file` honouring it:
 * the command in process against the simulated cluster over HTTPS, on a fake clock they share
 * (the table's store through the real DynamoDB client, pointed at a closed port). Plus the file
 * store's audit period on an injected clock.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FileSilenceStore } from '../lambda/adapters/state/file/file-silence-store.js';
import { endedAt } from '../lambda/adapters/state/silence-document.js';
import { SILENCE_AUDIT_SECONDS, type Silence } from '../lambda/core/silences.js';
import { SimCluster } from '../sim/cluster.js';
import { localAws, runInProcess } from '../testkit/cli-in-process.js';
import type { CliResult } from '../testkit/cli-process.js';
import { FakeClock } from '../testkit/fake-clock.js';
import { closedPort } from '../testkit/ports.js';
import { type SimFixture, startSimFixture, stopKubeletLongAgo } from '../testkit/sim-fixture.js';

const TOKEN = 'cli-silence-secret-token-0123456789';

function assertCleanFailure(result: CliResult, pattern: RegExp): void {
  assert.equal(result.code, 2, `exit status (stderr: ${result.stderr})`);
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${result.stderr}`);
  assert.match(lines[0] ?? '', /^lease-watchdog: /);
  assert.match(lines[0] ?? '', pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(result.stdout, '');
}

describe('silence --state-file, honoured by watch --state-file', () => {
  const clock = new FakeClock();
  let sim: SimFixture;
  let cluster: SimCluster;
  let kubeconfig: string;
  let stateFile: string;
  let dead: string;

  before(async () => {
    cluster = new SimCluster({ seed: 5, now: clock.now });
    const names = cluster.addNodes(4, { zones: ['eu-west-1a', 'eu-west-1b'] });
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-silence', token: TOKEN });
    kubeconfig = sim.kubeconfig;
    stateFile = join(sim.dir, 'state.json');
    dead = names[1] as string;
    stopKubeletLongAgo(cluster, dead, clock.now());
  });
  after(() => sim.close());

  const runCli = (args: string[], options: Parameters<typeof runInProcess>[1] = {}) =>
    runInProcess(args, { clock, ...options });
  const store = () => ['--state-file', stateFile, '--kubeconfig', kubeconfig];
  const watch = () =>
    runCli([
      'watch',
      '--checks',
      '2',
      '--interval',
      '3',
      '--state-file',
      stateFile,
      '--kubeconfig',
      kubeconfig,
    ]);

  it('a dead node pages; silenced, it is said SILENCED and shown suppressed; once expired, FIRING', async () => {
    // The state file must exist first: watch creates it (and pages the dead node).
    const first = await watch();
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stdout, /FIRING: 1 node/);
    const added = await runCli([
      'silence',
      'add',
      '--node',
      dead,
      '--for',
      '2h',
      '--comment',
      'kernel upgrade',
      ...store(),
    ]);
    assert.equal(added.code, 0, added.stderr);
    const id = /silence (s-[0-9a-f]{6}) added/.exec(added.stdout)?.[1];
    assert.ok(id, added.stdout);
    assert.match(
      added.stdout,
      new RegExp(
        `for node ${dead.replace(/\./g, '\\.')} of cluster https://127\\.0\\.0\\.1:\\d+#ca=[0-9a-f]{16} \\(context lease-watchdog-sim\\) in ${stateFile.replace(/\./g, '\\.')}\\.silences until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC \\(120m\\): kernel upgrade`,
      ),
    );

    const silenced = await watch();
    assert.equal(silenced.code, 0, `nothing alerting: ${silenced.stdout}${silenced.stderr}`);
    assert.doesNotMatch(silenced.stdout, /FIRING|RESOLVED/);
    assert.match(silenced.stdout, /SILENCED: 1 node silenced/);
    assert.match(silenced.stdout, new RegExp(`silenced by ${id} until .* UTC: "kernel upgrade"`));

    const listed = await runCli(['silence', 'list', ...store()]);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, row] = listed.stdout.trimEnd().split('\n');
    assert.match(header ?? '', /^ID\s+TARGET\s+STARTS\s+ENDS\s+AUTHOR\s+COMMENT$/);
    assert.match(
      row ?? '',
      new RegExp(
        `^${id}\\s+node ${dead.replace(/\./g, '\\.')}\\s+\\S+ \\S+ UTC \\(\\S+ ago\\)\\s+\\S+ \\S+ UTC \\(in \\S+\\)\\s+\\S+@\\S+\\s+kernel upgrade$`,
      ),
    );

    const expired = await runCli(['silence', 'expire', id, ...store()]);
    assert.equal(expired.code, 0, expired.stderr);
    assert.match(
      expired.stdout,
      new RegExp(
        `silence ${id} of cluster https://127\\.0\\.0\\.1:\\d+#ca=[0-9a-f]{16} \\(context lease-watchdog-sim\\) ended at`,
      ),
    );

    const json = await runCli(['silence', 'list', '-o', 'json', ...store()]);
    const listedJson = JSON.parse(json.stdout) as {
      cluster: string;
      silences: { id: string; active: boolean; expiredBy?: string }[];
    };
    assert.match(
      listedJson.cluster,
      /^https:\/\/127\.0\.0\.1:\d+#ca=[0-9a-f]{16}$/,
      'the cluster key',
    );
    assert.equal(listedJson.silences[0]?.id, id);
    assert.equal(listedJson.silences[0]?.active, false, 'kept, marked ended, for audit');
    assert.match(listedJson.silences[0]?.expiredBy ?? '', /@/);
    const table = await runCli(['silence', 'list', ...store()]);
    assert.match(table.stdout, new RegExp(`${id}\\s+.*\\s+ended \\d{4}-`));

    const firing = await watch();
    assert.equal(firing.code, 1, firing.stderr);
    assert.match(firing.stdout, /FIRING: 1 node/);
  });

  it('hostile comments are refused; one line for every mistake', async () => {
    const cases: [string[], RegExp][] = [
      [['add', '--for', '2h', '--comment', 'x'], /add needs what to silence: --node NAME/],
      [
        [
          'add',
          '--node',
          'a',
          '--selector',
          'topology.kubernetes.io/zone=a',
          '--for',
          '2h',
          '--comment',
          'x',
        ],
        /takes --node or --selector, not both/,
      ],
      [
        ['add', '--node', 'a', '--for', 'soon', '--comment', 'x'],
        /--for must be a duration from 1s to 30d.*\(got "soon"\)/,
      ],
      [
        ['add', '--node', 'a', '--for', '2h', '--comment', '  '],
        /--comment must say why \(it is empty\)/,
      ],
      [
        ['add', '--node', 'a', '--for', '2h', '--comment', 'x\u001b[2J'],
        /--comment must be printable text on one line/,
      ],
      // Invisible: a zero-width space, a bidi isolate, a tag character (printable.ts's set).
      ...['x\u200by', 'x\u2066y', 'x\u{e0041}y'].map((comment): [string[], RegExp] => [
        ['add', '--node', 'a', '--for', '2h', '--comment', comment],
        /--comment must be printable text on one line/,
      ]),
      [['add', '--node', 'a', '--for', '2h'], /add needs --comment TEXT/],
      [
        ['add', '--selector', 'role=db', '--for', '2h', '--comment', 'x'],
        /--selector may name only the labels every check keeps/,
      ],
      [['expire', 's-000000'], /no silence s-000000 for cluster https:\/\/127\.0\.0\.1:\d+/],
      [['expire', 'nope'], /"nope" is not a silence id/],
    ];
    for (const [args, pattern] of cases) {
      assertCleanFailure(await runCli(['silence', ...args, ...store()]), pattern);
    }
    assertCleanFailure(
      await runCli(['silence', 'list']),
      /needs where the silences are: --state-file PATH .* or --table NAME --cluster NAME/,
    );
    assertCleanFailure(
      await runCli(['silence', 'list', '--table', 't']),
      /--table needs --cluster NAME/,
    );
    assertCleanFailure(
      await runCli(['silence', 'list', '--table', 't', '--cluster', 'prod'], {
        aws: localAws({ dynamodb: `http://127.0.0.1:${await closedPort()}` }),
        env: { AWS_REGION: 'eu-west-1' },
      }),
      /cannot use the silences in DynamoDB table t: .*ECONNREFUSED.* \(check --table, --region/,
    );
  });
});

describe('the silences file keeps ended silences for the audit period, then drops them', () => {
  it('prunes on the next write after 7 days', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-silence-audit-'));
    try {
      let now = Date.UTC(2026, 10, 30, 12, 0);
      const files = new FileSilenceStore(join(dir, 'state.json'), () => now);
      const silence = (id: string, endsAt: number): Silence => ({
        id,
        target: { nodes: ['a'] },
        comment: 'patching',
        author: 'ops@host',
        createdAt: now,
        endsAt,
      });
      await files.add('prod', silence('s-aaaaaa', now + 60_000));
      await files.update('prod', 's-aaaaaa', endedAt(now + 1_000, 'oncall@host'));
      now += SILENCE_AUDIT_SECONDS * 1000;
      assert.deepEqual(
        (await files.list('prod')).map((s) => s.id),
        ['s-aaaaaa'],
        'still kept just before the audit period ends',
      );
      now += 1_000;
      assert.deepEqual(await files.list('prod'), [], 'dropped from the list');
      await files.add('prod', silence('s-bbbbbb', now + 60_000));
      const text = await readFile(files.path, 'utf8');
      assert.ok(!text.includes('s-aaaaaa'), 'and from the file at the next write');
      assert.ok(text.includes('s-bbbbbb'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
