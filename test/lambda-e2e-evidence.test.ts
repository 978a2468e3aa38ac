/**
 * Evidence at alert time, through the real handler: a FIRING carries EC2's word on the instance
 * (from a scripted EC2 Query endpoint: state, reason, status checks, scheduled events) and the
 * node's last Events (from the simulated API server over HTTPS); a source that refuses, answers
 * garbage or hangs becomes one line saying what could not be read, and a hanging one does not
 * hold the FIRING past the evidence budget.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { instanceOf } from '../lambda/core/node-verdicts.js';
import { type Ec2Server, startEc2Server } from '../testkit/ec2-server.js';
import type { ReceivedMessage } from '../testkit/sns-server.js';
import { type Harness, type SimTarget, startWatchdogHarness } from '../testkit/watchdog-harness.js';

const BUDGET_MS = 1_000;

function instanceOfNode(target: SimTarget, node: string): string {
  const instance = instanceOf(target.sim.nodeObject(node)?.spec.providerID);
  assert.ok(instance, `node ${node} has an instance id`);
  return instance;
}

describe('lambda e2e: evidence at alert time in the FIRING', () => {
  let h: Harness;
  let ec2: Ec2Server;
  let target: SimTarget;
  before(async () => {
    ec2 = await startEc2Server('happy');
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 12 } },
      ec2Endpoint: ec2.url,
      evidenceBudgetMs: BUDGET_MS,
    });
    target = h.target('prod');
    await h.run();
  });
  after(async () => {
    await h.close();
    await ec2.close();
  });

  /** Stops `victim`'s kubelet and runs the schedule until its FIRING arrives. */
  async function firingFor(victim: string): Promise<ReceivedMessage> {
    const before = h.messages('FIRING').length;
    target.sim.stopKubelet(victim);
    for (let i = 0; i < 4 && h.messages('FIRING').length === before; i++) await h.tick();
    const firing = h.messages('FIRING')[before];
    assert.ok(firing, `a FIRING for ${victim}`);
    assert.ok(firing.message.includes(victim), 'about the victim');
    return firing;
  }

  it('shows the EC2 state, its reason, status checks and scheduled events, and the Events', async () => {
    const victim = target.nodes[0] as string;
    const instance = instanceOfNode(target, victim);
    ec2.instances.set(instance, {
      state: 'stopped',
      reasonCode: 'Server.SpotInstanceTermination',
      reasonMessage: 'Server.SpotInstanceTermination: Spot instance termination',
      systemStatus: 'impaired',
      instanceStatus: 'impaired',
      events: [
        {
          code: 'instance-stop',
          description: 'The instance is running on degraded hardware',
          notBefore: '2026-12-01T00:00:00.000Z',
        },
      ],
    });
    const body = (await firingFor(victim)).message;
    assert.match(body, /EVIDENCE AT ALERT TIME/);
    assert.ok(
      body.includes(
        `${instance} in eu-west-1: stopped (Server.SpotInstanceTermination: Spot instance termination)`,
      ),
      body,
    );
    assert.match(body, /status checks:\s+system impaired, instance impaired/);
    assert.match(
      body,
      /scheduled:\s+instance-stop from 2026-12-01T00:00:00.000Z: The instance is running on degraded hardware/,
    );
    assert.match(body, /events:\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \([^)]+ ago\) Normal \w+/);
    assert.doesNotMatch(body, /not read:/);
    // The region is the zone's; the account of a token cluster is not guessed.
    assert.match(body, /AWS:\s+account unknown, region eu-west-1 \(from the nodes' zones\)/);
    assert.ok(
      body.includes(
        `aws ec2 describe-instance-status --instance-ids ${instance} --include-all-instances --region eu-west-1`,
      ),
    );
    assert.ok(body.includes(`aws ssm start-session --target ${instance} --region eu-west-1`));
    // Signed calls (SigV4, the function's credentials, the region's scope), both actions asked.
    const actions = ec2.requests.map((r) => r.action).sort();
    assert.deepEqual(actions, ['DescribeInstanceStatus', 'DescribeInstances']);
    for (const r of ec2.requests) {
      assert.match(
        r.authorization ?? '',
        /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/eu-west-1\/ec2\/aws4_request/,
      );
      assert.deepEqual(r.params.getAll('InstanceId.1'), [instance]);
    }
    assert.equal(
      ec2.requests
        .find((r) => r.action === 'DescribeInstanceStatus')
        ?.params.get('IncludeAllInstances'),
      'true',
    );
  });

  it('says in one line that EC2 refused, and what to grant; the Events still show', async () => {
    ec2.mode = 'denied';
    const body = (await firingFor(target.nodes[1] as string)).message;
    assert.match(
      body,
      /EC2 state not read: UnauthorizedOperation \(grant ec2:DescribeInstanceStatus\)/,
    );
    assert.match(body, /events:\s+\d{4}-/);
  });

  it('says in one line that the EC2 answer could not be read', async () => {
    ec2.mode = 'malformed';
    const body = (await firingFor(target.nodes[2] as string)).message;
    assert.match(
      body,
      /EC2 state not read: BadAnswer: 127\.0\.0\.1:\d+ answered 200 with no readable\s+XML/,
    );
  });

  it('follows no redirect: the signed call and its session token never reach another host', async () => {
    const other = await startEc2Server('happy');
    try {
      ec2.mode = 'redirect';
      ec2.redirectTo = other.url;
      const body = (await firingFor(target.nodes[4] as string)).message;
      assert.deepEqual(other.requests, [], 'nothing reached the other host');
      assert.match(
        body,
        /EC2 state not read: Redirect: 127\.0\.0\.1:\d+ answered 307 \(a redirect\)/,
      );
      assert.match(body, /events:\s+\d{4}-/, 'the Events still show');
    } finally {
      await other.close();
    }
  });

  it('does not hold the FIRING for an EC2 endpoint that never answers', async () => {
    ec2.mode = 'hang';
    const asked = ec2.requests.length;
    const body = (await firingFor(target.nodes[3] as string)).message;
    // EC2 never answered (the FIRING went out all the same), and the call was given up.
    assert.ok(ec2.requests.length > asked, 'EC2 was asked');
    assert.match(body, new RegExp(`EC2 state not read: no answer within ${BUDGET_MS / 1000}s`));
    assert.match(body, /events:\s+\d{4}-/, 'the Events that did answer are kept');
    assert.equal(ec2.pending(), 0, 'the hanging calls were cut off, not left open');
  });
});
