/**
 * What discovery watches under a name, through the real handler (createHandler) against
 * the scripted EKS endpoint (testkit/eks-server.ts) and simulated clusters over HTTPS: a cluster
 * is its ARN and creation time, not its name. Another cluster tagged with a watched name never
 * takes the watched one's place (nor is the watched one's state judged against its nodes); a
 * cluster deleted and created again under its name is a new cluster (announced, let in again,
 * checked from a state of its own); a deletion that a check and a discovery run find at once is
 * announced once; and tags that change what is watched are announced, an exclude selector that
 * would exclude every node refused.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { type SimServer, startSimServer } from '../sim/server.js';
import { type EksServer, startEksServer } from '../testkit/eks-server.js';
import type { ReceivedMessage } from '../testkit/sns-deliveries.js';
import {
  type Harness,
  kindOf,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

const FUNCTION_ROLE = 'arn:aws:iam::123456789012:role/lease-watchdog-fn';
const ON = { 'lease-watchdog': 'on' };

/** `KIND cluster change`: what each message says, in order. */
function said(messages: readonly ReceivedMessage[]): string[] {
  return messages.map((m) => {
    const doc = JSON.parse(m.structure?.sqs ?? '{}') as {
      cluster: string;
      notice?: { change?: string };
    };
    return `${kindOf(m)} ${doc.cluster}${doc.notice?.change ? ` ${doc.notice.change}` : ''}`;
  });
}

