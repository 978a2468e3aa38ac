/**
 * The scheduled function end to end, with real parts (see testkit/watchdog-harness.ts): a
 * simulated cluster over HTTPS, the token from a local Secrets Manager, state in dynalite, and
 * what the local SNS endpoint actually received. One invocation a minute on a fake clock.
 *
 * This file: the life of a node incident (FIRING, silence, REMINDER, RESOLVED), expected removals
 * that must not page, and a zone going dark (one STORM). Failures of the cluster API, of SNS,
 * concurrency, several clusters and hostile names are in lambda-e2e-*.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { instanceOf } from '../lambda/core/node-verdicts.js';
import { NODE_LEASE_NAMESPACE } from '../sim/cluster.js';
import {
  attributesOf,
  type Harness,
  kindOf,
  SCHEDULE_MS,
  type SimTarget,
  startWatchdogHarness,
  summary,
} from '../testkit/watchdog-harness.js';

const GRACE_MS = 50_000;
const REMINDER_S = 600;

function renewTimeOf(target: SimTarget, node: string): number {
  const renewTime = target.sim.leaseObject(NODE_LEASE_NAMESPACE, node)?.spec.renewTime;
  assert.equal(typeof renewTime, 'string', `lease of ${node} has a renewTime`);
  return Date.parse(renewTime as string);
}

function instanceOfNode(target: SimTarget, node: string): string {
  const instance = instanceOf(target.sim.nodeObject(node)?.spec.providerID);
  assert.ok(instance, `node ${node} has an instance id`);
  return instance;
}

/** `ip-10-0-1-13` of `ip-10-0-1-13.eu-west-1.compute.internal`, regex-safe. */
function shortName(node: string): string {
  return (node.split('.')[0] ?? node).replace(/[-]/g, '\\-');
}

describe('lambda e2e: a node dies, stays down, and recovers', () => {
  let h: Harness;
  let target: SimTarget;
  before(async () => {
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 6 } },
      settings: { reminderIntervalSeconds: REMINDER_S },
    });
    target = h.target('prod');
  });
  after(() => h.close());

  it('sends exactly one FIRING, one REMINDER after the reminder interval, one RESOLVED', async () => {
    const victim = target.nodes[0] as string;
    const baseline = await h.run();
    assert.equal(baseline.clusters[0]?.lastStatus, 'checked');
    await h.tick();
    assert.equal(h.sns.messages.length, 0, 'a healthy cluster sends nothing');

    // The kubelet stops 23 s after the last run (between two scheduled runs).
    const stoppedAt = h.clock.now() + 23_000;
    h.clock.at(stoppedAt, () => target.sim.stopKubelet(victim));

    // By the 2nd run after it stopped: exactly one FIRING.
    await h.tick();
    await h.tick();
    assert.equal(h.sns.messages.length, 1, `one message by the 2nd run: ${summary(h.messages())}`);
    const [firing] = h.messages('FIRING');
    assert.ok(firing, `a FIRING: ${summary(h.messages())}`);
    const lastRenewal = renewTimeOf(target, victim);
    assert.ok(
      firing.receivedAt - lastRenewal >= GRACE_MS,
      'not before the grace period has passed since the last renewal',
    );
    assert.ok(firing.receivedAt - stoppedAt <= 2 * SCHEDULE_MS, 'by the 2nd run after the stop');

    assert.deepEqual(attributesOf(firing), {
      cluster: 'prod',
      kind: 'FIRING',
      severity: 'critical',
    });
    assert.match(firing.subject ?? '', /^\[prod\] FIRING: 1 node down \(/);
    assert.ok(
      firing.subject?.includes(victim.slice(0, 12)),
      `subject names the node: ${firing.subject}`,
    );
    const body = firing.message;
    assert.ok(body.includes(victim), 'body names the node');
    assert.match(body, /zone:\s+eu-west-1a/);
    assert.ok(body.includes(instanceOfNode(target, victim)), 'body names the instance');
    assert.match(body, /verdict:\s+expired/);
    assert.ok(body.includes(`kubectl --context prod describe node ${victim}`));
    assert.ok(
      body.includes(`kubectl --context prod get lease ${victim} -n kube-node-lease -o yaml`),
    );
    for (const other of target.nodes.slice(1)) {
      assert.ok(!body.includes(other), `body does not name the healthy ${other}`);
    }

    // While it stays down: nothing, until the reminder interval has passed since the FIRING.
    while (h.clock.now() + SCHEDULE_MS < firing.receivedAt + REMINDER_S * 1000) {
      await h.tick();
      assert.equal(h.sns.messages.length, 1, `silent while down: ${summary(h.messages())}`);
    }
    await h.tick();
    assert.equal(h.sns.messages.length, 2, summary(h.messages()));
    const reminder = h.sns.messages[1];
    assert.ok(reminder);
    assert.equal(kindOf(reminder), 'REMINDER');
    assert.equal(reminder.receivedAt - firing.receivedAt, REMINDER_S * 1000);
    assert.deepEqual(attributesOf(reminder), {
      cluster: 'prod',
      kind: 'REMINDER',
      severity: 'warning',
    });
    assert.match(reminder.subject ?? '', /^\[prod\] REMINDER: 1 node still down/);
    assert.ok(reminder.message.includes(victim));

    // It recovers: exactly one RESOLVED, then quiet.
    target.sim.startKubelet(victim);
    await h.tick();
    assert.equal(h.sns.messages.length, 3, summary(h.messages()));
    const resolved = h.sns.messages[2];
    assert.ok(resolved);
    assert.deepEqual(attributesOf(resolved), {
      cluster: 'prod',
      kind: 'RESOLVED',
      severity: 'info',
    });
    assert.match(resolved.subject ?? '', /^\[prod\] RESOLVED: 1 node recovered/);
    assert.ok(resolved.message.includes(victim));
    for (let i = 0; i < 3; i++) await h.tick();
    assert.deepEqual(
      h.sns.messages.map(kindOf),
      ['FIRING', 'REMINDER', 'RESOLVED'],
      summary(h.messages()),
    );
  });

  it('detects a death by the 2nd run after it, wherever between runs it happens', async () => {
    // One node after another, each stopping at a different moment of the schedule.
    const offsets = [500, 9_000, 31_000, 59_500];
    for (const [i, offset] of offsets.entries()) {
      const node = target.nodes[i + 1] as string;
      const before = h.sns.messages.length;
      const stoppedAt = h.clock.now() + offset;
      h.clock.at(stoppedAt, () => target.sim.stopKubelet(node));
      await h.tick();
      await h.tick();
      const fresh = h.sns.messages.slice(before);
      assert.deepEqual(fresh.map(kindOf), ['FIRING'], `offset ${offset}: ${summary(fresh)}`);
      assert.ok(fresh[0]?.message.includes(node));
      assert.ok((fresh[0]?.receivedAt ?? 0) - renewTimeOf(target, node) >= GRACE_MS);
      target.sim.startKubelet(node);
      await h.tick();
      const after = h.sns.messages.slice(before);
      assert.deepEqual(after.map(kindOf), ['FIRING', 'RESOLVED'], summary(after));
    }
  });
});

