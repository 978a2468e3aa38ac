/**
 * Bounded reads against a hostile API server (a tiny local HTTPS server): answers that are not
 * the list asked for, a repeated or cycling continue token, a list that never ends, a page over
 * the byte cap and a read slower than its budget each end as one ClusterReadError line — and
 * through the CLI as exit 2 with one line on stderr. The caps are options of the reader, so the
 * payloads stay small.
 */

import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { KubeClusterReader, type ReadBounds } from '../lambda/adapters/kube/kube-reader.js';
import { ClusterReadError } from '../lambda/ports/index.js';
import { runInProcess as runCli } from '../testkit/cli-in-process.js';
import { type TempKubeconfig, tempKubeconfig } from '../testkit/sim-fixture.js';
import {
  LEASES_PATH,
  sendJson,
  startTinyApi,
  TINY_TOKEN,
  type TinyApi,
} from '../testkit/tiny-api.js';

function lease(name: string) {
  return {
    metadata: { name },
    spec: { renewTime: new Date().toISOString(), leaseDurationSeconds: 40 },
  };
}
const node = (name: string) => ({
  kind: 'Node',
  metadata: { name, labels: {} },
  spec: {},
  status: {},
});

/** Leases answered by `leases`, Nodes as one well-formed page (n1). */
function api(leases: (continueToken: string | null, res: ServerResponse) => void) {
  return (req: { url?: string | undefined }, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'https://x');
    if (url.pathname === LEASES_PATH) return leases(url.searchParams.get('continue'), res);
    if (url.pathname === '/api/v1/nodes')
      return sendJson(res, { kind: 'NodeList', items: [node('n1')] });
    return sendJson(res, { kind: 'Status', code: 404 }, 404);
  };
}

