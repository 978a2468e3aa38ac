import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatMicroTime, type KubeLease, SimApiError, SimCluster } from '../sim/cluster.js';

const T0 = Date.parse('2026-11-29T17:52:00.000Z');
const NS = 'kube-node-lease';
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** A cluster on a hand-driven clock. */
function simAt(start = T0, opts: { jitter?: boolean; seed?: number } = {}) {
  let now = start;
  const cluster = new SimCluster({
    now: () => now,
    jitter: opts.jitter ?? false,
    seed: opts.seed ?? 1,
  });
  return {
    cluster,
    advance(ms: number) {
      now += ms;
    },
    now: () => now,
    lease(name: string): KubeLease {
      const l = cluster.leaseObject(NS, name);
      assert.ok(l, `lease ${name} exists`);
      return l;
    },
  };
}

describe('SimCluster kubelets (lazy renewals)', () => {
  test('a new node renews at creation, then every 0.25 × leaseDurationSeconds', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'n1' });
    assert.equal(sim.lease('n1').spec.renewTime, '2026-11-29T17:52:00.000000Z');
    sim.advance(9_999);
    assert.equal(sim.lease('n1').spec.renewTime, '2026-11-29T17:52:00.000000Z');
    sim.advance(1);
    assert.equal(sim.lease('n1').spec.renewTime, '2026-11-29T17:52:10.000000Z');
    sim.advance(35_000);
    assert.equal(sim.lease('n1').spec.renewTime, '2026-11-29T17:52:40.000000Z');
  });

  test('the interval follows the node lease duration', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'short', leaseDurationSeconds: 8 });
    sim.advance(5_000);
    const lease = sim.lease('short');
    assert.equal(lease.spec.renewTime, '2026-11-29T17:52:04.000000Z');
    assert.equal(lease.spec.leaseDurationSeconds, 8);
    assert.equal(lease.spec.holderIdentity, 'short');
  });

  test('resourceVersion changes exactly when renewTime changes', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'n1' });
    const first = sim.lease('n1');
    sim.advance(5_000);
    assert.equal(sim.lease('n1').metadata.resourceVersion, first.metadata.resourceVersion);
    sim.advance(5_000);
    const second = sim.lease('n1');
    assert.notEqual(second.spec.renewTime, first.spec.renewTime);
    assert.notEqual(second.metadata.resourceVersion, first.metadata.resourceVersion);
    assert.ok(Number(second.metadata.resourceVersion) > Number(first.metadata.resourceVersion));
  });

  test('stopKubelet freezes renewTime; startKubelet renews at once and then on schedule', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'n1' });
    sim.advance(25_000);
    sim.cluster.stopKubelet('n1');
    const frozen = sim.lease('n1');
    assert.equal(frozen.spec.renewTime, '2026-11-29T17:52:20.000000Z');
    sim.advance(600_000);
    assert.deepEqual(sim.lease('n1'), frozen);
    assert.equal(sim.cluster.kubeletAlive('n1'), false);

    sim.cluster.startKubelet('n1');
    const back = sim.lease('n1');
    assert.equal(back.spec.renewTime, formatMicroTime(sim.now() * 1000));
    assert.notEqual(back.metadata.resourceVersion, frozen.metadata.resourceVersion);
    sim.advance(10_000);
    assert.equal(sim.lease('n1').spec.renewTime, formatMicroTime(sim.now() * 1000));
  });

  test('renewTime is written with the kubelet clock (skew), and setClockSkew affects only later renewals', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'behind', clockSkewMs: -600_000 });
    assert.equal(sim.lease('behind').spec.renewTime, '2026-11-29T17:42:00.000000Z');
    sim.advance(5_000);
    sim.cluster.setClockSkew('behind', 600_000);
    assert.equal(sim.lease('behind').spec.renewTime, '2026-11-29T17:42:00.000000Z');
    sim.advance(5_000);
    assert.equal(sim.lease('behind').spec.renewTime, '2026-11-29T18:02:10.000000Z');
  });

  test('with jitter: six fractional digits, renewals no further apart than interval × 1.04', () => {
    const sim = simAt(T0, { jitter: true, seed: 42 });
    const names = sim.cluster.addNodes(50);
    const seen = new Set<string>();
    for (let step = 0; step < 40; step++) {
      sim.advance(1_337);
      for (const name of names) {
        const renew = sim.lease(name).spec.renewTime;
        assert.equal(typeof renew, 'string');
        assert.match(renew as string, MICRO_TIME);
        seen.add(renew as string);
        const ageMs = sim.now() - Date.parse(renew as string);
        assert.ok(ageMs >= -1 && ageMs <= 10_400 + 1, `${name} renewed ${ageMs} ms ago`);
      }
    }
    // Phases are spread: the 50 kubelets do not renew in lockstep.
    assert.ok(seen.size > 50 * 5, `only ${seen.size} distinct renewTimes`);
  });

  test("with jitter, renewals slide through every phase of the interval, as JitterUntil's sliding waits do", () => {
    const sim = simAt(T0, { jitter: true, seed: 3 });
    const [name] = sim.cluster.addNodes(1) as [string];
    const renewals: number[] = [];
    for (let step = 0; step < 10 * 60 * 10; step++) {
      sim.advance(100);
      const at = Date.parse(sim.lease(name).spec.renewTime as string);
      if (at !== renewals.at(-1)) renewals.push(at);
    }
    const gaps = renewals.slice(1).map((at, i) => at - (renewals[i] as number));
    assert.ok(
      gaps.every((gap) => gap >= 10_000 && gap <= 10_400),
      `gaps ${Math.min(...gaps)}-${Math.max(...gaps)} ms`,
    );
    // Where in the 10 s the renewals land (ms past the first): 10 minutes cover most of it.
    const phases = renewals.map((at) => (at - (renewals[0] as number)) % 10_000);
    assert.ok(Math.max(...phases) - Math.min(...phases) > 8_000, `phases ${phases.join(', ')}`);
  });

  test('the same seed gives the same cluster', () => {
    const a = simAt(T0, { jitter: true, seed: 7 });
    const b = simAt(T0, { jitter: true, seed: 7 });
    const names = a.cluster.addNodes(20);
    assert.deepEqual(b.cluster.addNodes(20), names);
    a.advance(123_456);
    b.advance(123_456);
    for (const name of names) assert.deepEqual(a.lease(name), b.lease(name));
  });
});

