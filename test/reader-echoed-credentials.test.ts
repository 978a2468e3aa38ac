/**
 * A gateway in front of the API server that echoes the request's Authorization header in its
 * error text (testkit/hostile-front.ts, `echoes-credentials`): the reader quotes the API server's
 * words, never the credentials in them. Through the handler `createHandler` builds (the WATCHDOG
 * email, the JSON document, the stored state, the logs) and the command (stderr, JSON output),
 * for a bearer token and a Basic password, as an error status and as a 200 that is no list.
 */

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { SimCluster } from '../sim/cluster.js';
import { renderKubeconfig } from '../sim/kubeconfig.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { type HostileFront, startHostileFront } from '../testkit/hostile-front.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';
import { type Harness, kindOf, startWatchdogHarness } from '../testkit/watchdog-harness.js';

/** Fails when `text` holds `secret`, or the first 10 characters of it (a quote cut mid-way). */
function assertNoSecret(text: string, secret: string, where: string): void {
  assert.ok(!text.includes(secret), `${where} holds the credential`);
  assert.ok(!text.includes(secret.slice(0, 10)), `${where} holds the start of the credential`);
}

/** Padded by 160 characters, the token straddles where a quoted message is cut (300). */
const ECHOES = [
  { what: 'an error status', answer: { kind: 'echoes-credentials', status: 503, pad: 0 } },
  { what: 'an error status, cut', answer: { kind: 'echoes-credentials', status: 503, pad: 160 } },
  { what: 'a 200 that is no list', answer: { kind: 'echoes-credentials', status: 200, pad: 0 } },
] as const;

describe('echoed credentials, through the handler', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 3, front: true } },
      requestTimeoutSeconds: 1,
    });
    await h.run();
  });
  after(() => h.close());

  for (const { what, answer } of ECHOES) {
    it(`${what}: a WATCHDOG that quotes the gateway, never the token`, async () => {
      const t = h.target('prod');
      const before = h.sns.messages.length;
      t.front?.setAnswer(answer);
      try {
        for (let i = 0; i < 3; i++) await h.tick();
      } finally {
        t.front?.setAnswer(null);
      }
      const sent = h.sns.messages.slice(before);
      assert.deepEqual(sent.map(kindOf), ['WATCHDOG']);
      assert.match(sent[0]?.message ?? '', /gateway: upstream refused/, 'the gateway is quoted');
      const state = await h.dynamo.client.send(new ScanCommand({ TableName: h.tableName }));
      assertNoSecret(JSON.stringify(sent), t.server.token, 'the email and the document');
      assertNoSecret(JSON.stringify(state.Items), t.server.token, 'the stored state');
      assertNoSecret(JSON.stringify(h.logger.entries), t.server.token, 'the logs');
      await h.tick();
      await h.tick();
    });
  }
});

describe('echoed credentials, through the command', () => {
  let sim: SimFixture;
  let front: HostileFront;
  const PASSWORD = 'basic-pa55word-never-shown';
  const kubeconfigWith = async (file: string, user: 'token' | 'basic') => {
    let text = renderKubeconfig({ server: front.url, caPem: front.caPem, token: sim.server.token });
    if (user === 'basic') {
      text = text.replace(/^( +)token: .*$/m, `$1username: "admin"\n$1password: "${PASSWORD}"`);
    }
    const path = join(sim.dir, file);
    await writeFile(path, text);
    return path;
  };
  before(async () => {
    const cluster = new SimCluster({ seed: 8 });
    cluster.addNodes(3, { zones: ['eu-west-1a'] });
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-echo' });
    front = await startHostileFront(sim.server.url, sim.server.caPem);
  });
  after(async () => {
    await front.close();
    await sim.close();
  });

  for (const { what, answer } of ECHOES) {
    it(`${what}: stderr and the JSON output quote the gateway, never the token or password`, async () => {
      front.setAnswer(answer);
      for (const user of ['token', 'basic'] as const) {
        const kubeconfig = await kubeconfigWith(`echo-${user}`, user);
        const result = await runInProcess(['check', '--kubeconfig', kubeconfig, '-o', 'json']);
        assert.equal(result.code, 2, result.stderr);
        assert.match(result.stderr, /gateway: upstream refused/, 'the gateway is quoted');
        const out = result.stdout + result.stderr;
        assertNoSecret(out, sim.server.token, `${user}: the output`);
        assertNoSecret(out, PASSWORD, `${user}: the output`);
        assertNoSecret(out, Buffer.from(`admin:${PASSWORD}`).toString('base64'), user);
      }
    });
  }
});
