/**
 * The `lease-watchdog` command against the simulated cluster over HTTPS: exit statuses, the JSON
 * contract, and one clean line on stderr for every failure class. In process (testkit/
 * cli-in-process.ts), on a fake clock the simulated cluster shares, so `watch` waits no real time;
 * SNS through the real client pointed at the local server. A few runs of the compiled bin as a
 * process cover what only a process shows: its exit statuses and no stack trace on stderr.
 */

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import type { SimServer } from '../sim/server.js';
import { localAws, runInProcess } from '../testkit/cli-in-process.js';
import { type CliResult as Result, runCli } from '../testkit/cli-process.js';
import { FakeClock } from '../testkit/fake-clock.js';
import { closedPort } from '../testkit/ports.js';
import { type SimFixture, startSimFixture, stopKubeletLongAgo } from '../testkit/sim-fixture.js';
import { startSnsServer } from '../testkit/sns-server.js';

const TOKEN = 'cli-test-secret-token-0123456789';

/** An expected failure: exit 2, exactly one line on stderr, no stack trace, no secret. */
function assertCleanFailure(result: Result, pattern: RegExp): void {
  assert.equal(result.code, 2, `exit status (stderr: ${result.stderr})`);
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${result.stderr}`);
  assert.match(lines[0] ?? '', /^lease-watchdog: /);
  assert.match(lines[0] ?? '', pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(result.stderr + result.stdout, new RegExp(TOKEN), 'the token never shows');
  assert.equal(result.stdout, '');
}

describe('lease-watchdog CLI against the simulated cluster', () => {
  const clock = new FakeClock();
  let sim: SimFixture;
  let dir: string;
  let cluster: SimCluster;
  let server: SimServer;
  let kubeconfig: string;
  let dead: string;
  let names: string[];

  before(async () => {
    cluster = new SimCluster({ seed: 3, now: clock.now });
    names = cluster.addNodes(9, { zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] });
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-cli', token: TOKEN });
    ({ dir, server, kubeconfig } = sim);
    dead = names[4] as string;
  });
  after(() => sim.close());

  const cli = (args: string[], options: Parameters<typeof runInProcess>[1] = {}) =>
    runInProcess(args, { clock, ...options });

  it('exits 0 and prints a kubectl-like table when every node is healthy', async () => {
    const result = await cli(['check', '--kubeconfig', kubeconfig]);
    assert.equal(result.code, 0, result.stderr);
    const [header, ...rows] = result.stdout.trimEnd().split('\n');
    assert.match(header ?? '', /^NAME\s+VERDICT\s+RENEWED\s+DURATION\s+ZONE\s+REASON$/);
    assert.equal(rows.length, 9);
    for (const row of rows)
      assert.match(row, /^ip-\S+\s+healthy\s+\d+s ago\s+40s\s+eu-west-1[abc]\s+renewed/);
    assert.match(result.stderr, /9 nodes: 9 healthy/);
  });

  it('KUBECONFIG files naming the same cluster merge as kubectl merges them: the first wins', async () => {
    const elsewhere = join(dir, 'same-names-elsewhere');
    const yaml = server.kubeconfig().replace(server.url, `https://127.0.0.1:${await closedPort()}`);
    await writeFile(elsewhere, yaml);
    const first = await cli(['check'], { env: { KUBECONFIG: `${kubeconfig}:${elsewhere}` } });
    assert.equal(first.code, 0, first.stderr);
    const second = await cli(['check'], { env: { KUBECONFIG: `${elsewhere}:${kubeconfig}` } });
    assert.equal(second.code, 2, second.stderr);
    assert.match(second.stderr, /cannot reach the API server/);
  });

  it('exits 1 and reports the dead node in the JSON contract', async () => {
    stopKubeletLongAgo(cluster, dead, clock.now());
    const result = await cli(['check', '--kubeconfig', kubeconfig, '--output', 'json']);
    assert.equal(result.code, 1, result.stderr);
    const json = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(json).sort(), [
      'checkedAt',
      'cluster',
      'nodes',
      'serverTime',
      'summary',
    ]);
    assert.equal(json.cluster, 'lease-watchdog-sim');
    assert.ok(
      !Number.isNaN(Date.parse(json.checkedAt)) && !Number.isNaN(Date.parse(json.serverTime)),
    );
    assert.equal(json.nodes.length, 9);
    for (const n of json.nodes) {
      for (const key of [
        'name',
        'verdict',
        'renewTime',
        'leaseDurationSeconds',
        'silentForSeconds',
        'reason',
      ]) {
        assert.ok(key in n, `node has ${key}`);
      }
    }
    const node = json.nodes.find((n: { name: string }) => n.name === dead);
    assert.equal(node.verdict, 'expired');
    assert.ok(node.silentForSeconds >= 299, String(node.silentForSeconds));
    assert.match(node.reason, /no lease renewal for [45]m/);
    assert.deepEqual(json.summary, {
      healthy: 8,
      expired: 1,
      'not-ready': 0,
      'missing-lease': 0,
      'orphaned-lease': 0,
      suppressed: 0,
      invalid: 0,
      suspect: 0,
    });
  });

  it('--exclude suppresses the dead node and exits 0 (a label other than the zone)', async () => {
    const result = await cli([
      'check',
      '--kubeconfig',
      kubeconfig,
      '--exclude',
      `kubernetes.io/hostname in (${dead})`,
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      new RegExp(`${dead.replace(/\./g, '\\.')}\\s+suppressed.*excluded by the selector`),
    );
  });

  it('403 on nodes: still checks the leases, exit 1, and warns that it is degraded', async () => {
    server.setFault({ kind: 'status', status: 403, resource: 'nodes' });
    try {
      const result = await cli(['check', '--kubeconfig', kubeconfig, '-o', 'json']);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /warning: degraded check: cannot list nodes \(403 Forbidden\)/);
      assert.match(JSON.parse(result.stdout).degraded, /checked leases alone/);
    } finally {
      server.setFault(null);
    }
  });

  it('watch --checks 1 says "1 check", not "1 checks"', async () => {
    const result = await cli(['watch', '--kubeconfig', kubeconfig, '--checks', '1']);
    assert.match(result.stdout, /watching lease-watchdog-sim every 10s \(grace 50s\), 1 check;/);
  });

  it('watch --checks 2 prints the FIRING notification it would email', async () => {
    const result = await cli([
      'watch',
      '--kubeconfig',
      kubeconfig,
      '--checks',
      '2',
      '--interval',
      '3',
    ]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /watching lease-watchdog-sim every 3s \(grace 50s\), 2 checks;/);
    assert.match(result.stdout, new RegExp(`! ${dead.replace(/\./g, '\\.')}\\s+expired`));
    assert.match(result.stdout, /\[lease-watchdog-sim\] FIRING: 1 node/);
    assert.equal(
      result.stdout.match(/Subject: .*FIRING: /g)?.length,
      1,
      'one FIRING for two checks',
    );
    assert.ok(
      result.stdout.indexOf('expired') < result.stdout.indexOf('Subject:'),
      'the change, then the email',
    );
  });

  it('watch --sns-topic-arn publishes through the real SNS client to the local server; --state-file carries incidents across runs', async () => {
    const sns = await startSnsServer();
    try {
      const topic = 'arn:aws:sns:eu-west-1:123456789012:lease-watchdog';
      const stateFile = join(dir, 'state.json');
      const aws = localAws({ sns: sns.url });
      const env = { AWS_REGION: 'eu-west-1' };
      // Two checks: a node first seen already silent waits one check before it pages.
      const args = [
        'watch',
        '--kubeconfig',
        kubeconfig,
        '--checks',
        '2',
        '--interval',
        '3',
        '--sns-topic-arn',
        topic,
        '--state-file',
        stateFile,
      ];
      const first = await cli(args, { env, aws });
      assert.equal(first.code, 1, first.stderr);
      assert.match(first.stdout, /published to SNS: \[lease-watchdog-sim\] FIRING: 1 node down/);
      assert.equal(sns.messages.length, 1);
      assert.equal(sns.messages[0]?.topicArn, topic);
      assert.match(sns.messages[0]?.message ?? '', new RegExp(dead.replace(/\./g, '\\.')));

      // A second run (a new command) remembers the open incident: nothing new to send.
      const second = await cli(args, { env, aws });
      assert.equal(second.code, 1, second.stderr);
      assert.equal(sns.messages.length, 1, 'no second FIRING for the same incident');
      assert.doesNotMatch(second.stdout, /published to SNS/);
    } finally {
      await sns.close();
    }
  });

  describe('expected failures: exit 2 with one line', () => {
    const cases: {
      name: string;
      args: () => string[];
      fault?: Parameters<SimServer['setFault']>[0];
      expect: RegExp;
    }[] = [
      {
        name: 'credentials rejected (401)',
        args: () => ['check', '--kubeconfig', join(dir, 'wrong-token')],
        expect: /rejected the credentials \(401 Unauthorized\)/,
      },
      {
        name: 'RBAC forbids leases (403)',
        args: () => ['check', '--kubeconfig', kubeconfig],
        fault: { kind: 'status', status: 403, resource: 'leases' },
        expect: /cannot list leases in namespace kube-node-lease .*403 Forbidden/,
      },
      {
        name: 'server error (503)',
        args: () => ['check', '--kubeconfig', kubeconfig],
        fault: { kind: 'status', status: 503 },
        expect: /answered 503/,
      },
      {
        name: 'API server hangs past --timeout',
        args: () => ['check', '--kubeconfig', kubeconfig, '--timeout', '1'],
        fault: { kind: 'hang' },
        expect: /no answer from 127\.0\.0\.1:\d+ within 1s/,
      },
      {
        name: 'TLS: the CA did not sign the server',
        args: () => ['check', '--kubeconfig', join(dir, 'no-ca')],
        expect: /TLS verification of 127\.0\.0\.1:\d+ failed/,
      },
      {
        name: 'namespace not found (404)',
        args: () => ['check', '--kubeconfig', kubeconfig, '--namespace', 'nope'],
        expect: /namespace nope not found \(404\)/,
      },
      {
        name: 'a namespace without leases while nodes exist (a typo), not 9 missing-lease alerts',
        args: () => ['check', '--kubeconfig', kubeconfig, '--namespace', 'default'],
        expect:
          /no Leases in namespace default but 9 Nodes exist: check --namespace \(kubelets renew their leases in kube-node-lease\)$/,
      },
      {
        name: 'kubeconfig file missing',
        args: () => ['check', '--kubeconfig', join(dir, 'missing')],
        expect: /kubeconfig .*missing does not exist: pass --kubeconfig PATH or set KUBECONFIG/,
      },
      {
        name: 'unknown context',
        args: () => ['check', '--kubeconfig', kubeconfig, '--context', 'prod'],
        expect: /context "prod" is not in the kubeconfig \(contexts: lease-watchdog-sim\)/,
      },
      {
        name: 'bad --grace-period',
        args: () => ['check', '--kubeconfig', kubeconfig, '--grace-period', 'soon'],
        expect: /--grace-period must be a duration such as 90s, 2m or 1h30m .*\(got "soon"\)/,
      },
      {
        name: 'a watch option with check',
        args: () => ['check', '--kubeconfig', kubeconfig, '--node-refresh', '300'],
        expect: /--node-refresh goes with "watch", not "check"/,
      },
      {
        name: 'unknown option',
        args: () => ['check', '--frobnicate'],
        expect: /unknown flag: --frobnicate/,
      },
      {
        name: 'bad selector',
        args: () => ['check', '--kubeconfig', kubeconfig, '--exclude', 'a in (b'],
        expect: /--exclude must be a label selector like "role=batch,!critical": invalid label key/,
      },
    ];
    before(async () => {
      await server.writeKubeconfig(join(dir, 'wrong-token'), { token: 'not-the-token' });
      await server.writeKubeconfig(join(dir, 'no-ca'), { withCa: false });
    });
    for (const c of cases) {
      it(c.name, async () => {
        if (c.fault) server.setFault(c.fault);
        try {
          assertCleanFailure(await cli(c.args()), c.expect);
        } finally {
          server.setFault(null);
        }
      });
    }

    it('an unreachable API server', async () => {
      const yaml = server
        .kubeconfig()
        .replace(server.url, `https://127.0.0.1:${await closedPort()}`);
      await writeFile(join(dir, 'unreachable'), yaml);
      assertCleanFailure(
        await cli(['check', '--kubeconfig', join(dir, 'unreachable')]),
        /cannot reach the API server/,
      );
    });
  });
});

describe('the compiled bin as a process: its exit statuses, and no stack trace', () => {
  let sim: SimFixture;
  before(async () => {
    // The process runs on the real clock: so does this cluster.
    const cluster = new SimCluster({ seed: 3 });
    const names = cluster.addNodes(3, { zones: ['eu-west-1a'] });
    stopKubeletLongAgo(cluster, names[1] as string, Date.now());
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-cli-bin', token: TOKEN });
  });
  after(() => sim.close());

  it('exits 1 when a node is alerting', async () => {
    const result = await runCli(['check', '--kubeconfig', sim.kubeconfig, '-o', 'json']);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(JSON.parse(result.stdout).summary.expired, 1);
  });

  it('exits 2 with one clean line for an expected failure', async () => {
    await sim.server.writeKubeconfig(join(sim.dir, 'wrong-token'), { token: 'not-the-token' });
    assertCleanFailure(
      await runCli(['check', '--kubeconfig', join(sim.dir, 'wrong-token')]),
      /rejected the credentials \(401 Unauthorized\)/,
    );
  });
});
