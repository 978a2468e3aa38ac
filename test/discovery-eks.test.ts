/**
 * The EKS discovery adapter (lambda/adapters/discovery/eks-discovery.ts) with the real
 * `@aws-sdk/client-eks` against the scripted EKS endpoint (testkit/eks-server.ts): ListClusters
 * paged with nextToken, DescribeCluster's status and tags, throttling retried by the SDK's own
 * bounded retry, a cluster deleted between the list and its description, and another account
 * searched through its role (the real `fromTemporaryCredentials` against testkit/sts-server.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EKSClient } from '@aws-sdk/client-eks';
import { EksClusterAccess } from '../lambda/adapters/discovery/eks-access.js';
import { EksClusterFinder } from '../lambda/adapters/discovery/eks-discovery.js';
import { ClusterAwsCredentials } from '../lambda/adapters/kube/config/cluster-credentials.js';
import { ClusterSearchError } from '../lambda/ports/index.js';
import { type EksServer, startEksServer } from '../testkit/eks-server.js';
import { localCredentials } from '../testkit/harness-options.js';
import { type StsServer, startStsServer } from '../testkit/sts-server.js';

const ROLE = 'arn:aws:iam::210987654321:role/lease-watchdog-discovery';
const OTHER = '210987654321';

describe('EKS discovery: ListClusters and DescribeCluster', () => {
  let eks: EksServer;
  let sts: StsServer;
  let finder: EksClusterFinder;
  const clients: EKSClient[] = [];
  before(async () => {
    sts = await startStsServer();
    sts.allow(ROLE);
    // The assumed role's keys (ASIA…) belong to the other account.
    eks = await startEksServer(
      {},
      { accountOf: (key) => (key.startsWith('ASIA') ? OTHER : '123456789012') },
    );
    for (let i = 0; i < 230; i++) {
      eks.put(`fleet-${String(i).padStart(3, '0')}`, {
        region: 'eu-west-1',
        account: '123456789012',
        tags: { team: i % 2 ? 'a' : 'b' },
      });
    }
    eks.put('creating', { region: 'eu-west-1', account: '123456789012', status: 'CREATING' });
    eks.put('in-us', { region: 'us-east-1', account: '123456789012' });
    eks.put('theirs', { region: 'eu-west-1', account: OTHER, tags: { 'lease-watchdog': 'on' } });
    const awsCredentials = new ClusterAwsCredentials({
      credentials: async () => localCredentials(),
      region: 'eu-west-1',
      now: Date.now,
      sts: { endpoint: sts.url, maxAttempts: 1 },
    });
    finder = new EksClusterFinder((region, roleArn) => {
      const client = new EKSClient({
        endpoint: eks.url,
        region,
        credentials:
          roleArn === undefined
            ? localCredentials()
            : awsCredentials.forCluster({
                auth: { mode: 'eks', clusterName: '-', region, roleArn },
              }),
        // The SDK's bounded retry, quick: throttling is retried by it, not by the finder.
        maxAttempts: 3,
      });
      clients.push(client);
      return client;
    });
  });
  after(async () => {
    for (const client of clients) client.destroy();
    await Promise.all([eks.close(), sts.close()]);
  });

  it('pages through ListClusters (100 a page) and describes each: status and tags', async () => {
    const before = eks.listCalls;
    const found = await finder.find({ region: 'eu-west-1' });
    assert.equal(eks.listCalls - before, 3, '231 clusters: pages of 100, 100, 31');
    assert.equal(found.length, 231);
    const one = found.find((c) => c.clusterName === 'fleet-001');
    assert.deepEqual(one, {
      clusterName: 'fleet-001',
      region: 'eu-west-1',
      status: 'ACTIVE',
      tags: { team: 'a' },
      arn: 'arn:aws:eks:eu-west-1:123456789012:cluster/fleet-001',
      createdAt: '2026-01-01T00:00:00.000Z', // with the ARN, which cluster it is
    });
    assert.equal(found.find((c) => c.clusterName === 'creating')?.status, 'CREATING');
    assert.equal(
      found.some((c) => c.clusterName === 'in-us' || c.clusterName === 'theirs'),
      false,
    );
  });

  it('throttling is retried by the SDK (bounded); past its attempts the scope fails in one line', async () => {
    eks.throttleNext(1);
    const found = await finder.find({ region: 'us-east-1' });
    assert.deepEqual(
      found.map((c) => c.clusterName),
      ['in-us'],
    );
    // Past its attempts (a 5xx: its retry waits less than for throttling).
    eks.unavailable('5xx');
    try {
      await assert.rejects(finder.find({ region: 'us-east-1' }), (error: Error) => {
        assert.ok(error instanceof ClusterSearchError);
        assert.match(
          error.message,
          /^eks:ListClusters in us-east-1 of the function's account failed \(ServiceUnavailableException: Rate exceeded or service unavailable\); discovery tries again at its next run$/,
        );
        return true;
      });
    } finally {
      eks.unavailable(null);
    }
  });

  it('a cluster deleted between the list and its description is gone, not an error', async () => {
    eks.put('short-lived', { region: 'us-east-1' });
    eks.deleteAfterList('short-lived');
    const found = await finder.find({ region: 'us-east-1' });
    assert.deepEqual(
      found.map((c) => c.clusterName),
      ['in-us'],
    );
  });

  it('another account through its role: assumed once, its clusters only, each naming the role', async () => {
    const found = await finder.find({ region: 'eu-west-1', roleArn: ROLE });
    assert.deepEqual(found, [
      {
        clusterName: 'theirs',
        region: 'eu-west-1',
        roleArn: ROLE,
        status: 'ACTIVE',
        tags: { 'lease-watchdog': 'on' },
        arn: `arn:aws:eks:eu-west-1:${OTHER}:cluster/theirs`,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    ]);
    assert.deepEqual(
      sts.calls.map((c) => c.roleArn),
      [ROLE],
    );
    await assert.rejects(
      finder.find({ region: 'eu-west-1', roleArn: 'arn:aws:iam::210987654321:role/not-trusting' }),
      /^ClusterSearchError: eks:ListClusters in eu-west-1 through role 'arn:aws:iam::210987654321:role\/not-trusting' failed \(AccessDenied: .*\): that role needs eks:ListClusters and eks:DescribeCluster \(and its trust policy must let the function assume it\)$/,
    );
  });
});

describe('EKS access: the function lets itself in (discover.grantAccess)', () => {
  let eks: EksServer;
  const clients: EKSClient[] = [];
  const PRINCIPAL = 'arn:aws:iam::123456789012:role/lease-watchdog-fn';
  before(async () => {
    eks = await startEksServer({ payments: { region: 'eu-west-1' } });
  });
  after(async () => {
    for (const client of clients) client.destroy();
    await eks.close();
  });
  const access = () =>
    new EksClusterAccess((target) => {
      const client = new EKSClient({
        endpoint: eks.url,
        region: target.region,
        credentials: localCredentials(),
        maxAttempts: 1,
      });
      clients.push(client);
      return client;
    });

  it('creates the access entry in the group deploy/rbac.yaml binds, no access policy (none reads Nodes and Leases without Secrets); an entry that exists is kept', async () => {
    const target = { clusterName: 'payments', region: 'eu-west-1' };
    await access().grant(target, PRINCIPAL);
    assert.deepEqual([...eks.accessEntries], [[`payments ${PRINCIPAL}`, ['group:lease-watchdog']]]);
    // Again (a second container, a retried run): the entry is kept.
    await access().grant(target, PRINCIPAL);
    assert.equal(eks.accessEntries.size, 1);
  });

  it('a refusal is one line naming the call', async () => {
    eks.denyAll(true);
    try {
      await assert.rejects(
        access().grant({ clusterName: 'payments', region: 'eu-west-1' }, PRINCIPAL),
        /^Error: eks:CreateAccessEntry failed \(AccessDeniedException: User: .* is not authorized to perform: eks:DescribeCluster\)$/,
      );
    } finally {
      eks.denyAll(false);
    }
  });
});
