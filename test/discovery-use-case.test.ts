/**
 * The discovery use case (lambda/use-cases/discovery.ts) with fakes at its ports: which clusters
 * are watched (ACTIVE, matching; UPDATING stays, CREATING waits), each change announced once,
 * a NOTICE the notifier refused announced at the next run (the cluster watched meanwhile), a
 * scope that failed keeping its clusters, the listed cluster winning, and the access grant.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Notification } from '../lambda/core/notification.js';
import type {
  AccessTarget,
  DiscoveredRecord,
  FoundEksCluster,
  SearchScope,
} from '../lambda/ports/index.js';
import { parseWatchdogSettings } from '../lambda/settings/index.js';
import {
  type DiscoveryDeps,
  deletedSinceDiscovery,
  runDiscovery,
} from '../lambda/use-cases/discovery.js';
import { RecordingLogger } from '../testkit/recording-ports.js';

const ON = { 'lease-watchdog': 'on' };
const found = (clusterName: string, more: Partial<FoundEksCluster> = {}): FoundEksCluster => ({
  clusterName,
  region: 'eu-west-1',
  status: 'ACTIVE',
  tags: ON,
  ...more,
});

/** A world of fakes: what EKS says per region, what the store holds, what was published. */
function world(options: { grantAccess?: boolean; listed?: string[]; regions?: string[] } = {}) {
  let clusters: FoundEksCluster[] = [];
  const failing = new Set<string>();
  let records: DiscoveredRecord[] = [];
  const published: Notification[] = [];
  const grants: [AccessTarget, string][] = [];
  let refuse = false;
  let grantFails = false;
  let writes = 0;
  const settings = parseWatchdogSettings({
    clusters: (options.listed ?? []).map((name) => ({
      name,
      auth: { mode: 'eks', clusterName: name },
    })),
    discover: {
      regions: options.regions ?? ['eu-west-1'],
      tags: ON,
      grantAccess: options.grantAccess ?? false,
    },
  });
  const deps: DiscoveryDeps = {
    settings,
    finder: {
      find: async (scope: SearchScope) => {
        if (failing.has(scope.region)) throw new Error(`${scope.region} refused`);
        return clusters.filter((c) => c.region === scope.region);
      },
      describe: async (scope: SearchScope, name: string) => {
        if (failing.has(scope.region)) throw new Error(`${scope.region} refused`);
        return clusters.find((c) => c.region === scope.region && c.clusterName === name);
      },
    },
    store: {
      load: async () => records,
      loadOne: async (name) => records.find((r) => r.name === name),
      save: async (changed) => {
        writes += changed.length;
        const names = new Set(changed.map((r) => r.name));
        records = [...records.filter((r) => !names.has(r.name)), ...changed];
      },
      claim: async (record, over) => {
        const stored = records.find((r) => r.name === record.name);
        if (JSON.stringify(stored) !== JSON.stringify(over)) return false;
        writes += 1;
        records = [...records.filter((r) => r.name !== record.name), record];
        return true;
      },
    },
    notifier: {
      publish: async (n) => {
        if (refuse) throw Object.assign(new Error('throttled'), { retryable: true });
        published.push(n);
      },
    },
    access: {
      grant: async (target, principal) => {
        if (grantFails) throw new Error('eks:CreateAccessEntry failed (AccessDeniedException)');
        grants.push([target, principal]);
      },
    },
    functionRoleArn: 'arn:aws:iam::123456789012:role/fn',
    logger: new RecordingLogger(),
    clock: () => Date.UTC(2026, 11, 2, 12),
  };
  const said = () => {
    const out = published.map((n) => {
      const notice = n.notice?.topic === 'discovery' ? n.notice : undefined;
      return `${n.cluster} ${notice?.change}`;
    });
    published.length = 0;
    return out;
  };
  return {
    deps,
    set: (next: FoundEksCluster[]) => {
      clusters = next;
    },
    fail: (region: string, on: boolean) => (on ? failing.add(region) : failing.delete(region)),
    refuse: (on: boolean) => {
      refuse = on;
    },
    grantFails: (on: boolean) => {
      grantFails = on;
    },
    watched: () =>
      records
        .filter((r) => r.state === 'watched')
        .map((r) => r.name)
        .sort(),
    said,
    published,
    grants,
    /** Records written so far. */
    writes: () => writes,
    /** The stored records, to rewrite as an older version wrote them. */
    records: (change?: (r: DiscoveredRecord) => DiscoveredRecord) => {
      if (change) records = records.map(change);
      return records;
    },
  };
}

