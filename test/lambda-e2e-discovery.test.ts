/**
 * Discovery through the real handler (createHandler, as Lambda runs it): `{ "discover": true }`
 * lists and describes EKS clusters against the scripted EKS endpoint (testkit/eks-server.ts: paged
 * ListClusters, tags, throttling, a cluster deleted mid-run), in the function's account and in
 * another through its role (testkit/sts-server.ts), remembers them in the state table (dynalite),
 * and announces each change once by a NOTICE (local SNS). A discovered cluster is then checked by
 * `{ "cluster": NAME }` exactly as a listed one: its endpoint is a simulated cluster over HTTPS
 * that takes the EKS token the function signs, and the fleet's dispatcher sends it its `{ cluster }`
 * check. A deleted cluster is announced once and never paged, even when its API server stops
 * answering before discovery's next run: EKS is asked before its WATCHDOG (one still ACTIVE, or
 * that EKS cannot describe, pages).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { type SimServer, startSimServer } from '../sim/server.js';
import { type EksServer, startEksServer } from '../testkit/eks-server.js';
import type { ReceivedMessage } from '../testkit/sns-deliveries.js';
import { type StsServer, startStsServer } from '../testkit/sts-server.js';
import {
  type Harness,
  kindOf,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

const ROLE = 'arn:aws:iam::210987654321:role/lease-watchdog-discovery';
const FUNCTION_ROLE = 'arn:aws:iam::123456789012:role/lease-watchdog-fn';
const OWN = '123456789012';
const OTHER = '210987654321';
const ON = { 'lease-watchdog': 'on' };

/** The JSON document of a notification-topic message. */
function documentOf(message: ReceivedMessage): {
  cluster: string;
  kind: string;
  notice?: { topic: string; change?: string; message: string; advice?: string };
} {
  return JSON.parse(message.structure?.sqs ?? '{}');
}