describe('lambda e2e: a discovered cluster is its ARN and creation time, not its name', () => {
  let h: Harness;
  let eks: EksServer;
  const apis: SimServer[] = [];
  let seen = 0;
  const fresh = () => {
    const all = h.messages();
    const since = all.slice(seen);
    seen = all.length;
    return since;
  };
  /** A simulated cluster of `nodes` nodes, reachable with the EKS token the function signs. */
  const cluster = async (seed: number, nodes = 4) => {
    const sim = new SimCluster({ now: h.clock.now, seed });
    sim.addNodes(nodes, { zones: ['eu-west-1a', 'eu-west-1b'] });
    const api = await startSimServer({
      cluster: sim,
      acceptsToken: (t) => t.startsWith('k8s-aws-v1.'),
    });
    apis.push(api);
    const at = {
      endpoint: api.url,
      caData: Buffer.from(api.caPem).toString('base64'),
      region: 'eu-west-1',
    };
    return { sim, at, node: sim.sortedNodeNames()[0] as string };
  };

  before(async () => {
    eks = await startEksServer();
    h = await startWatchdogHarness({
      clusters: { listed: { nodes: 1 } },
      settings: { discover: { regions: ['eu-west-1'], tags: ON, grantAccess: true } },
      eksEndpoint: eks.url,
      eksMaxAttempts: 1,
      functionRoleArn: FUNCTION_ROLE,
    });
  });
  afterEach(() => {
    fresh();
  });
  after(async () => {
    await h.close();
    await eks.close();
    await Promise.all(apis.map((api) => api.close()));
  });

  it("a cluster tagged with a watched name never takes it over: one same-name NOTICE, the watched one's down node stays down", async () => {
    const zeta = await cluster(11);
    eks.put('zeta', { ...zeta.at, tags: ON });
    await h.tick({ discover: true });
    assert.deepEqual(said(fresh()), ['NOTICE zeta appeared']);
    zeta.sim.stopKubelet(zeta.node);
    for (let i = 0; i < 3; i++) await h.tick({ cluster: 'zeta' });
    assert.deepEqual(said(fresh()), ['FIRING zeta']);

    // Another cluster, found earlier in ListClusters' order, is tagged with the watched name.
    const other = await cluster(12);
    eks.put('aaa-impostor', { ...other.at, tags: { ...ON, 'lease-watchdog/name': 'zeta' } });
    await h.tick({ discover: true });
    const conflict = fresh();
    assert.deepEqual(said(conflict), ['NOTICE zeta same-name'], summary(conflict));
    assert.match(
      conflict[0]?.message ?? '',
      /only arn:aws:eks:eu-west-1:123456789012:cluster\/zeta is watched/,
    );
    for (let i = 0; i < 2; i++) await h.tick({ cluster: 'zeta' });
    await h.tick({ discover: true });
    assert.deepEqual(
      said(fresh()),
      [],
      'no RESOLVED from the other cluster; the conflict said once',
    );
    const reads = other.sim;
    assert.equal(reads.kubeletAlive(other.node), true);
    eks.remove('aaa-impostor');
    zeta.sim.startKubelet(zeta.node);
    await h.tick({ cluster: 'zeta' });
    assert.deepEqual(said(fresh()), ['RESOLVED zeta'], 'the real node, seen renewed');
  });

  it('deleted and created again under its name: announced and let in again, checked from a state of its own', async () => {
    const old = await cluster(21);
    eks.put('phoenix', { ...old.at, tags: ON, createdAt: 1_767_225_600 });
    await h.tick({ discover: true });
    assert.deepEqual(said(fresh()), ['NOTICE phoenix appeared']);
    const entry = `phoenix ${FUNCTION_ROLE}`;
    // In the group deploy/rbac.yaml binds, no access policy (AmazonEKSAdminViewPolicy reads Secrets).
    assert.deepEqual(eks.accessEntries.get(entry), ['group:lease-watchdog'], 'access granted');
    old.sim.stopKubelet(old.node);
    for (let i = 0; i < 3; i++) await h.tick({ cluster: 'phoenix' });
    assert.deepEqual(said(fresh()), ['FIRING phoenix']);

    // Deleted (its access entry with it) and created again between two discovery runs.
    eks.remove('phoenix');
    const reborn = await cluster(22);
    eks.put('phoenix', { ...reborn.at, tags: ON, createdAt: 1_767_312_000 });
    // Before discovery's next run, a container that has not described it yet checks it: it reads
    // not the new cluster with the old one's state, but finds the one watched deleted.
    const cold = h.container();
    for (let i = 0; i < 2; i++) {
      h.clock.advance(60_000);
      await cold.invoke({ cluster: 'phoenix' });
    }
    cold.destroy();
    assert.deepEqual(said(fresh()), ['NOTICE phoenix deleted']);
    await h.tick({ discover: true });
    assert.deepEqual(said(fresh()), ['NOTICE phoenix appeared'], 'a new cluster');
    assert.deepEqual(eks.accessEntries.get(entry), ['group:lease-watchdog'], 'granted again');
    for (let i = 0; i < 2; i++) await h.tick({ cluster: 'phoenix' });
    assert.deepEqual(said(fresh()), [], "no RESOLVED (node-deleted) of the old cluster's node");
  });

  it('a deletion found by a check while a discovery run finds it too: one deleted NOTICE', async () => {
    const down = {
      endpoint: 'https://127.0.0.1:1',
      caData: Buffer.from(apis[0]?.caPem ?? '').toString('base64'),
      region: 'eu-west-1',
      tags: ON,
    };
    eks.put('doomed', down);
    await h.tick({ discover: true });
    assert.deepEqual(said(fresh()), ['NOTICE doomed appeared']);
    await h.run({ cluster: 'doomed' }); // unreadable, within the grace period
    eks.remove('doomed');
    h.clock.advance(60_000);
    // The check asks EKS whether it is deleted; EKS answers only after a discovery run, in another
    // container, has found it gone and announced it.
    const held = eks.hold('doomed');
    const check = h.run({ cluster: 'doomed' });
    await held.reached;
    const other = h.container();
    await other.invoke({ discover: true }).finally(() => other.destroy());
    held.release();
    await check;
    const notices = fresh();
    assert.deepEqual(said(notices), ['NOTICE doomed deleted'], summary(notices));
    await h.tick({ discover: true });
    assert.deepEqual(said(fresh()), []);
  });

  it('tags that change what is watched: announced once; an exclude selector of every node refused, the node still paged', async () => {
    const c = await cluster(31);
    eks.put('tagged', { ...c.at, tags: ON });
    await h.tick({ discover: true });
    assert.deepEqual(said(fresh()), ['NOTICE tagged appeared']);
    const excluding = (selector: string) =>
      eks.put('tagged', { ...c.at, tags: { ...ON, 'lease-watchdog/exclude-selector': selector } });
    excluding('lease-watchdog.io/ignore');
    await h.tick({ discover: true });
    const changed = fresh();
    assert.deepEqual(said(changed), ['NOTICE tagged settings-changed'], summary(changed));
    const doc = JSON.parse(changed[0]?.structure?.sqs ?? '{}');
    assert.equal(doc.severity, 'warning');
    assert.equal(
      doc.notice.message,
      "the tags of EKS cluster 'tagged' in eu-west-1 changed what is watched: namespace kube-node-lease, exclude-selector lease-watchdog.io/ignore, runbook-url none (was namespace kube-node-lease, exclude-selector none, runbook-url none)",
    );
    await h.tick({ discover: true });
    assert.deepEqual(said(fresh()), [], 'said once');

    // Every node carries kubernetes.io/hostname: the tag is refused (and said), its default holds.
    excluding('kubernetes.io/hostname');
    await h.tick({ discover: true });
    const refused = fresh();
    assert.deepEqual(said(refused), [
      'NOTICE tagged tag-invalid',
      'NOTICE tagged settings-changed',
    ]);
    assert.match(refused[0]?.message ?? '', /exclude-selector excludes every node/);
    c.sim.stopKubelet(c.node);
    for (let i = 0; i < 3; i++) await h.tick({ cluster: 'tagged' });
    assert.deepEqual(said(fresh()), ['FIRING tagged'], 'paged, not excluded');
  });
});
