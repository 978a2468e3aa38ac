/**
 * A kubeconfig `proxy-url` at its edges, through the command (in process) and the handler
 * `createHandler` builds: a proxy that accepts and never answers CONNECT ends the read by its
 * timeout and by the caller's signal (never a hang), a plain-http server behind a proxy is refused
 * as it is without one (the token is never sent in clear), and a proxy password that is not valid
 * %-encoding is one `config` line (a WATCHDOG page in the Lambda, not an invocation error).
 */

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { type ConnectProxy, startConnectProxy } from '../testkit/connect-proxy.js';
import { withProxyUrl } from '../testkit/harness-parts.js';
import { closeServer, listenOnLoopback } from '../testkit/ports.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';
import { waitUntil } from '../testkit/wait-until.js';
import { type Harness, kindOf, startWatchdogHarness } from '../testkit/watchdog-harness.js';

const TOKEN = 'proxy-test-secret-token-0123456789';
/** A test that would hang without the fix fails instead. */
const BOUNDED = { timeout: 20_000 };

/** An expected failure of the command: exit 2, one line on stderr, the token never shown. */
function assertOneLine(result: Awaited<ReturnType<typeof runInProcess>>, pattern: RegExp): void {
  assert.equal(result.code, 2, `exit status (stderr: ${result.stderr})`);
  assert.equal(result.stderrLines.length, 1, `one line on stderr, got:\n${result.stderr}`);
  assert.match(result.stderrLines[0] ?? '', pattern);
  assert.doesNotMatch(result.stderr + result.stdout, new RegExp(TOKEN), 'the token never shows');
}

