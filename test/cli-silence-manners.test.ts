/**
 * `lease-watchdog silence` as a new user meets it (issue 19 §3): the store must exist, a silence
 * added through another kubeconfig context of the same cluster reaches the running `watch`, and
 * `--for` takes days. In process against the simulated cluster over HTTPS, on a fake clock.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FileSilenceStore } from '../lambda/adapters/state/file/file-silence-store.js';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import type { CliResult } from '../testkit/cli-process.js';
import { FakeClock } from '../testkit/fake-clock.js';
import { closedPort } from '../testkit/ports.js';
import { type SimFixture, startSimFixture, stopKubeletLongAgo } from '../testkit/sim-fixture.js';

function assertUsageLine(result: CliResult, pattern: RegExp): void {
  assert.equal(result.code, 2, `exit status (stderr: ${result.stderr})`);
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${result.stderr}`);
  assert.match(lines[0] ?? '', pattern);
  assert.equal(result.stdout, '');
}

describe('silence: where silences go, and for how long', () => {
  const clock = new FakeClock();
  let sim: SimFixture;
  let stateFile: string;
  let aliasKubeconfig: string;
  let dead: string;

  before(async () => {
    const cluster = new SimCluster({ seed: 7, now: clock.now });
    const names = cluster.addNodes(4, { zones: ['eu-west-1a', 'eu-west-1b'] });
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-silence-manners' });
    stateFile = join(sim.dir, 'state.json');
    dead = names[2] as string;
    stopKubeletLongAgo(cluster, dead, clock.now());
    // The same cluster as another kubeconfig names it: another cluster entry, context and user.
    const text = await readFile(sim.kubeconfig, 'utf8');
    aliasKubeconfig = join(sim.dir, 'alias-kubeconfig');
    await writeFile(aliasKubeconfig, text.replaceAll('lease-watchdog-sim', 'ops-alias'));
  });
  after(() => sim.close());

  const runCli = (args: string[]) => runInProcess(args, { clock });
  const watch = () =>
    runCli(['watch', '--checks', '1', '--state-file', stateFile, '--kubeconfig', sim.kubeconfig]);
  const add = (more: string[]) =>
    runCli(['silence', 'add', '--comment', 'kernel upgrade', '--state-file', stateFile, ...more]);

  it('refuses a state file that does not exist (a typo), naming it and how to create it', async () => {
    const typo = join(sim.dir, 'stat.json');
    for (const verb of [
      ['add', '--node', dead, '--for', '2h', '--comment', 'x'],
      ['list'],
      ['expire', 's-000000'],
    ]) {
      const result = await runCli([
        'silence',
        ...verb,
        '--state-file',
        typo,
        '--kubeconfig',
        sim.kubeconfig,
      ]);
      assertUsageLine(
        result,
        new RegExp(
          `^lease-watchdog: state file ${typo.replace(/[.]/g, '\\.')} does not exist: start lease-watchdog watch --state-file ${typo.replace(/[.]/g, '\\.')} first \\(it creates it\\), or correct --state-file$`,
        ),
      );
    }
    await assert.rejects(readFile(`${typo}.silences`), /ENOENT/, 'no file created');
  });

  it('refuses a --cluster the state file does not know, naming the ones it does', async () => {
    assert.equal((await watch()).code, 1, 'the dead node fires; the state file now exists');
    const result = await runCli(['silence', 'list', '--state-file', stateFile, '--cluster', 'prd']);
    assertUsageLine(
      result,
      /^lease-watchdog: state file .*state\.json has no cluster "prd" \(it has: https:\/\/127\.0\.0\.1:\d+#ca=[0-9a-f]{16}\): check --cluster, or leave it out to use the kubeconfig context's$/,
    );
  });

  it('a silence added through another context of the same cluster is applied by watch', async () => {
    const added = await add(['--node', dead, '--for', '1d', '--kubeconfig', aliasKubeconfig]);
    assert.equal(added.code, 0, added.stderr);
    assert.match(
      added.stdout,
      new RegExp(
        `^silence s-[0-9a-f]{6} added for node ${dead.replace(/[.]/g, '\\.')} of cluster https://127\\.0\\.0\\.1:\\d+#ca=[0-9a-f]{16} \\(context ops-alias\\) in ${stateFile.replace(/[.]/g, '\\.')}\\.silences until \\S+ \\S+ UTC \\(24h\\): kernel upgrade\\nmatches 1 node now: ${dead.replace(/[.]/g, '\\.')}\\n$`,
      ),
    );
    const silenced = await watch();
    assert.equal(
      silenced.code,
      0,
      `suppressed, not alerting: ${silenced.stdout}${silenced.stderr}`,
    );
    assert.match(
      silenced.stdout,
      /suppressed +\(silenced by s-[0-9a-f]{6} until .*"kernel upgrade"/,
    );
    const listed = await runCli([
      'silence',
      'list',
      '--state-file',
      stateFile,
      '--kubeconfig',
      sim.kubeconfig,
    ]);
    assert.match(listed.stdout, /kernel upgrade/);
  });

  it('silences an earlier version kept under the context name are still listed and ended', async () => {
    const legacy = new FileSilenceStore(stateFile, clock.now);
    await legacy.add('lease-watchdog-sim', {
      id: 's-01d01d',
      target: { nodes: [dead] },
      comment: 'kept under the context name',
      author: 'ops@old',
      createdAt: clock.now(),
      endsAt: clock.now() + 3600_000,
    });
    const store = ['--state-file', stateFile, '--kubeconfig', sim.kubeconfig];
    const listed = await runCli(['silence', 'list', ...store]);
    assert.match(listed.stdout, /s-01d01d .*kept under the context name/);
    const ended = await runCli(['silence', 'expire', 's-01d01d', ...store]);
    assert.equal(ended.code, 0, ended.stderr);
    assert.equal((await legacy.list('lease-watchdog-sim'))[0]?.expiredBy !== undefined, true);
  });

  it('shows what a new silence matches now, and refuses one that matches nothing', async () => {
    const kc = ['--kubeconfig', sim.kubeconfig];
    const zone = await add(['-l', 'topology.kubernetes.io/zone=eu-west-1a', '--for', '1h', ...kc]);
    assert.equal(zone.code, 0, zone.stderr);
    assert.match(zone.stdout, /\nmatches 2 nodes now: ip-\S+, ip-\S+\n$/);
    for (const [target, named] of [
      [['--node', 'no-such-node'], '--node no-such-node'],
      [
        ['-l', 'topology.kubernetes.io/zone=eu-west-1z'],
        'selector "topology.kubernetes.io/zone=eu-west-1z"',
      ],
    ] as const) {
      assertUsageLine(
        await add([...target, '--for', '1h', ...kc]),
        new RegExp(
          `^lease-watchdog: silence add: ${named.replace(/[.]/g, '\\.')} matches no node of cluster https://127\\.0\\.0\\.1:\\d+#ca=[0-9a-f]{16} \\(context lease-watchdog-sim\\) now: check it \\(kubectl get nodes --show-labels\\), or pass --allow-empty for nodes not created yet$`,
        ),
      );
    }
    const future = await add(['--node', 'node-to-come', '--for', '1h', '--allow-empty', ...kc]);
    assert.equal(future.code, 0, future.stderr);
    assert.match(future.stdout, /\nmatches no node now \(--allow-empty\)\n$/);
  });

  it('says so when the cluster cannot be read to see what a silence matches', async () => {
    const port = await closedPort();
    const down = join(sim.dir, 'down-kubeconfig');
    const text = await readFile(sim.kubeconfig, 'utf8');
    await writeFile(down, text.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${port}`));
    const stored = JSON.parse(await readFile(stateFile, 'utf8')) as { clusters: object };
    const key = Object.keys(stored.clusters)[0] as string;
    const args = ['--node', dead, '--for', '1h', '--cluster', key, '--kubeconfig', down];
    const refused = await add(args);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(
      refused.stderr,
      /^lease-watchdog: silence add: cannot read the cluster to see what the silence matches \(.*ECONNREFUSED.*\): fix the kubeconfig or --context, or pass --allow-empty to add it unseen\n$/,
    );
    const unseen = await add([...args, '--allow-empty']);
    assert.equal(unseen.code, 0, unseen.stderr);
    assert.match(unseen.stdout, /\nmatches: not known \(the cluster cannot be read\)\n$/);
  });

  it('query lists the active silences with what each matches now, as a table or JSON', async () => {
    const store = ['--state-file', stateFile, '--kubeconfig', sim.kubeconfig];
    const json = await runCli(['silence', 'query', '-o', 'json', ...store]);
    assert.equal(json.code, 0, json.stderr);
    const answer = JSON.parse(json.stdout) as {
      cluster: string;
      nodesRead: boolean;
      silences: {
        id: string;
        target: { nodes?: string[]; selector?: string };
        active: boolean;
        matches: { count: number; nodes: string[] } | null;
      }[];
    };
    assert.match(answer.cluster, /^https:\/\/127\.0\.0\.1:\d+#ca=[0-9a-f]{16}$/);
    assert.equal(answer.nodesRead, true);
    assert.ok(
      answer.silences.every((x) => x.active),
      'ended silences are for list, not query',
    );
    const zone = answer.silences.find((x) => x.target.selector?.endsWith('eu-west-1a'));
    assert.equal(zone?.matches?.count, 2);
    assert.equal(zone?.matches?.nodes.length, 2);
    const future = answer.silences.find((x) => x.target.nodes?.[0] === 'node-to-come');
    assert.deepEqual(future?.matches, { count: 0, nodes: [] });

    const table = await runCli(['silence', 'query', ...store]);
    assert.equal(table.code, 0, table.stderr);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    assert.match(header ?? '', /^ID\s+TARGET\s+STARTS\s+ENDS\s+MATCHES\s+COMMENT$/);
    assert.ok(
      rows.some((r) => /node node-to-come .*\s0\s+kernel upgrade$/.test(r)),
      table.stdout,
    );
    assert.ok(
      rows.some((r) => /eu-west-1a.*\s2: ip-\S+, ip-\S+\s+kernel upgrade$/.test(r)),
      table.stdout,
    );
  });

  it('update changes the end or the comment of an active silence', async () => {
    const store = ['--state-file', stateFile, '--kubeconfig', sim.kubeconfig];
    const queried = JSON.parse((await runCli(['silence', 'query', '-o', 'json', ...store])).stdout);
    const { id } = queried.silences.find(
      (x: { target: { nodes?: string[] } }) => x.target.nodes?.[0] === 'node-to-come',
    );
    const longer = await runCli([
      'silence',
      'update',
      id,
      '--for',
      '3h',
      '--comment',
      'new words',
      ...store,
    ]);
    assert.equal(longer.code, 0, longer.stderr);
    assert.match(
      longer.stdout,
      new RegExp(
        `^silence ${id} of cluster https://\\S+ \\(context lease-watchdog-sim\\) now ends \\S+ \\S+ UTC \\(in 3h\\): new words\\n$`,
      ),
    );
    const end = new Date(clock.now() + 26 * 3600_000).toISOString();
    const planned = await runCli(['silence', 'update', id, '--ends-at', end, ...store]);
    assert.equal(planned.code, 0, planned.stderr);
    assert.match(planned.stdout, /\(in 26h\): new words\n$/);
    const cases: [string[], RegExp][] = [
      [[id], /update needs what to change: --for DURATION, --ends-at TIME or --comment TEXT/],
      [[id, '--for', '1h', '--ends-at', end], /takes --for or --ends-at, not both/],
      [
        [id, '--ends-at', 'tomorrow'],
        /--ends-at must be an RFC 3339 time like 2026-12-01T18:00:00Z \(got "tomorrow"\)/,
      ],
      [
        [id, '--ends-at', '2020-01-01T00:00:00Z'],
        /--ends-at must be in the future \(it is 2020-01-01 00:00 UTC/,
      ],
      [[id, '--ends-at', '2099-01-01T00:00:00Z'], /a silence lasts at most 30d/],
    ];
    for (const [args, pattern] of cases) {
      const result = await runCli(['silence', 'update', ...args, ...store]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, pattern);
    }
  });

  it('--starts-at and --ends-at plan a window: pending until it starts (core: silences.test.ts); bad windows refused', async () => {
    const at = (hours: number) => new Date(clock.now() + hours * 3600_000).toISOString();
    const kc = ['--kubeconfig', sim.kubeconfig];
    const planned = await add(['--node', dead, '--starts-at', at(24), '--ends-at', at(26), ...kc]);
    assert.equal(planned.code, 0, planned.stderr);
    const id = /silence (s-[0-9a-f]{6}) added/.exec(planned.stdout)?.[1];
    assert.match(
      planned.stdout,
      / from \S+ \S+ UTC \(in 24h\) until \S+ \S+ UTC \(120m\): kernel upgrade\n/,
    );
    const query = async () =>
      JSON.parse(
        (await runCli(['silence', 'query', '-o', 'json', '--state-file', stateFile, ...kc])).stdout,
      ).silences.find((x: { id: string }) => x.id === id);
    assert.deepEqual(
      [(await query()).active, (await query()).startsAt],
      [false, new Date(Date.parse(at(24))).toISOString()],
      'pending',
    );
    const cases: [string[], RegExp][] = [
      [['--starts-at', at(2), '--ends-at', at(1)], /--ends-at must be after --starts-at/],
      [['--ends-at', at(-1)], /--ends-at must be in the future/],
      [
        ['--starts-at', at(-1), '--for', '1h'],
        /--starts-at must not be in the past \(leave it out to start now\)/,
      ],
      [['--starts-at', at(1), '--ends-at', at(24 * 31 + 2)], /a silence lasts at most 30d/],
      [['--starts-at', at(24 * 31), '--for', '1h'], /--starts-at must be at most 30d from now/],
      [['--for', '1h', '--ends-at', at(2)], /takes --for or --ends-at, not both/],
    ];
    for (const [args, pattern] of cases) {
      const result = await add(['--node', dead, ...args, ...kc]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, pattern);
    }
  });

  it('--for takes days, alone or with hours; past 30d is refused', async () => {
    const added = await add(['--node', dead, '--for', '2d12h', '--kubeconfig', sim.kubeconfig]);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /\(2d12h\)/);
    assertUsageLine(
      await add(['--node', dead, '--for', '31d', '--kubeconfig', sim.kubeconfig]),
      /--for must be a duration from 1s to 30d, like 90s, 10m, 2h or 1d \(got "31d"\)/,
    );
  });

  it('list and query show a planned silence as not started yet: STARTS "(in 24h)"', async () => {
    const store = ['--state-file', stateFile, '--kubeconfig', sim.kubeconfig];
    for (const verb of ['list', 'query']) {
      const result = await runCli(['silence', verb, ...store]);
      assert.equal(result.code, 0, result.stderr);
      const [header, ...rows] = result.stdout.trimEnd().split('\n');
      assert.match(header ?? '', /^ID\s+TARGET\s+STARTS\s+ENDS\s+/, verb);
      const starts = (header ?? '').indexOf('STARTS');
      const cells = rows.map((row) => row.slice(starts, (header ?? '').indexOf('ENDS')).trim());
      assert.ok(
        cells.some((cell) => /^\S+ \S+ UTC \(in 24h\)$/.test(cell)),
        `${verb}: the planned one: ${result.stdout}`,
      );
      assert.ok(
        cells.some((cell) => /^\S+ \S+ UTC \(\S+ ago\)$/.test(cell)),
        `${verb}: the ones in force: ${result.stdout}`,
      );
    }
  });

  it('refuses a silence that matches every node unless --all, naming the fix', async () => {
    const kc = ['--kubeconfig', sim.kubeconfig];
    const query = ['silence', 'query', '--state-file', stateFile, ...kc];
    const before = (await runCli(query)).stdout;
    const allNodes = JSON.parse((await runCli(['check', '-o', 'json', ...kc])).stdout).nodes.map(
      (n: { name: string }) => n.name,
    ) as string[];
    assert.equal(allNodes.length, 4);
    const cases: [string[], RegExp][] = [
      [
        ['-l', 'topology.kubernetes.io/zone'],
        /^lease-watchdog: silence add: selector "topology\.kubernetes\.io\/zone" matches all 4 nodes of cluster https:\/\/\S+ \(context lease-watchdog-sim\): name fewer \(a zone, a node group\), or pass --all to silence the whole cluster$/,
      ],
      [
        allNodes.flatMap((name) => ['--node', name]),
        /^lease-watchdog: silence add: --node \S+, \S+, \S+, \S+ matches all 4 nodes of cluster .*, or pass --all/,
      ],
      // amtool's rule: a selector that matches a node with no labels matches everything.
      [
        ['-l', 'topology.kubernetes.io/zone!=eu-west-1a'],
        /^lease-watchdog: silence add: selector "topology\.kubernetes\.io\/zone!=eu-west-1a" matches every node, even one without these labels: name a value \(zone=eu-west-1a\), or pass --all to silence the whole cluster$/,
      ],
    ];
    for (const [target, pattern] of cases) {
      assertUsageLine(await add([...target, '--for', '1h', ...kc]), pattern);
    }
    assert.equal((await runCli(query)).stdout, before, 'nothing added');
    const all = await add(['-l', 'topology.kubernetes.io/zone', '--for', '1h', '--all', ...kc]);
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /\nmatches 4 nodes now: /);
  });

  it('expire ends several silences at once; an unknown id is said, the others still end', async () => {
    const store = ['--state-file', stateFile, '--kubeconfig', sim.kubeconfig];
    // Every silence not ended yet: in force, or planned (not started).
    const open = async () =>
      (
        JSON.parse((await runCli(['silence', 'query', '-o', 'json', ...store])).stdout) as {
          silences: { id: string; active: boolean }[];
        }
      ).silences;
    const before = await open();
    const a = before.find((x) => x.active)?.id as string;
    const planned = before.find((x) => !x.active)?.id as string;
    assert.ok(a !== undefined && planned !== undefined, 'one in force and one planned to end');
    const ended = await runCli(['silence', 'expire', a, 's-0dead0', planned, ...store]);
    assert.equal(ended.code, 2, 'one could not be ended');
    assert.deepEqual(
      ended.stdoutLines.map((line) => line.replace(/ of cluster .*/, '')),
      [`silence ${a}`, `silence ${planned}`],
    );
    assert.match(
      ended.stderr,
      /^lease-watchdog: no silence s-0dead0 for cluster \S+: see lease-watchdog silence list for the ids\n$/,
    );
    const rest = before.map((x) => x.id).filter((id) => id !== a && id !== planned);
    assert.deepEqual(
      (await open()).map((x) => x.id),
      rest,
    );
    // A planned silence ended before its start never starts.
    const listed = await runCli(['silence', 'list', ...store]);
    const row = listed.stdoutLines.find((line) => line.startsWith(planned));
    assert.match(row ?? listed.stdout, /never \(ended before its start\)\s+ended /);
    const usage = await runCli(['silence', 'expire', ...rest, 'nope', ...store]);
    assertUsageLine(usage, /"nope" is not a silence id like s-3f9a2c/);
  });
});
