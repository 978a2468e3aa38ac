/**
 * Nothing a cluster says reaches the terminal raw: names that are not DNS-1123 subdomains are
 * quoted and escaped, a Node's Ready reason and message, Status messages in errors and `watch`
 * lines have their control and escape characters escaped. Through run(), against a tiny local
 * HTTPS API server that answers with hostile text.
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runInProcess as runCli } from '../testkit/cli-in-process.js';
import { type TempKubeconfig, tempKubeconfig } from '../testkit/sim-fixture.js';
import { LEASES_PATH, sendJson, startTinyApi, type TinyApi } from '../testkit/tiny-api.js';

const ESC = '\u001b';
const CLEAR = `${ESC}[2J${ESC}[H`;
// Control characters (C0 except nothing, DEL, C1) and bidi overrides: none may reach a terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting them is the point.
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const HOSTILE = `evil${CLEAR}node\u202e`;
const LONG = `n${'x'.repeat(300)}`;

function lease(name: string, renewTime = new Date().toISOString()) {
  return { metadata: { name }, spec: { renewTime, leaseDurationSeconds: 40 } };
}
function node(name: string, ready: 'True' | 'False', reason = '', message = '') {
  return {
    kind: 'Node',
    metadata: { name, labels: {}, creationTimestamp: '2020-01-01T00:00:00Z' },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: ready, reason, message }] },
  };
}

describe('terminal output is sanitised', () => {
  let tiny: TinyApi;
  let files: TempKubeconfig;
  let kubeconfig: string;

  before(async () => {
    tiny = await startTinyApi();
    files = await tempKubeconfig(tiny, 'lease-watchdog-term');
    kubeconfig = files.kubeconfig;
    tiny.serve((req, res) => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      if (path === LEASES_PATH) {
        return sendJson(res, {
          kind: 'LeaseList',
          items: [lease('ok-1'), lease(HOSTILE), lease(LONG), lease('sick')],
        });
      }
      if (path === '/api/v1/nodes') {
        return sendJson(res, {
          kind: 'NodeList',
          items: [
            node('ok-1', 'True'),
            node(HOSTILE, 'True'),
            node(LONG, 'True'),
            node('sick', 'False', `Kubelet${ESC}]0;pwned${ESC}\\`, `down\r\n${CLEAR}all good`),
          ],
        });
      }
      return sendJson(res, { kind: 'Status', code: 404 }, 404);
    });
  });
  after(async () => {
    await tiny.close();
    await files.remove();
  });

  it('check: the table escapes names and the Ready reason and message', async () => {
    const result = await runCli(['check', '--kubeconfig', kubeconfig]);
    assert.equal(result.code, 1, result.stderr);
    assert.doesNotMatch(result.stdout + result.stderr, RAW);
    assert.match(result.stdout, /^ok-1 /m, 'a valid name is shown as is');
    assert.match(result.stdout, /^"evil\\x1b\[2J\\x1b\[Hnode\\u\{202e\}" /m);
    // Longer than Kubernetes allows: cut where it was read (its first 200 characters, … and a
    // hash of the whole) and reported invalid (lambda/adapters/kube/decode/projection.ts).
    assert.match(
      result.stdout,
      new RegExp(`^"n${'x'.repeat(199)}…[0-9a-f]{12}" +invalid `, 'm'),
      'cut, and invalid',
    );
    assert.match(result.stdout, /Kubelet\\x1b\]0;pwned\\x1b\\\\/);
  });

  it('check -o json stays JSON, with the raw names', async () => {
    const result = await runCli(['check', '--kubeconfig', kubeconfig, '-o', 'json']);
    assert.doesNotMatch(result.stdout, RAW);
    const parsed = JSON.parse(result.stdout) as { nodes: { name: string }[] };
    assert.ok(parsed.nodes.some((n) => n.name === HOSTILE));
  });

  it('watch: its lines escape names and reasons', async () => {
    const result = await runCli(['watch', '--kubeconfig', kubeconfig, '--checks', '1']);
    assert.doesNotMatch(result.stdout + result.stderr, RAW);
    assert.match(result.stdout, /! sick {2}not-ready/);
  });

  it("watch: the email's kubectl commands name the context it reads through, the current one", async () => {
    const args = ['watch', '--kubeconfig', kubeconfig, '--checks', '2', '--interval', '1'];
    const result = await runCli(args);
    const commands = result.stdout.split('\n').filter((line) => /^ {2}kubectl /.test(line));
    assert.ok(commands.length > 0, result.stdout);
    for (const line of commands) assert.match(line, /^ {2}kubectl --context tiny /);
    assert.doesNotMatch(result.stdout, /^ {2}# /m, 'a context it knows needs no comment');
  });

  it('an error quoting a Status message escapes it', async () => {
    tiny.serve((_req, res) =>
      sendJson(res, { kind: 'Status', code: 503, message: `etcd ${CLEAR}is fine` }, 503),
    );
    const result = await runCli(['check', '--kubeconfig', kubeconfig]);
    assert.equal(result.code, 2);
    assert.doesNotMatch(result.stderr, RAW);
    assert.match(result.stderr, /etcd \\x1b\[2J\\x1b\[His fine/);
  });
});