describe('proxy-url through the command', () => {
  let sim: SimFixture;
  let proxy: ConnectProxy;
  /** Writes the sim's kubeconfig with `proxy-url` (and another server); resolves to its path. */
  const kubeconfigWith = async (file: string, proxyUrl?: string, server?: string) => {
    let text = sim.server.kubeconfig();
    if (proxyUrl) text = withProxyUrl(text, proxyUrl);
    if (server) text = text.replace(/^( +server: ).*$/m, `$1"${server}"`);
    const path = join(sim.dir, file);
    await writeFile(path, text);
    return path;
  };

  before(async () => {
    const cluster = new SimCluster({ seed: 5 });
    cluster.addNodes(3, { zones: ['eu-west-1a'] });
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-proxy', token: TOKEN });
    proxy = await startConnectProxy();
  });
  after(async () => {
    await proxy.close();
    await sim.close();
  });

  it('reads the cluster through a tunnelling proxy', async () => {
    proxy.setBehaviour('tunnel');
    const result = await runInProcess([
      'check',
      '--kubeconfig',
      await kubeconfigWith('ok', proxy.url),
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(proxy.connects.length >= 1, 'through the proxy');
  });

  it(
    'a proxy that never answers CONNECT: check --timeout ends with the timeout line',
    BOUNDED,
    async () => {
      proxy.setBehaviour('silent');
      const kubeconfig = await kubeconfigWith('silent', proxy.url);
      const result = await runInProcess(['check', '--kubeconfig', kubeconfig, '--timeout', '1']);
      assertOneLine(result, /no answer from 127\.0\.0\.1:\d+ within 1s/);
    },
  );

  it('a proxy that never answers CONNECT: the caller signal ends the read', BOUNDED, async () => {
    proxy.setBehaviour('silent');
    const kubeconfig = await kubeconfigWith('silent-signal', proxy.url);
    const connectsBefore = proxy.connects.length;
    const stop = new AbortController();
    const running = runInProcess(['check', '--kubeconfig', kubeconfig, '--timeout', '60'], {
      signal: stop.signal,
    });
    await waitUntil(() => proxy.connects.length > connectsBefore, 'the CONNECT reached the proxy');
    stop.abort();
    const result = await running;
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /aborted/);
    // No request of the ended read opens a connection afterwards (one waiting for the socket
    // the leases' request had): the proxy's connections all close, and one CONNECT came.
    await waitUntil(() => proxy.open === 0, 'every connection to the proxy closed');
    assert.equal(proxy.connects.length - connectsBefore, 1, 'one CONNECT');
  });

  it('an http:// server behind a proxy is refused as it is without one: no token in clear', async () => {
    proxy.setBehaviour('tunnel');
    const requests: (string | undefined)[] = [];
    const plain: HttpServer = createHttpServer((request, response) => {
      requests.push(request.headers.authorization);
      response.writeHead(500).end();
    });
    const url = await listenOnLoopback(plain);
    try {
      const direct = await runInProcess([
        'check',
        '--kubeconfig',
        await kubeconfigWith('http-direct', undefined, url),
      ]);
      const proxied = await runInProcess([
        'check',
        '--kubeconfig',
        await kubeconfigWith('http-proxied', proxy.url, url),
      ]);
      const shape = /^lease-watchdog: cannot use the kubeconfig's credentials: .*http/i;
      assertOneLine(direct, shape);
      assertOneLine(proxied, shape);
      assert.deepEqual(requests, [], 'nothing reached the plain-http server');
      // By target: a connect an earlier test's reader made may land while this one runs.
      const target = new URL(url).host;
      assert.deepEqual(
        proxy.connects.filter((c) => c.target === target),
        [],
        'nor the proxy',
      );
    } finally {
      await closeServer(plain);
    }
  });

  it('a proxy password that is not valid %-encoding is one config line, the password unquoted', async () => {
    const bad = proxy.url.replace('http://', 'http://me:50%zz-secret@');
    const result = await runInProcess([
      'check',
      '--kubeconfig',
      await kubeconfigWith('bad-escape', bad),
    ]);
    assertOneLine(result, /^lease-watchdog: .*proxy-url.*%-encod/);
    assert.doesNotMatch(result.stderr, /50%zz-secret|URIError/);
  });
});

describe('proxy-url through the handler', () => {
  let h: Harness;
  let proxy: ConnectProxy;
  before(async () => {
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 3, proxy: true } },
      requestTimeoutSeconds: 1,
    });
    proxy = h.target('prod').proxy as ConnectProxy;
  });
  after(() => h.close());

  it(
    'reads through the proxy; a proxy gone silent ends each read by its timeout, and pages a WATCHDOG',
    BOUNDED,
    async () => {
      const first = await h.run();
      assert.equal(first.clusters[0]?.lastStatus, 'checked');
      assert.ok(proxy.connects.length >= 1, 'through the proxy');
      proxy.setBehaviour('silent');
      const before = h.sns.messages.length;
      for (let i = 0; i < 3; i++) {
        const report = await h.tick();
        assert.equal(report.clusters[0]?.lastStatus, 'unreadable');
      }
      const sent = h.sns.messages.slice(before);
      assert.deepEqual(sent.map(kindOf), ['WATCHDOG']);
      assert.equal(sent[0]?.subject, '[prod] WATCHDOG: cannot read cluster (timeout)');
      proxy.setBehaviour('tunnel');
    },
  );
});

describe('a proxy password that is not valid %-encoding, in the Lambda', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 3, proxy: 'http://me:50%zz-secret@127.0.0.1:9' } },
      requestTimeoutSeconds: 1,
    });
  });
  after(() => h.close());

  it('is a WATCHDOG config page, not an invocation error; the password is never quoted', async () => {
    for (let i = 0; i < 3; i++) {
      const report = await h.tick();
      assert.equal(report.clusters[0]?.lastStatus, 'unreadable');
    }
    const sent = h.sns.messages;
    assert.deepEqual(sent.map(kindOf), ['WATCHDOG']);
    assert.equal(sent[0]?.subject, '[prod] WATCHDOG: cannot read cluster (config)');
    assert.match(sent[0]?.message ?? '', /proxy-url/);
    assert.doesNotMatch(JSON.stringify(sent) + JSON.stringify(h.logger.entries), /50%zz-secret/);
  });
});