describe('SimCluster lease writes', () => {
  test('update with the current resourceVersion wins until the next renewal; a stale one is 409', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'n1' });
    sim.advance(2_000);
    const current = sim.lease('n1');
    const written = {
      ...current,
      spec: { ...current.spec, renewTime: '2020-01-01T00:00:00.000000Z' },
    };
    const { lease, created } = sim.cluster.updateLease(NS, 'n1', written);
    assert.equal(created, false);
    assert.equal(lease.spec.renewTime, '2020-01-01T00:00:00.000000Z');
    assert.notEqual(lease.metadata.resourceVersion, current.metadata.resourceVersion);

    assert.throws(
      () => sim.cluster.updateLease(NS, 'n1', written),
      (err: unknown) => err instanceof SimApiError && err.code === 409 && err.reason === 'Conflict',
    );
    sim.advance(7_999);
    assert.equal(sim.lease('n1').spec.renewTime, '2020-01-01T00:00:00.000000Z');
    sim.advance(1);
    assert.equal(sim.lease('n1').spec.renewTime, '2026-11-29T17:52:10.000000Z');
  });

  test('a lazy renewal makes an earlier resourceVersion stale', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'n1' });
    const before = sim.lease('n1');
    sim.advance(10_000);
    assert.throws(
      () => sim.cluster.updateLease(NS, 'n1', before),
      (err: unknown) => err instanceof SimApiError && err.code === 409,
    );
  });

  test('create in default; 409 AlreadyExists; 404 for an unknown namespace', () => {
    const sim = simAt();
    const body = {
      metadata: { name: 'leader' },
      spec: { holderIdentity: 'me', leaseDurationSeconds: 15 },
    };
    const lease = sim.cluster.createLease('default', body);
    assert.equal(lease.metadata.namespace, 'default');
    assert.equal(lease.spec.holderIdentity, 'me');
    assert.throws(
      () => sim.cluster.createLease('default', body),
      (err: unknown) =>
        err instanceof SimApiError && err.code === 409 && err.reason === 'AlreadyExists',
    );
    assert.throws(
      () => sim.cluster.createLease('nope', body),
      (err: unknown) => err instanceof SimApiError && err.code === 404,
    );
  });

  test('setLeaseField patches stick while the kubelet renews; undefined removes a field', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'n1' });
    sim.cluster.setLeaseField('n1', { renewTime: 'garbage', leaseDurationSeconds: undefined });
    sim.advance(30_000);
    const lease = sim.lease('n1');
    assert.equal(lease.spec.renewTime, 'garbage');
    assert.equal('leaseDurationSeconds' in lease.spec, false);
    sim.cluster.clearLeaseOverrides('n1');
    assert.equal(sim.lease('n1').spec.renewTime, '2026-11-29T17:52:30.000000Z');
  });
});

