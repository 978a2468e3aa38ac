/**
 * A planned exit is information, not a page, through the real handler: what the simulated API
 * server says of a node (the out-of-service taint, the kubelet's graceful shutdown: Ready=False
 * "node is shutting down" and its Shutdown event) and what the EC2 stand-in says of its instance
 * (terminated or shutting down for a Spot interruption or through the EC2 API, as Auto Scaling
 * does: `StateReason` code and message, as the EC2 API reference documents them). Each is its own
 * cause, logged and counted; none pages, unless it never completes (`stuckRemovalSeconds`). And
 * `check` shows each cause in its table and counts them in its JSON.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { instanceOf } from '../lambda/core/node-verdicts.js';
import { DEFAULTS } from '../lambda/settings/index.js';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { type Ec2Server, startEc2Server } from '../testkit/ec2-server.js';
import { FakeClock } from '../testkit/fake-clock.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';
import {
  type Harness,
  kindOf,
  type SimTarget,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

const LIMIT_MS = DEFAULTS.stuckRemovalSeconds * 1000;
const OUT_OF_SERVICE = { key: 'node.kubernetes.io/out-of-service', effect: 'NoExecute' };

describe('lambda e2e: planned exits are not paged', () => {
  let h: Harness;
  let ec2: Ec2Server;
  let t: SimTarget;
  before(async () => {
    ec2 = await startEc2Server('happy');
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 12 } }, ec2Endpoint: ec2.url });
    t = h.target('prod');
    await h.run();
    await h.tick();
  });
  after(async () => {
    await h.close();
    await ec2.close();
  });

  /** The cause the checks since `mark` logged `node` suppressed by (its reason), if any. */
  function suppressedReason(mark: number, node: string): string | undefined {
    const entry = h.logger.entries
      .slice(mark)
      .findLast(
        (e) =>
          e.message === 'node verdict' &&
          e.fields.node === node &&
          e.fields.verdict === 'suppressed',
      );
    return entry?.fields.reason as string | undefined;
  }

  /** Runs checks until `node` is logged suppressed; the clock then (when the stuck clock starts). */
  async function heldSince(node: string): Promise<number> {
    for (let i = 0; i < 6; i++) {
      const mark = h.logger.entries.length;
      await h.tick();
      if (suppressedReason(mark, node) !== undefined) return h.clock.now();
    }
    assert.fail(`${node} is never judged suppressed: ${summary(h.messages())}`);
  }

  /** Runs checks up to the stuck limit from `heldAt`: nothing before it, one FIRING at it. */
  async function pagesOnceStuck(node: string, heldAt: number, phrase: RegExp): Promise<void> {
    const sent = h.sns.messages.length;
    while (h.clock.now() + 60_000 < heldAt + LIMIT_MS) await h.tick();
    h.clock.advanceTo(heldAt + LIMIT_MS - 1000);
    await h.run();
    assert.equal(h.sns.messages.length, sent, `nothing before the limit: ${summary(h.messages())}`);
    h.clock.advanceTo(heldAt + LIMIT_MS);
    await h.run();
    const fresh = h.sns.messages.slice(sent);
    assert.deepEqual(fresh.map(kindOf), ['FIRING'], summary(h.messages()));
    assert.ok(fresh[0]?.message.includes(node), 'the FIRING names the node');
    assert.match(fresh[0]?.message ?? '', phrase);
  }

  it('the out-of-service taint: suppressed as a planned exit, counted; paged once stuck', async () => {
    const node = t.nodes[0] as string;
    t.sim.addTaint(node, { ...OUT_OF_SERVICE, value: 'nodeshutdown' });
    const mark = h.logger.entries.length;
    t.sim.stopKubelet(node);
    const heldAt = await heldSince(node);
    await h.tick();
    await h.tick();
    assert.equal(h.sns.messages.length, 0, `nothing sent: ${summary(h.messages())}`);
    assert.match(
      suppressedReason(mark, node) ?? '',
      /^planned exit: tainted node\.kubernetes\.io\/out-of-service; no lease renewal/,
    );
    const checked = h.logger.entries.findLast((e) => e.message === 'cluster checked');
    assert.deepEqual(checked?.fields.suppressedBy, { 'out-of-service': 1 });
    await pagesOnceStuck(node, heldAt, /removal seems stuck: tainted out of service and silent/);
    t.sim.deleteNode(node);
    await h.tick();
    h.sns.messages.length = 0;
  });

  it('a graceful shutdown: not paged while the kubelet says so, nor once it is silent', async () => {
    const node = t.nodes[1] as string;
    const mark = h.logger.entries.length;
    t.sim.beginShutdown(node);
    await h.tick();
    assert.match(
      suppressedReason(mark, node) ?? '',
      /^planned exit: the kubelet reported a graceful shutdown \(Ready=False: node is shutting down\); Node reports Ready=False/,
      'while its lease still renews',
    );
    t.sim.stopKubelet(node);
    for (let i = 0; i < 6; i++) await h.tick();
    assert.equal(h.sns.messages.length, 0, `nothing sent: ${summary(h.messages())}`);
    // Silent past the grace, its Ready condition is the node lifecycle controller's Unknown now:
    // the kubelet's Shutdown event (read before the page) says why it went.
    const late = h.logger.entries.length;
    await h.tick();
    assert.match(suppressedReason(late, node) ?? '', /graceful shutdown.*no lease renewal/);
    assert.equal(t.sim.nodeObject(node)?.status?.conditions?.at(-1)?.status, 'Unknown');
    t.sim.deleteNode(node);
    await h.tick();
  });

  it('EC2 says Spot interruption or a termination through the API: not paged; paged once stuck', async () => {
    const [spot, scaledIn, control] = t.nodes.slice(4, 7) as [string, string, string];
    const instance = (node: string) => instanceOf(t.sim.nodeObject(node)?.spec.providerID) ?? '';
    ec2.instances.set(instance(spot), {
      state: 'terminated',
      reasonCode: 'Server.SpotInstanceTermination',
      reasonMessage: 'Server.SpotInstanceTermination: Spot instance termination',
    });
    ec2.instances.set(instance(scaledIn), {
      state: 'shutting-down',
      reasonCode: 'Client.UserInitiatedShutdown',
      reasonMessage: 'Client.UserInitiatedShutdown: User initiated shutdown',
    });
    // The control's instance stopped for a reason that is no planned exit: it pages.
    ec2.instances.set(instance(control), {
      state: 'terminated',
      reasonCode: 'Server.InternalError',
      reasonMessage: 'Server.InternalError: Internal error on launch',
    });
    const sent = h.sns.messages.length;
    const mark = h.logger.entries.length;
    for (const node of [spot, scaledIn, control]) t.sim.stopKubelet(node);
    const heldAt = await heldSince(spot);
    await h.tick();
    const fresh = h.sns.messages.slice(sent);
    assert.deepEqual(fresh.map(kindOf), ['FIRING'], summary(h.messages()));
    assert.ok(fresh[0]?.message.includes(control), 'the control pages');
    for (const node of [spot, scaledIn]) {
      assert.ok(!fresh[0]?.message.includes(node), `the FIRING does not list ${node}`);
    }
    assert.match(suppressedReason(mark, spot) ?? '', /^planned exit: EC2 reclaimed its Spot/);
    assert.match(suppressedReason(mark, scaledIn) ?? '', /terminated through the EC2 API/);
    await pagesOnceStuck(spot, heldAt, /removal seems stuck: interrupted as a Spot instance/);
  });
});

