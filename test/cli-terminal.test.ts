/**
 * Nothing a cluster says reaches the terminal raw: names that are not DNS-1123 subdomains are
 * quoted and escaped, a Node's Ready reason and message, Status messages in errors and `watch`
 * lines have their control and escape characters escaped. Through run(), against a tiny local
 * HTTPS API server that answers with hostile text.
 */

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { run } from '../cli/main.js';
import { LEASES_PATH, sendJson, startTinyApi, type TinyApi } from '../testkit/tiny-api.js';

const ESC = '\u001b';
const CLEAR = `${ESC}[2J${ESC}[H`;
// Control characters (C0 except nothing, DEL, C1) and bidi overrides: none may reach a terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting them is the point.
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

async function runCli(argv: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await run(argv, {
    stdout: (t) => stdout.push(t),
    stderr: (t) => stderr.push(t),
    env: {},
    now: Date.now,
    signal: new AbortController().signal,
  });
  return { code, out: stdout.join('\n'), err: stderr.join('\n') };
}

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
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    tiny = await startTinyApi();
    dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-term-'));
    kubeconfig = join(dir, 'kubeconfig');
    await tiny.writeKubeconfig(kubeconfig);
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
    await rm(dir, { recursive: true, force: true });
  });

  it('check: the table escapes names and the Ready reason and message', async () => {
    const result = await runCli(['check', '--kubeconfig', kubeconfig]);
    assert.equal(result.code, 1, result.err);
    assert.doesNotMatch(result.out + result.err, RAW);
    assert.match(result.out, /^ok-1 /m, 'a valid name is shown as is');
    assert.match(result.out, /^"evil\\x1b\[2J\\x1b\[Hnode\\u\{202e\}" /m);
    assert.match(result.out, new RegExp(`^"n${'x'.repeat(252)}…" `, 'm'), 'cut at 253');
    assert.match(result.out, /Kubelet\\x1b\]0;pwned\\x1b\\\\/);
  });

  it('check -o json stays JSON, with the raw names', async () => {
    const result = await runCli(['check', '--kubeconfig', kubeconfig, '-o', 'json']);
    assert.doesNotMatch(result.out, RAW);
    const parsed = JSON.parse(result.out) as { nodes: { name: string }[] };
    assert.ok(parsed.nodes.some((n) => n.name === HOSTILE));
  });

  it('watch: its lines escape names and reasons', async () => {
    const result = await runCli(['watch', '--kubeconfig', kubeconfig, '--checks', '1']);
    assert.doesNotMatch(result.out + result.err, RAW);
    assert.match(result.out, /! sick {2}not-ready/);
  });

  it('an error quoting a Status message escapes it', async () => {
    tiny.serve((_req, res) =>
      sendJson(res, { kind: 'Status', code: 503, message: `etcd ${CLEAR}is fine` }, 503),
    );
    const result = await runCli(['check', '--kubeconfig', kubeconfig]);
    assert.equal(result.code, 2);
    assert.doesNotMatch(result.err, RAW);
    assert.match(result.err, /etcd \\x1b\[2J\\x1b\[His fine/);
  });
});