describe('discovery: what is watched, and what is said', () => {
  it('ACTIVE and matching is watched; CREATING waits; UPDATING stays; each change said once', async () => {
    const w = world();
    w.set([found('a'), found('b', { status: 'CREATING' }), found('c', { tags: {} })]);
    await runDiscovery(w.deps);
    assert.deepEqual(w.watched(), ['a']);
    assert.deepEqual(w.said(), ['a appeared']);
    w.set([found('a', { status: 'UPDATING' }), found('b'), found('c', { tags: {} })]);
    await runDiscovery(w.deps);
    assert.deepEqual(w.watched(), ['a', 'b']);
    assert.deepEqual(w.said(), ['b appeared']);
    const written = w.writes();
    await runDiscovery(w.deps);
    assert.deepEqual(w.said(), [], 'nothing new, nothing said');
    assert.equal(w.writes(), written, 'nothing changed, nothing written');
    w.set([found('a', { status: 'DELETING' }), found('b', { tags: { 'lease-watchdog': 'off' } })]);
    await runDiscovery(w.deps);
    assert.deepEqual(w.watched(), []);
    assert.deepEqual(w.said(), ['a deleted', 'b dropped']);
    w.set([]);
    await runDiscovery(w.deps);
    assert.deepEqual(w.said(), [], 'gone for good: not said again');
  });

  it('a NOTICE the notifier refuses: the cluster is watched meanwhile, and it is said at the next run', async () => {
    const w = world();
    w.set([found('a')]);
    w.refuse(true);
    await runDiscovery(w.deps);
    assert.deepEqual(w.watched(), ['a']);
    assert.deepEqual(w.said(), []);
    w.refuse(false);
    await runDiscovery(w.deps);
    assert.deepEqual(w.said(), ['a appeared']);
    await runDiscovery(w.deps);
    assert.deepEqual(w.said(), []);
  });

  it('gone before its arrival was ever said: nothing to take back', async () => {
    const w = world();
    w.set([found('a')]);
    w.refuse(true);
    await runDiscovery(w.deps);
    w.refuse(false);
    w.set([]);
    await runDiscovery(w.deps);
    assert.deepEqual(w.said(), []);
    assert.deepEqual(w.watched(), []);
  });

  it('a region that cannot be searched keeps its clusters and fails the run', async () => {
    const w = world();
    w.set([found('a')]);
    await runDiscovery(w.deps);
    w.said();
    w.fail('eu-west-1', true);
    await assert.rejects(runDiscovery(w.deps), /could not search 1 of 1 scopes/);
    assert.deepEqual(w.watched(), ['a']);
    assert.deepEqual(w.said(), []);
  });

  it('the listed cluster wins over a discovered one of its name; lease-watchdog/name renames', async () => {
    const w = world({ listed: ['prod'] });
    w.set([
      found('prod'),
      found('prod-eks', { tags: { ...ON, 'lease-watchdog/name': 'prod' } }),
      found('x', { tags: { ...ON, 'lease-watchdog/name': 'payments' } }),
    ]);
    await runDiscovery(w.deps);
    assert.deepEqual(w.watched(), ['payments']);
    assert.deepEqual(w.said(), ['payments appeared']);
  });

  it('two clusters to watch under one name: the first is watched, the other named once with the tag that fixes it', async () => {
    const w = world();
    const arn = (region: string, account: string) =>
      `arn:aws:eks:${region}:${account}:cluster/prod`;
    const eu = found('prod', { arn: arn('eu-west-1', '111122223333') });
    const us = found('prod', { region: 'eu-west-1', arn: arn('eu-west-1', '444455556666') });
    const off = found('prod', { arn: arn('eu-west-1', '777788889999'), tags: {} });
    w.set([eu, off, us]);
    await runDiscovery(w.deps);
    assert.deepEqual(w.watched(), ['prod']);
    const [, same] = w.published.map((n) =>
      n.notice?.topic === 'discovery' ? n.notice : undefined,
    );
    assert.equal(same?.change, 'same-name');
    assert.equal(
      same?.message,
      `EKS clusters ${eu.arn} and ${us.arn} share the name 'prod': only ${eu.arn} is watched`,
    );
    assert.equal(
      same?.advice,
      `give the other a name of its own with the tag lease-watchdog/name, in its account: aws eks tag-resource --region eu-west-1 --resource-arn ${us.arn} --tags lease-watchdog/name=prod-444455556666`,
    );
    assert.equal(w.published[1]?.severity, 'warning');
    assert.deepEqual(w.said(), ['prod appeared', 'prod same-name']);
    await runDiscovery(w.deps);
    assert.deepEqual(w.said(), [], 'said once, not at every run');
    // Renamed by its tag: both watched, nothing more to say about the name.
    w.set([eu, found('prod', { ...us, tags: { ...ON, 'lease-watchdog/name': 'prod-us' } })]);
    await runDiscovery(w.deps);
    assert.deepEqual(w.watched(), ['prod', 'prod-us']);
    assert.deepEqual(w.said(), ['prod-us appeared']);
  });

  it('a bad tag: the cluster is watched without it, and the tag is named once', async () => {
    const w = world();
    w.set([found('a', { tags: { ...ON, 'lease-watchdog/namespace': 'Not_A_Namespace' } })]);
    await runDiscovery(w.deps);
    const [, tag] = w.published.map((n) =>
      n.notice?.topic === 'discovery' ? n.notice : undefined,
    );
    assert.equal(tag?.change, 'tag-invalid');
    assert.match(tag?.message ?? '', /^tag lease-watchdog\/namespace /);
    assert.deepEqual(w.said(), ['a appeared', 'a tag-invalid']);
    await runDiscovery(w.deps);
    assert.deepEqual(w.said(), []);
  });

  it('an unreadable cluster is asked after: deleted is said once (here or by discovery), ACTIVE or EKS refusing pages', async () => {
    const w = world();
    w.set([found('a'), found('b'), found('c')]);
    await runDiscovery(w.deps);
    w.said();
    assert.equal(await deletedSinceDiscovery(w.deps, 'a'), false, 'ACTIVE: paged');
    assert.equal(await deletedSinceDiscovery(w.deps, 'listed-or-unknown'), false);
    w.fail('eu-west-1', true);
    w.set([found('c')]);
    assert.equal(await deletedSinceDiscovery(w.deps, 'a'), false, 'EKS cannot say: paged');
    w.fail('eu-west-1', false);
    assert.equal(await deletedSinceDiscovery(w.deps, 'a'), true);
    assert.deepEqual(w.said(), ['a deleted']);
    assert.equal(await deletedSinceDiscovery(w.deps, 'a'), true, 'already gone: not paged');
    w.refuse(true);
    assert.equal(await deletedSinceDiscovery(w.deps, 'b'), true, 'not paged though not said');
    w.refuse(false);
    await runDiscovery(w.deps);
    assert.deepEqual(w.said(), ['b deleted'], 'said by discovery instead, once');
    assert.deepEqual(w.watched(), ['c']);
  });

  it('grantAccess: the function lets itself in (the NOTICE says only the RBAC its group needs); a failed grant gives the command and why', async () => {
    const w = world({ grantAccess: true });
    w.set([found('a')]);
    await runDiscovery(w.deps);
    assert.deepEqual(w.grants, [
      [
        { clusterName: 'a', region: 'eu-west-1', roleArn: undefined },
        'arn:aws:iam::123456789012:role/fn',
      ],
    ]);
    const [granted] = w.published;
    assert.equal(
      granted?.notice?.topic === 'discovery' && granted.notice.advice,
      'the watchdog made its access entry; unless the cluster has deploy/rbac.yaml: kubectl apply -f deploy/rbac.yaml (in that cluster: group lease-watchdog)',
    );
    w.said();
    w.grantFails(true);
    w.set([found('a'), found('b')]);
    await runDiscovery(w.deps);
    const [advised] = w.published;
    assert.match(
      (advised?.notice?.topic === 'discovery' && advised.notice.advice) || '',
      /^the watchdog could not grant itself access \(eks:CreateAccessEntry failed \(AccessDeniedException\)\); run: aws eks create-access-entry --cluster-name b /,
    );
  });

  it('records of an older version (no identity, no settings said): the cluster at the same place is the one watched, nothing said', async () => {
    const w = world();
    w.set([found('a', { arn: 'arn:aws:eks:eu-west-1:123456789012:cluster/a', createdAt: 'T1' })]);
    await runDiscovery(w.deps);
    assert.deepEqual(w.said(), ['a appeared']);
    w.records(({ announcedSettings: _, ...r }) => ({
      ...r,
      settings: { ...r.settings, auth: { mode: 'eks', clusterName: 'a', region: 'eu-west-1' } },
    }));
    await runDiscovery(w.deps);
    assert.deepEqual(w.said(), [], 'the same cluster, its settings as they were');
    const [record] = w.records();
    assert.equal(
      record?.settings.auth.mode === 'eks' && record.settings.auth.identity,
      'arn:aws:eks:eu-west-1:123456789012:cluster/a  T1',
    );
    // Created again: a new cluster.
    w.set([found('a', { arn: 'arn:aws:eks:eu-west-1:123456789012:cluster/a', createdAt: 'T2' })]);
    await runDiscovery(w.deps);
    assert.deepEqual(w.said(), ['a appeared']);
  });

  it("a watched cluster's region cannot be searched: another claiming its name meanwhile does not take it", async () => {
    const w = world({ regions: ['eu-west-1', 'us-east-1'] });
    const real = found('prod', { region: 'us-east-1' });
    w.set([real]);
    await runDiscovery(w.deps);
    assert.deepEqual(w.said(), ['prod appeared']);
    w.set([real, found('other', { tags: { ...ON, 'lease-watchdog/name': 'prod' } })]);
    w.fail('us-east-1', true);
    await assert.rejects(runDiscovery(w.deps), /could not search 1 of 2 scopes/);
    assert.deepEqual(w.said(), []);
    const [record] = w.records();
    assert.equal(record?.settings.auth.mode === 'eks' && record.settings.auth.clusterName, 'prod');
    w.fail('us-east-1', false);
    await runDiscovery(w.deps);
    assert.deepEqual(w.said(), ['prod same-name'], 'once both are seen: the one watched stays');
  });
});