describe('SimCluster nodes and faults', () => {
  test('objects look real: lease owner reference, node labels, conditions, images', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'ip-10-0-1-23.eu-west-1.compute.internal', zone: 'eu-west-1b' });
    const node = sim.cluster.nodeObject('ip-10-0-1-23.eu-west-1.compute.internal');
    assert.ok(node);
    assert.equal(node.metadata.labels?.['topology.kubernetes.io/zone'], 'eu-west-1b');
    assert.equal(node.metadata.labels?.['topology.kubernetes.io/region'], 'eu-west-1');
    assert.equal(
      node.metadata.labels?.['kubernetes.io/hostname'],
      'ip-10-0-1-23.eu-west-1.compute.internal',
    );
    assert.match(node.spec.providerID, /^aws:\/\/\/eu-west-1b\/i-[0-9a-f]{17}$/);
    assert.deepEqual(
      node.status.conditions.map((c) => [c.type, c.status]),
      [
        ['MemoryPressure', 'False'],
        ['DiskPressure', 'False'],
        ['PIDPressure', 'False'],
        ['Ready', 'True'],
      ],
    );
    assert.equal(node.status.addresses[0]?.address, '10.0.1.23');
    assert.equal(node.status.images.length, 15);
    const json = sim.cluster.nodeJson(node.metadata.name);
    assert.deepEqual(JSON.parse(json ?? ''), node);
    assert.ok((json ?? '').length > 3000, 'a node is a few KB');

    const lease = sim.lease(node.metadata.name);
    assert.deepEqual(lease.metadata.ownerReferences, [
      { apiVersion: 'v1', kind: 'Node', name: node.metadata.name, uid: node.metadata.uid },
    ]);
    assert.equal('acquireTime' in lease.spec, false);
  });

  test('setReady False keeps the lease renewing', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'n1' });
    sim.cluster.setReady('n1', 'False');
    sim.advance(20_000);
    const ready = sim.cluster.nodeObject('n1')?.status.conditions.find((c) => c.type === 'Ready');
    assert.equal(ready?.status, 'False');
    assert.equal(ready?.reason, 'KubeletNotReady');
    assert.equal(sim.lease('n1').spec.renewTime, '2026-11-29T17:52:20.000000Z');
  });

  test('a stopped kubelet turns the node Unknown after the 50 s monitor grace period', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'n1' });
    sim.advance(5_000);
    sim.cluster.stopKubelet('n1');
    sim.advance(44_999); // last renewal at T0; Unknown at T0 + 50 s
    const ready = () =>
      sim.cluster.nodeObject('n1')?.status.conditions.find((c) => c.type === 'Ready');
    assert.equal(ready()?.status, 'True');
    sim.advance(1);
    assert.equal(ready()?.status, 'Unknown');
    assert.equal(ready()?.reason, 'NodeStatusUnknown');
    assert.ok(
      sim.cluster
        .nodeObject('n1')
        ?.spec.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable'),
    );
  });

  test('cordon, taints and markDeleting show on the Node', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'n1' });
    sim.cluster.cordon('n1');
    sim.cluster.addTaint('n1', {
      key: 'ToBeDeletedByClusterAutoscaler',
      value: '1',
      effect: 'NoSchedule',
    });
    sim.cluster.markDeleting('n1');
    const node = sim.cluster.nodeObject('n1');
    assert.equal(node?.spec.unschedulable, true);
    assert.ok(node?.spec.taints?.some((t) => t.key === 'ToBeDeletedByClusterAutoscaler'));
    assert.equal(node?.metadata.deletionTimestamp, '2026-11-29T17:52:00Z');
    assert.ok((node?.metadata.finalizers ?? []).length > 0);
    sim.cluster.cordon('n1', false);
    assert.equal(sim.cluster.nodeObject('n1')?.spec.unschedulable, undefined);
  });

  test('deleteNode leaves an orphaned, silent lease by default; keepLease false removes it', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'gone' });
    sim.cluster.addNode({ name: 'gone-too' });
    sim.advance(12_000);
    sim.cluster.deleteNode('gone');
    sim.cluster.deleteNode('gone-too', { keepLease: false });
    assert.equal(sim.cluster.hasNode('gone'), false);
    const orphan = sim.lease('gone');
    sim.advance(60_000);
    assert.deepEqual(sim.lease('gone'), orphan);
    assert.equal(sim.cluster.leaseObject(NS, 'gone-too'), undefined);
    assert.deepEqual(sim.cluster.sortedLeaseNames(NS), ['gone']);
  });

  test('a node without a lease, and deleteLease', () => {
    const sim = simAt();
    sim.cluster.addNode({ name: 'bare', lease: false });
    sim.cluster.addNode({ name: 'n2' });
    sim.cluster.deleteLease('n2');
    assert.equal(sim.cluster.leaseObject(NS, 'bare'), undefined);
    assert.equal(sim.cluster.leaseObject(NS, 'n2'), undefined);
    assert.deepEqual(sim.cluster.nodeNames().sort(), ['bare', 'n2']);
  });

  test('addNodes: realistic unique names spread over zones; zoneDark stops one zone', () => {
    const sim = simAt();
    const names = sim.cluster.addNodes(300, { zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] });
    assert.equal(new Set(names).size, 300);
    for (const name of names)
      assert.match(name, /^ip-10-\d+-\d+-\d+\.eu-west-1\.compute\.internal$/);
    const dark = sim.cluster.zoneDark('eu-west-1b');
    assert.equal(dark.length, 100);
    for (const name of dark) {
      assert.equal(sim.cluster.nodeLabels(name)?.['topology.kubernetes.io/zone'], 'eu-west-1b');
      assert.equal(sim.cluster.kubeletAlive(name), false);
    }
    assert.equal(names.filter((n) => sim.cluster.kubeletAlive(n)).length, 200);
    assert.deepEqual(sim.cluster.addNodes(2, { prefix: 'node-' }), ['node-1', 'node-2']);
  });
});
