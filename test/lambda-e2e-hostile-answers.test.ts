/**
 * The newer read failures through the real handler (tested at the reader and the CLI elsewhere):
 * a 200 that is not a list, a cycling continue token, a page over the byte cap, no Leases while
 * Nodes exist (a wrong namespace), and Secrets Manager throttling the token. Each cluster first
 * has a node down (a FIRING), then the API turns hostile: the invocation resolves, nothing is
 * FIRING or RESOLVED on the strength of the bad answer, every failed check counts in
 * ClusterReadFailures from the first, and one WATCHDOG pages on the second failed check in a row
 * (readFailuresBeforePage, default 2). Scripted API servers (testkit/tiny-api.ts) on the
 * harness's fake clock; the simulated cluster for the throttled secret.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  LEASES_PATH,
  sendJson,
  startTinyApi,
  TINY_TOKEN,
  type TinyApi,
} from '../testkit/tiny-api.js';
import {
  type FakeClock,
  type Harness,
  kindOf,
  startWatchdogHarness,
  summary,
  T0,
} from '../testkit/watchdog-harness.js';

type Answer = (res: ServerResponse, continueToken: string | null) => void;

/** MicroTime, as kubelets write it. */
function micro(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -1)}000Z`;
}

/**
 * A two-node cluster on the fake clock: `live` renews every check, `dead` went silent before the
 * first check. `leases` (when set) replaces the answer to the lease list.
 */
class ScriptedApi {
  leases: Answer | null = null;
  constructor(
    readonly tiny: TinyApi,
    private readonly clock: FakeClock,
  ) {
    tiny.serve((req, res) => this.answer(req, res));
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'https://x');
    res.setHeader('date', new Date(this.clock.now()).toUTCString());
    if (url.pathname === LEASES_PATH && this.leases) {
      this.leases(res, url.searchParams.get('continue'));
    } else if (url.pathname === LEASES_PATH) {
      sendJson(res, {
        kind: 'LeaseList',
        metadata: {},
        items: [lease('live', micro(this.clock.now() - 1_000)), lease('dead', micro(T0 - 120_000))],
      });
    } else if (url.pathname === '/api/v1/nodes') {
      sendJson(res, { kind: 'NodeList', metadata: {}, items: [node('live'), node('dead')] });
    } else if (url.pathname.startsWith('/api/v1/nodes/')) {
      sendJson(res, node(url.pathname.slice('/api/v1/nodes/'.length)));
    } else {
      sendJson(res, { kind: 'Status', code: 404, reason: 'NotFound' }, 404);
    }
  }
}

function lease(name: string, renewTime: string) {
  return {
    metadata: { name, namespace: 'kube-node-lease' },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
  };
}

function node(name: string) {
  return {
    kind: 'Node',
    metadata: { name, creationTimestamp: '2026-11-01T08:00:00Z', labels: {} },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] },
  };
}

const CASES: { name: string; failure: string; leases: Answer }[] = [
  {
    name: 'a 200 that is not a list',
    failure: 'invalid-response',
    leases: (res) => sendJson(res, {}),
  },
  {
    name: 'continue tokens cycling a → b → a',
    failure: 'invalid-response',
    leases: (res, token) =>
      sendJson(res, {
        kind: 'LeaseList',
        metadata: { continue: token === 'a' ? 'b' : 'a' },
        items: [lease(`l-${token}`, micro(T0))],
      }),
  },
  {
    name: 'a page over the byte cap (64 MiB)',
    failure: 'invalid-response',
    leases: (res) => {
      const size = 70 * 1024 * 1024;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': size });
      // Written on demand, stopped once the reader hangs up: the test never holds 70 MiB.
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let written = 0;
      const more = (): void => {
        while (written < size && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', more);
            return;
          }
        }
        if (written >= size) res.end();
      };
      res.write('{"kind":"LeaseList","items":[');
      more();
    },
  },
  {
    name: 'no Leases while Nodes exist (a wrong namespace)',
    failure: 'config',
    leases: (res) => sendJson(res, { kind: 'LeaseList', metadata: {}, items: [] }),
  },
];

describe('lambda e2e: hostile answers and a throttled secret', () => {
  let h: Harness;
  const apis = new Map<string, ScriptedApi>();
  const tinies: TinyApi[] = [];
  const clusterOf = (i: number) => `hostile-${i}`;

  before(async () => {
    for (const _ of CASES) tinies.push(await startTinyApi());
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 3 } },
      scriptedClusters: Object.fromEntries(
        tinies.map((tiny, i) => [
          clusterOf(i),
          { url: tiny.url, caPem: tiny.caPem, token: TINY_TOKEN },
        ]),
      ),
      requestTimeoutSeconds: 2,
    });
    tinies.forEach((tiny, i) => {
      apis.set(clusterOf(i), new ScriptedApi(tiny, h.clock));
    });
  });
  after(async () => {
    await h.close();
    await Promise.all(tinies.map((tiny) => tiny.close()));
  });

  /** Checks `cluster` until its dead node has fired; returns the message count then. */
  async function withNodeDown(cluster: string, down: () => void): Promise<number> {
    down();
    for (
      let i = 0;
      i < 4 && !h.messages('FIRING').some((m) => m.subject?.includes(`[${cluster}]`));
      i++
    ) {
      await h.tick({ cluster });
    }
    const fired = h.messages('FIRING').filter((m) => m.subject?.includes(`[${cluster}]`));
    assert.equal(fired.length, 1, `the node down fired first: ${summary(h.sns.messages)}`);
    return h.sns.messages.length;
  }

  /** Three failed checks: counted from the first, one WATCHDOG on the second, nothing else. */
  async function assertConfirmedWatchdog(
    cluster: string,
    before: number,
    failure: string,
    invoke: () => Promise<{ clusters: { lastStatus: string }[] }>,
  ): Promise<void> {
    const mark = h.metrics.mark();
    const statuses: string[] = [];
    const kindsAfter: string[][] = [];
    for (let i = 0; i < 3; i++) {
      h.clock.advance(60_000);
      const report = await invoke(); // resolves: a hostile cluster is not a broken watchdog
      statuses.push(report.clusters[0]?.lastStatus ?? '?');
      kindsAfter.push(h.sns.messages.slice(before).map((m) => kindOf(m) ?? '?'));
      assert.equal(h.metrics.countSince(mark, 'ClusterReadFailures', cluster), i + 1);
    }
    assert.deepEqual(statuses, ['unreadable', 'unreadable', 'unreadable']);
    assert.deepEqual(kindsAfter, [[], ['WATCHDOG'], ['WATCHDOG']], summary(h.sns.messages));
    const watchdog = h.sns.messages[before];
    assert.equal(watchdog?.subject, `[${cluster}] WATCHDOG: cannot read cluster (${failure})`);
    assert.equal(h.metrics.countSince(mark, 'CheckSucceeded', cluster), 0);
  }

  CASES.forEach(({ name, failure, leases }, i) => {
    it(`${name}: ${failure}, a WATCHDOG on the second failed check, no FIRING or RESOLVED`, async () => {
      const cluster = clusterOf(i);
      const api = apis.get(cluster);
      assert.ok(api);
      await h.run({ cluster });
      const before = await withNodeDown(cluster, () => undefined);
      api.leases = leases;
      await assertConfirmedWatchdog(cluster, before, failure, () => h.run({ cluster }));
    });
  });

  it('Secrets Manager throttling the token (a cold container): unavailable, confirmed', async () => {
    const target = h.target('prod');
    await h.run({ cluster: 'prod' });
    const before = await withNodeDown('prod', () =>
      target.sim.stopKubelet(target.nodes[0] as string),
    );
    // A new container has no cached token: every fetch is throttled.
    h.secrets.unavailable(target.tokenSecretId, 'throttle');
    const cold = h.container({ metrics: h.metrics });
    await assertConfirmedWatchdog('prod', before, 'unavailable', () =>
      cold.invoke({ cluster: 'prod' }),
    );
    h.secrets.unavailable(target.tokenSecretId, null);
  });
});