describe('bounded reads against a hostile API server', () => {
  let tiny: TinyApi;
  let files: TempKubeconfig;
  let kubeconfig: string;

  before(async () => {
    tiny = await startTinyApi();
    files = await tempKubeconfig(tiny, 'lease-watchdog-bounds');
    kubeconfig = files.kubeconfig;
  });
  after(async () => {
    await tiny.close();
    await files.remove();
  });

  function reader(bounds?: Partial<ReadBounds>, pageSize?: number): KubeClusterReader {
    return new KubeClusterReader({
      kubeConfig: tiny.kubeConfig(),
      cluster: 'tiny',
      namespace: 'kube-node-lease',
      requestTimeoutMs: 5_000,
      pageSize,
      bounds,
    });
  }

  async function failure(promise: Promise<unknown>): Promise<ClusterReadError> {
    try {
      await promise;
    } catch (error) {
      assert.ok(error instanceof ClusterReadError, `expected a ClusterReadError, got ${error}`);
      assert.doesNotMatch(error.message, /\n/, 'one line');
      return error;
    }
    assert.fail('expected the read to fail');
  }

  it('tolerates a page with more items than `limit`', async () => {
    tiny.serve(
      api((_token, res) =>
        sendJson(res, { kind: 'LeaseList', items: ['a', 'b', 'c', 'd', 'e'].map(lease) }),
      ),
    );
    const snapshot = await reader(undefined, 2).read();
    assert.equal(snapshot.leases.length, 5);
  });

  it('a continue token repeated forever ends the read after the second page', async () => {
    tiny.serve(
      api((_token, res) =>
        sendJson(res, { kind: 'LeaseList', metadata: { continue: 'again' }, items: [lease('a')] }),
      ),
    );
    const error = await failure(reader().read());
    assert.equal(error.failure, 'invalid-response');
    assert.match(
      error.message,
      /listing leases in namespace kube-node-lease repeats a continue token after 2 pages/,
    );
    assert.ok(tiny.requests() <= 3, `requests: ${tiny.requests()}`);
  });

  it('continue tokens cycling a → b → a end the read', async () => {
    tiny.serve(
      api((token, res) =>
        sendJson(res, {
          kind: 'LeaseList',
          metadata: { continue: token === 'a' ? 'b' : 'a' },
          items: [lease(`l-${token}`)],
        }),
      ),
    );
    const error = await failure(reader().read());
    assert.equal(error.failure, 'invalid-response');
    assert.match(error.message, /repeats a continue token after 3 pages/);
  });

  it('a list that never ends stops at the page cap', async () => {
    let n = 0;
    tiny.serve(
      api((_token, res) =>
        sendJson(res, { kind: 'LeaseList', metadata: { continue: `t${n++}` }, items: [] }),
      ),
    );
    const error = await failure(reader({ maxPages: 5 }).read());
    assert.equal(error.failure, 'invalid-response');
    assert.match(error.message, /still going after 5 pages/);
  });

  for (const declared of [true, false]) {
    it(`a page over the byte cap is given up (${declared ? 'Content-Length' : 'chunked'})`, async () => {
      const big = JSON.stringify({
        kind: 'LeaseList',
        items: Array.from({ length: 100 }, (_, i) => lease(`node-${i}`)),
      });
      tiny.serve(
        api((_token, res) => {
          if (declared) {
            res.writeHead(200, {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(big),
            });
            res.end(big);
          } else {
            res.writeHead(200, { 'content-type': 'application/json' });
            for (let i = 0; i < big.length; i += 512) res.write(big.slice(i, i + 512));
            res.end();
          }
        }),
      );
      const error = await failure(reader({ maxPageBytes: 2048 }).read());
      assert.equal(error.failure, 'invalid-response');
      assert.match(
        error.message,
        /^the API server's answer to listing leases in namespace kube-node-lease is over 2 KiB \(the most one page may have\): read given up$/,
      );
    });
  }

  it('a read slower than its budget is given up, though each page is quick', async () => {
    let n = 0;
    tiny.serve(
      api((_token, res) => {
        setTimeout(
          () => sendJson(res, { kind: 'LeaseList', metadata: { continue: `t${n++}` }, items: [] }),
          100,
        );
      }),
    );
    const error = await failure(
      new KubeClusterReader({
        kubeConfig: tiny.kubeConfig(),
        cluster: 'tiny',
        namespace: 'kube-node-lease',
        requestTimeoutMs: 500,
        bounds: { budgetMs: 600 },
      }).read(),
    );
    assert.equal(error.failure, 'timeout');
    assert.match(error.message, /took longer than its budget of 0\.6s, given up$/);
  });

  describe('the CLI: exit 2 with one line', () => {
    const cases: { name: string; serve: Parameters<TinyApi['serve']>[0]; expect: RegExp }[] = [
      {
        name: 'an empty object for leases',
        serve: api((_t, res) => sendJson(res, {})),
        expect:
          /^lease-watchdog: the API server's answer to listing leases in namespace kube-node-lease is not a LeaseList \(got an empty object\)$/,
      },
      {
        name: 'a Status with HTTP 200 for nodes',
        serve: (req, res) =>
          req.url?.startsWith('/api/v1/nodes')
            ? sendJson(res, { kind: 'Status', message: 'etcdserver: request timed out' })
            : sendJson(res, { kind: 'LeaseList', items: [lease('n1')] }),
        expect: /is not a NodeList \(got a Status: etcdserver: request timed out\)$/,
      },
      {
        name: "a proxy's HTML page",
        serve: (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<html>Sign in</html>');
        },
        expect: /is not JSON \(HTTP 200, text\/html\)$/,
      },
      {
        name: 'a repeated continue token',
        serve: api((_t, res) =>
          sendJson(res, { kind: 'LeaseList', metadata: { continue: 'x' }, items: [lease('n1')] }),
        ),
        expect: /repeats a continue token after 2 pages/,
      },
    ];
    it('--timeout 1 behind a silent server bounds the whole read: the request in turn is never sent', async () => {
      // The two lists go over one connection, in turn: each waiting out its own timeout, a check
      // took twice --timeout. What the server saw tells, not the wall clock.
      const asked: string[] = [];
      tiny.serve((req) => void asked.push(req.url ?? ''));
      const result = await runCli(['check', '--kubeconfig', kubeconfig, '--timeout', '1']);
      assert.equal(result.code, 2, result.stderrLines.join('\n'));
      assert.equal(result.stderrLines.length, 1, result.stderrLines.join('\n'));
      assert.match(result.stderrLines[0] ?? '', /: no answer from 127\.0\.0\.1:\d+ within 1s$/);
      assert.equal(asked.length, 1, asked.join(', '));
    });
    for (const c of cases) {
      it(c.name, async () => {
        tiny.serve(c.serve);
        const result = await runCli(['check', '--kubeconfig', kubeconfig]);
        assert.equal(result.code, 2, result.stderrLines.join('\n'));
        assert.equal(result.stderrLines.length, 1, result.stderrLines.join('\n'));
        assert.match(result.stderrLines[0] ?? '', c.expect);
        assert.deepEqual(result.stdoutLines, []);
        assert.doesNotMatch(result.stderrLines.join('\n'), new RegExp(TINY_TOKEN));
      });
    }
  });
});