describe('lambda e2e: discovered clusters appear, are watched, vanish', () => {
  let h: Harness;
  let eks: EksServer;
  let sts: StsServer;
  let api: SimServer;
  let seen = 0;
  /** The messages SNS accepted since the last call. */
  const fresh = () => {
    const all = h.messages();
    const since = all.slice(seen);
    seen = all.length;
    return since;
  };

  before(async () => {
    sts = await startStsServer();
    sts.allow(ROLE);
    eks = await startEksServer({}, { accountOf: (key) => (key.startsWith('ASIA') ? OTHER : OWN) });
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 3 } },
      settings: {
        discover: { regions: ['eu-west-1'], accounts: [{ roleArn: ROLE }], tags: ON },
      },
      eksEndpoint: eks.url,
      eksMaxAttempts: 3,
      stsEndpoint: sts.url,
      functionRoleArn: FUNCTION_ROLE,
      withLooks: true,
      withDispatch: true,
    });
    // The discovered cluster's API server: a simulated cluster that takes EKS tokens.
    const sim = new SimCluster({ now: h.clock.now, seed: 5 });
    sim.addNodes(4, { zones: ['eu-west-1a', 'eu-west-1b'] });
    api = await startSimServer({ cluster: sim, acceptsToken: (t) => t.startsWith('k8s-aws-v1.') });
    const reachable = {
      endpoint: api.url,
      caData: Buffer.from(api.caPem).toString('base64'),
      region: 'eu-west-1',
    };
    eks.put('payments', {
      ...reachable,
      account: OWN,
      tags: { ...ON, 'lease-watchdog/runbook-url': 'https://wiki.example.com/payments' },
    });
    eks.put('legacy', { ...reachable, account: OWN, tags: {} });
    eks.put('prod', { ...reachable, account: OWN, tags: ON });
    eks.put('newborn', { ...reachable, account: OWN, status: 'CREATING', tags: ON });
    eks.put('theirs', { ...reachable, account: OTHER, tags: ON });
  });
  after(async () => {
    await h.close();
    await Promise.all([eks.close(), sts.close(), api.close()]);
  });

  it('a cluster that appears is announced once, with the one command that lets the watchdog in', async () => {
    const report = await h.run({ discover: true });
    const notices = fresh();
    assert.deepEqual(
      notices.map((m) => [kindOf(m), m.subject]),
      [
        ['NOTICE', '[payments] NOTICE: discovered, watched from now on'],
        ['NOTICE', '[theirs] NOTICE: discovered, watched from now on'],
      ],
      summary(notices),
    );
    const [own, theirs] = notices.map(documentOf);
    assert.equal(own?.notice?.change, 'appeared');
    assert.equal(
      own?.notice?.advice,
      `unless the watchdog already has access: aws eks create-access-entry --cluster-name payments --region eu-west-1 --principal-arn ${FUNCTION_ROLE} --kubernetes-groups lease-watchdog && kubectl apply -f deploy/rbac.yaml (in that cluster: group lease-watchdog)`,
    );
    // In another account, the role the watchdog reads it as is the principal.
    assert.match(theirs?.notice?.advice ?? '', new RegExp(`--principal-arn ${ROLE} `));
    assert.equal(report.discovery?.watched, 2);

    // Announced once: the next run finds the same set and says nothing.
    await h.tick({ discover: true });
    assert.deepEqual(fresh(), []);
  });

  it('a discovered cluster is checked by { cluster } like a listed one; a listed one of its name wins', async () => {
    const requests = api.stats.requests;
    const report = await h.run({ cluster: 'payments' });
    assert.deepEqual(
      report.clusters.map((c) => [c.cluster, c.lastStatus, c.checks]),
      [['payments', 'checked', 1]],
    );
    assert.ok(api.stats.requests > requests, 'the simulated cluster was read with the EKS token');
    // The listed `prod` wins over the discovered one of the same name: read with its own token.
    const prod = await h.run({ cluster: 'prod' });
    assert.equal(prod.clusters[0]?.lastStatus, 'checked');
    assert.equal(h.target('prod').server.stats.requests > 0, true);
  });

  it('a { dispatch } run sends each discovered cluster its { cluster } check; a listed one of its name wins', async () => {
    const looks = h.looks as NonNullable<Harness['looks']>;
    const report = await h.run({ dispatch: { periodSeconds: 60 } });
    // `dispatch` is not set: the listed `prod` keeps its schedule, and shadows the discovered one.
    assert.deepEqual(looks.checks.map((c) => c.cluster).sort(), ['payments', 'theirs']);
    assert.equal(report.dispatch?.dispatched, 2);
    // Delivered as the queue delivers it: the check runs in an invocation of its own.
    const checked = () =>
      h.logger.entries.filter(
        (e) => e.message === 'cluster checked' && e.fields.cluster === 'payments',
      ).length;
    const before = checked();
    await h.advanceTo(h.clock.now() + 15_000);
    assert.ok(checked() > before, 'the dispatched check of payments ran');
    assert.deepEqual(fresh(), []);
  });

  it('paged and throttled ListClusters; a cluster that becomes ACTIVE appears, a bad tag is named', async () => {
    // 101 clusters of ours: two pages.
    for (let i = 0; i < 96; i++) eks.put(`batch-${i}`, { region: 'eu-west-1', account: OWN });
    eks.put('newborn', {
      endpoint: api.url,
      caData: Buffer.from(api.caPem).toString('base64'),
      region: 'eu-west-1',
      account: OWN,
      tags: { ...ON, 'lease-watchdog/runbook-url': 'http://wiki.example.com/newborn' },
    });
    // Created and deleted within one run: listed, then gone before it is described.
    eks.put('short-lived', { region: 'eu-west-1', account: OWN, tags: ON });
    eks.deleteAfterList('short-lived');
    eks.throttleNext(1);
    const lists = eks.listCalls;
    await h.tick({ discover: true });
    assert.ok(eks.listCalls - lists >= 3, 'ListClusters paged (two pages of ours, one of theirs)');
    const notices = fresh();
    assert.deepEqual(
      notices.map((m) => m.subject),
      ['[newborn] NOTICE: discovered, watched from now on', '[newborn] NOTICE: a tag was ignored'],
      summary(notices),
    );
    assert.equal(
      documentOf(notices[1] as ReceivedMessage).notice?.message,
      'tag lease-watchdog/runbook-url must be an https:// URL of at most 1000 characters, e.g. https://wiki.example.com/runbooks/node-down (got "http://wiki.example.com/newborn")',
    );
    // One page again: the runs that follow describe a few clusters, not a hundred.
    for (let i = 0; i < 96; i++) eks.remove(`batch-${i}`);
  });

  it('a scope that cannot be searched fails the run and takes nothing for deleted', async () => {
    eks.denyAll(true);
    try {
      await assert.rejects(h.tick({ discover: true }), /could not search 2 of 2 scopes/);
    } finally {
      eks.denyAll(false);
    }
    assert.deepEqual(fresh(), []);
    const report = await h.run({ cluster: 'payments' });
    assert.equal(report.clusters[0]?.lastStatus, 'checked');
  });

  it('a deleted cluster: one NOTICE, never a WATCHDOG; one that stops matching is dropped', async () => {
    eks.remove('payments');
    eks.put('newborn', { region: 'eu-west-1', account: OWN, tags: { 'lease-watchdog': 'off' } });
    await h.tick({ discover: true });
    const notices = fresh();
    assert.deepEqual(
      notices.map((m) => [m.subject, documentOf(m).notice?.change]),
      [
        ['[newborn] NOTICE: no longer matches discovery, no longer watched', 'dropped'],
        ['[payments] NOTICE: deleted, no longer watched', 'deleted'],
      ],
      summary(notices),
    );
    // A check asked for it (a look queued before) checks nothing and pages nothing.
    for (let i = 0; i < 3; i++) {
      const report = await h.tick({ cluster: 'payments' });
      assert.deepEqual(report.clusters, []);
    }
    await h.tick({ discover: true });
    assert.deepEqual(fresh(), [], 'announced once');
    assert.equal(h.messages('WATCHDOG').length, 0);
  });

  it('a discovered cluster deleted between discovery runs, its API down: one deleted NOTICE, no WATCHDOG; one EKS still has, or cannot describe, pages', async () => {
    // Their API servers refuse every connection (port 1); EKS lists them, ACTIVE.
    const down = {
      endpoint: 'https://127.0.0.1:1',
      caData: Buffer.from(api.caPem).toString('base64'),
      region: 'eu-west-1',
      account: OWN,
      tags: ON,
    };
    const names = ['doomed', 'dying', 'dark', 'blind'];
    for (const name of names) eks.put(name, down);
    await h.tick({ discover: true });
    assert.equal(fresh().length, 4, 'four appeared');
    const checkAll = async (blind: boolean) => {
      for (const name of names) {
        eks.denyAll(blind && name === 'blind'); // EKS cannot say whether `blind` still exists
        await h.run({ cluster: name }).finally(() => eks.denyAll(false));
      }
    };
    // A failed read each (unreachable: silent within the grace period, 50 s) ...
    await checkAll(false);
    // ... then, between discovery's runs, `doomed` is deleted and `dying` is being deleted, while
    // `dark` and `blind` stay; the next failed reads are past the grace period.
    eks.remove('doomed');
    eks.put('dying', { ...down, status: 'DELETING' });
    h.clock.advance(60_000);
    await checkAll(true);
    const notices = fresh();
    assert.deepEqual(
      notices.map((m) => `${kindOf(m)} ${documentOf(m).cluster} ${documentOf(m).notice?.change}`),
      [
        'NOTICE doomed deleted',
        'NOTICE dying deleted',
        'WATCHDOG dark undefined',
        'WATCHDOG blind undefined',
      ],
      summary(notices),
    );
    // Said once: discovery's next run finds them gone and says nothing more; nothing checks them.
    await h.tick({ discover: true });
    assert.deepEqual(fresh(), []);
    assert.deepEqual((await h.run({ cluster: 'doomed' })).clusters, []);
  });
});