describe('lambda e2e: expected removals never page', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 12 } } });
  });
  after(() => h.close());

  it('orphaned lease, cordoned, autoscaler-tainted, Karpenter-disrupted, deleting: no FIRING', async () => {
    const t = h.target('prod');
    const [orphan, cordoned, autoscaled, karpenter, deleting, control] = t.nodes as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    await h.run();
    await h.tick();

    // The removals start: the Node goes (lease left behind); the others are marked, then die.
    t.sim.deleteNode(orphan, { keepLease: true });
    t.sim.cordon(cordoned);
    t.sim.addTaint(autoscaled, {
      key: 'ToBeDeletedByClusterAutoscaler',
      value: String(Math.floor(h.clock.now() / 1000)),
      effect: 'NoSchedule',
    });
    t.sim.addTaint(karpenter, { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' });
    t.sim.markDeleting(deleting);
    await h.tick();
    for (const node of [cordoned, autoscaled, karpenter, deleting]) t.sim.stopKubelet(node);
    for (let i = 0; i < 6; i++) await h.tick();

    assert.equal(h.sns.messages.length, 0, `nothing sent: ${summary(h.messages())}`);
    // Not vacuous: the watchdog saw those nodes silent and suppressed them.
    const suppressed = new Set(
      h.logger.entries
        .filter((e) => e.message === 'node verdict' && e.fields.verdict === 'suppressed')
        .map((e) => e.fields.node),
    );
    assert.deepEqual(
      [cordoned, autoscaled, karpenter, deleting].filter((n) => !suppressed.has(n)),
      [],
      'each marked node was judged silent and suppressed',
    );
    assert.ok(
      t.sim.leaseObject(NODE_LEASE_NAMESPACE, orphan),
      'the orphaned lease is still served',
    );

    // Control: an unmarked node dying in the same cluster does page, naming only itself.
    t.sim.stopKubelet(control);
    await h.tick();
    await h.tick();
    assert.deepEqual(h.sns.messages.map(kindOf), ['FIRING'], summary(h.messages()));
    const body = h.sns.messages[0]?.message ?? '';
    assert.match(h.sns.messages[0]?.subject ?? '', /^\[prod\] FIRING: 1 node down/);
    assert.ok(body.includes(control));
    for (const node of [orphan, cordoned, autoscaled, karpenter, deleting]) {
      assert.ok(!body.includes(node), `the FIRING does not list ${node}`);
    }
  });
});

describe('lambda e2e: a zone goes dark', () => {
  let h: Harness;
  before(async () => {
    // 15 nodes, 5 per zone.
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 15 } } });
  });
  after(() => h.close());

  it('60 % of a zone dying at once sends one STORM naming the zone, not one per node', async () => {
    const t = h.target('prod');
    const zoneA = t.nodes.filter((_, i) => i % 3 === 0);
    assert.equal(zoneA.length, 5);
    const dying = zoneA.slice(0, 3);
    await h.run();
    await h.tick();
    // 30 s after a run, so each dying kubelet has renewed since that run (every 10 s): the
    // watchdog sees the last renewals of all three in the same check.
    h.clock.at(h.clock.now() + 30_000, () => {
      for (const node of dying) t.sim.stopKubelet(node);
    });
    for (let i = 0; i < 5; i++) await h.tick();

    assert.equal(h.sns.messages.length, 1, `one notification: ${summary(h.messages())}`);
    const [storm] = h.sns.messages;
    assert.ok(storm);
    assert.deepEqual(attributesOf(storm), { cluster: 'prod', kind: 'STORM', severity: 'critical' });
    assert.match(storm.subject ?? '', /^\[prod\] STORM: 3 of 5 nodes silent in eu-west-1a/);
    // Listed compactly: short names under a common-suffix note.
    const listed = (node: string) => new RegExp(`\\b${shortName(node)}\\b`).test(storm.message);
    for (const node of dying) assert.ok(listed(node), `the STORM lists ${node}`);
    for (const node of t.nodes.filter((n) => !dying.includes(n))) {
      assert.ok(!listed(node), `the STORM does not list the healthy ${node}`);
    }
  });
});