describe('lambda e2e: a Spot capacity pool reclaimed at once is no STORM', () => {
  let h: Harness;
  let ec2: Ec2Server;
  before(async () => {
    ec2 = await startEc2Server('happy');
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 12 } }, ec2Endpoint: ec2.url });
  });
  after(async () => {
    await h.close();
    await ec2.close();
  });

  it("3 of a zone's 4 nodes interrupted together: suppressed, nothing paged", async () => {
    const t = h.target('prod');
    const reclaimed = t.nodes.filter((_, i) => i % 3 === 0).slice(0, 3);
    await h.run();
    await h.tick();
    for (const node of reclaimed) {
      const instance = instanceOf(t.sim.nodeObject(node)?.spec.providerID) ?? '';
      ec2.instances.set(instance, {
        state: 'terminated',
        reasonCode: 'Server.SpotInstanceTermination',
        reasonMessage: 'Server.SpotInstanceTermination: Spot instance termination',
      });
    }
    const mark = h.logger.entries.length;
    h.clock.at(h.clock.now() + 30_000, () => {
      for (const node of reclaimed) t.sim.stopKubelet(node);
    });
    for (let i = 0; i < 5; i++) await h.tick();
    assert.equal(h.sns.messages.length, 0, `nothing sent: ${summary(h.messages())}`);
    const checked = h.logger.entries.slice(mark).findLast((e) => e.message === 'cluster checked');
    assert.deepEqual(checked?.fields.suppressedBy, { 'spot-interruption': 3 });
  });
});

describe('check: each planned exit its own cause, shown and counted', () => {
  const clock = new FakeClock();
  let sim: SimFixture;
  let cluster: SimCluster;
  let names: string[];
  before(async () => {
    cluster = new SimCluster({ seed: 5, now: clock.now });
    names = cluster.addNodes(6, { zones: ['eu-west-1a', 'eu-west-1b'] });
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-exits' });
  });
  after(() => sim.close());

  it('out-of-service, Karpenter disruption and a graceful shutdown: table, JSON, summary', async () => {
    const [oos, karpenter, shutdown] = names as [string, string, string];
    cluster.addTaint(oos, OUT_OF_SERVICE);
    cluster.addTaint(karpenter, { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' });
    cluster.beginShutdown(shutdown);
    for (const node of [oos, karpenter]) cluster.stopKubelet(node);
    clock.advance(120_000);
    const args = ['check', '--kubeconfig', sim.kubeconfig];
    const table = await runInProcess(args, { clock });
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, new RegExp(`${shutdown}\\s+suppressed\\s.*graceful shutdown`));
    const line = /6 nodes: 3 healthy, 3 suppressed \((.*)\)/.exec(table.stderr)?.[1] ?? '';
    assert.deepEqual(line.split(', ').sort(), [
      '1 graceful-shutdown',
      '1 karpenter-disruption',
      '1 out-of-service',
    ]);
    const json = JSON.parse((await runInProcess([...args, '-o', 'json'], { clock })).stdout);
    assert.deepEqual(json.suppressedBy, {
      'out-of-service': 1,
      'karpenter-disruption': 1,
      'graceful-shutdown': 1,
    });
    const byName = new Map(json.nodes.map((n: { name: string }) => [n.name, n]));
    assert.equal((byName.get(oos) as { suppressedBy: string }).suppressedBy, 'out-of-service');
  });
});
