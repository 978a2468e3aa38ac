/**
 * The EC2 Query call the evidence makes without @aws-sdk/client-ec2 (its answers read by the SDK's
 * own XML parser): the signed call against a scripted endpoint (happy, refused, hanging, malformed) and, when
 * `moto_server` is installed, against moto as a second opinion on the wire format.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import {
  childrenNamed,
  Ec2QueryError,
  ec2Query,
  textAt,
} from '../lambda/adapters/evidence/ec2-query.js';
import { InstanceStateReader } from '../lambda/adapters/evidence/instance-evidence.js';
import type { AlertNode } from '../lambda/core/notification.js';
import { EvidenceReadError } from '../lambda/ports/index.js';
import { type Ec2Server, startEc2Server } from '../testkit/ec2-server.js';
import { closedPort } from '../testkit/ports.js';
import { waitUntil } from '../testkit/wait-until.js';

const credentials = async () => ({ accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' });

describe('ec2Query against a scripted endpoint', () => {
  let ec2: Ec2Server;
  const options = () => ({ credentials, endpoint: () => ec2.url });
  before(async () => {
    ec2 = await startEc2Server('happy');
    ec2.instances.set('i-0123456789abcdef0', { state: 'running', systemStatus: 'ok' });
  });
  after(() => ec2.close());

  it('signs with SigV4 for the region and reads the answer', async () => {
    const root = await ec2Query(
      'eu-west-1',
      {
        Action: 'DescribeInstanceStatus',
        IncludeAllInstances: 'true',
        'InstanceId.1': 'i-0123456789abcdef0',
      },
      options(),
      AbortSignal.timeout(5_000),
    );
    assert.equal(root.name, 'DescribeInstanceStatusResponse');
    const request = ec2.requests.at(-1);
    assert.equal(request?.params.get('Version'), '2016-11-15');
    assert.match(
      request?.authorization ?? '',
      /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-west-1\/ec2\/aws4_request, SignedHeaders=content-length;content-type;host;(x-amz-content-sha256;)?x-amz-date, /,
    );
  });

  it('reads entities, repeated and empty elements as EC2 writes them', async () => {
    ec2.instances.set('i-0123456789abcdef1', {
      state: 'stopped',
      reasonCode: 'Server.SpotInstanceTermination',
      events: [{ code: 'system-reboot', description: 'a & b <c>', notBefore: '2026-12-08' }],
    });
    const reader = new InstanceStateReader({ ...options(), regionOf: () => 'eu-west-1' });
    const found = await reader.read(
      ['i-0123456789abcdef0', 'i-0123456789abcdef1'].map(
        (instance, i) => ({ name: `n${i}`, instance, zone: 'eu-west-1a' }) as AlertNode,
      ),
      AbortSignal.timeout(5_000),
    );
    assert.deepEqual(
      found.map((x) => x.instance),
      [
        {
          instanceId: 'i-0123456789abcdef0',
          region: 'eu-west-1',
          state: 'running',
          systemStatus: 'ok',
          instanceStatus: 'not-applicable',
          scheduledEvents: [],
        },
        {
          instanceId: 'i-0123456789abcdef1',
          region: 'eu-west-1',
          state: 'stopped',
          stateReason: 'Server.SpotInstanceTermination',
          instanceStatus: 'not-applicable',
          systemStatus: 'not-applicable',
          scheduledEvents: ['system-reboot from 2026-12-08: a & b <c>'],
        },
      ],
    );
    ec2.instances.delete('i-0123456789abcdef1');
  });

  it('turns an EC2 error answer into its code', async () => {
    ec2.mode = 'denied';
    await assert.rejects(
      ec2Query('eu-west-1', { Action: 'DescribeInstances' }, options(), AbortSignal.timeout(5_000)),
      (error: unknown) => error instanceof Ec2QueryError && error.code === 'UnauthorizedOperation',
    );
    for (const mode of ['malformed', 'doctype'] as const) {
      ec2.mode = mode;
      await assert.rejects(
        ec2Query(
          'eu-west-1',
          { Action: 'DescribeInstances' },
          options(),
          AbortSignal.timeout(5_000),
        ),
        (error: unknown) => error instanceof Ec2QueryError && error.code === 'BadAnswer',
        mode,
      );
    }
    ec2.mode = 'happy';
  });

  it('stops waiting for an endpoint that hangs when the signal aborts', async () => {
    ec2.mode = 'hang';
    const stop = new AbortController();
    const call = ec2Query('eu-west-1', { Action: 'DescribeInstances' }, options(), stop.signal);
    await waitUntil(() => ec2.pending() > 0, 'the request reached the hanging EC2 endpoint', {
      intervalMs: 10,
    });
    stop.abort();
    await assert.rejects(call, (error: unknown) => (error as Error).name === 'AbortError');
    ec2.mode = 'happy';
  });

  it('an unreachable endpoint is one line naming the host', async () => {
    const port = await closedPort();
    const reader = new InstanceStateReader({
      credentials,
      endpoint: () => `http://127.0.0.1:${port}`,
      regionOf: () => 'eu-west-1',
    });
    const node = { name: 'n1', instance: 'i-0123456789abcdef0', zone: 'eu-west-1a' } as AlertNode;
    await assert.rejects(
      reader.read([node], AbortSignal.timeout(5_000)),
      (error: unknown) =>
        error instanceof EvidenceReadError &&
        error.message === `Unreachable: could not reach 127.0.0.1:${port}`,
    );
  });

  it('asks only about EC2 nodes with a region, and says "not found" for an unknown instance', async () => {
    const reader = new InstanceStateReader({
      credentials,
      endpoint: () => ec2.url,
      regionOf: (x) => (x.zone ? 'eu-west-1' : undefined),
    });
    const asked = ec2.requests.length;
    const found = await reader.read(
      [
        { name: 'aws', instance: 'i-0123456789abcdef0', zone: 'eu-west-1a' } as AlertNode,
        { name: 'gone', instance: 'i-0fffffffffffffff0', zone: 'eu-west-1a' } as AlertNode,
        { name: 'gke', instance: 'gke-pool-1234', zone: 'europe-west1-b' } as AlertNode,
        { name: 'nozone', instance: 'i-0123456789abcdef1', zone: null } as AlertNode,
      ],
      AbortSignal.timeout(5_000),
    );
    assert.deepEqual(
      found.map((x) => [x.node, x.instance?.state]),
      [
        ['aws', 'running'],
        ['gone', 'not found'],
      ],
    );
    const ids = ec2.requests.slice(asked).map((r) => r.params.getAll('InstanceId.1').join());
    assert.ok(!ids.some((id) => id.includes('gke')), 'a non-EC2 node is not asked about');
  });
});

const moto = spawnSync('sh', ['-c', 'command -v moto_server'], { encoding: 'utf8' }).stdout.trim();

describe('ec2Query against moto (a second opinion)', {
  skip: moto ? false : 'moto_server is not installed',
}, () => {
  let server: ChildProcess;
  let url = '';
  before(async () => {
    const port = await closedPort();
    server = spawn(moto, ['-p', String(port)], { stdio: 'ignore' });
    url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) {
      const up = await fetch(`${url}/moto-api/`).then(
        () => true,
        () => false,
      );
      if (up) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('moto_server did not start');
  });
  after(() => {
    server.kill();
  });

  it('reads a running and a stopped instance as moto describes them', async () => {
    const options = { credentials, endpoint: () => url };
    const signal = () => AbortSignal.timeout(90_000);
    const run = await ec2Query(
      'eu-west-1',
      {
        Action: 'RunInstances',
        ImageId: 'ami-12c6146b',
        MinCount: '2',
        MaxCount: '2',
        InstanceType: 't3.micro',
      },
      options,
      signal(),
    );
    const set = childrenNamed(run.value, 'instancesSet')[0];
    const ids = childrenNamed(set, 'item').map((i) => textAt(i, 'instanceId') as string);
    assert.equal(ids.length, 2);
    await ec2Query(
      'eu-west-1',
      { Action: 'StopInstances', 'InstanceId.1': ids[1] as string },
      options,
      signal(),
    );
    const reader = new InstanceStateReader({ ...options, regionOf: () => 'eu-west-1' });
    const found = await reader.read(
      ids.map((instance, i) => ({ name: `n${i}`, instance, zone: 'eu-west-1a' }) as AlertNode),
      signal(),
    );
    assert.deepEqual(
      found.map((x) => x.instance?.state),
      ['running', 'stopped'],
    );
    assert.equal(found[0]?.instance?.systemStatus, 'ok');
    assert.match(found[1]?.instance?.stateReason ?? '', /^Client\.UserInitiatedShutdown/);
  });
});
