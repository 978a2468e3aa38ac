/**
 * The metric behind the stack's `NoConfirmedSubscription` alarm, and the deployment-wide copy of
 * `NotificationsAbandoned`, as the real middy handler writes them (Powertools EMF on stdout), with
 * the topic's subscriptions listed from the local SNS server over SNS's query protocol.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../lambda/adapters/metrics/metric-names.js';
import { COUNT_BUDGET_MS, COUNT_TTL_MS } from '../lambda/use-cases/confirmed-subscriptions.js';
import { GIVE_UP_AFTER_MS } from '../lambda/use-cases/outbox-publishing.js';
import { captureEmf, type EmfCapture, type EmfLine } from '../testkit/emf-capture.js';
import {
  type Container,
  type Harness,
  localCredentials,
  SCHEDULE_MS,
  startWatchdogHarness,
  TOPIC_ARN,
} from '../testkit/watchdog-harness.js';

let h: Harness;
let emf: EmfCapture;
let client: SNSClient;

describe('lambda e2e subscriptions', () => {
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 3 } }, snsMaxAttempts: 1 });
    client = new SNSClient({
      endpoint: h.sns.url,
      region: 'us-east-1',
      credentials: localCredentials(),
      maxAttempts: 1,
    });
    emf = captureEmf();
  });
  after(async () => {
    emf.stop();
    client.destroy();
    await h.close();
  });

  function subscribe(protocol: string, endpoint: string) {
    return client.send(
      new SubscribeCommand({ TopicArn: TOPIC_ARN, Protocol: protocol, Endpoint: endpoint }),
    );
  }

  /** A fresh Lambda container (nothing cached) whose metrics go out as EMF lines. */
  function emfContainer(): Container {
    return h.container({ emfMetrics: true });
  }

  /** The ConfirmedSubscriptions values written, after checking each line's namespace and dimensions. */
  function confirmedValues(): number[] {
    return emf.of('ConfirmedSubscriptions').map((line) => {
      const [directive, ...more] = line._aws.CloudWatchMetrics;
      assert.equal(more.length, 0);
      assert.equal(directive?.Namespace, METRICS_NAMESPACE);
      assert.deepEqual(directive?.Dimensions, [['service']], 'service only: what the alarm reads');
      assert.equal(line.service, SERVICE_NAME);
      assert.equal(line.cluster, undefined);
      return line.ConfirmedSubscriptions as number;
    });
  }

  function warnings(container: Container) {
    return container.logger.entries.filter((e) => e.level === 'warn');
  }

  describe('lambda e2e: ConfirmedSubscriptions (is anyone still subscribed to the topic?)', () => {
    let container: Container;
    beforeEach(() => {
      h.sns.reset();
      emf.clear();
      h.clock.advance(SCHEDULE_MS);
      container = emfContainer();
    });

    it('no confirmed subscription (one still pending): 0, with the service dimension only', async () => {
      const answer = await subscribe('email', 'oncall@example.com');
      assert.equal(answer.SubscriptionArn, 'pending confirmation');
      await container.invoke();
      assert.deepEqual(confirmedValues(), [0]);
    });

    it('one confirmed and one pending: 1', async () => {
      await subscribe('email', 'oncall@example.com');
      await subscribe('email', 'platform@example.com');
      h.sns.confirm('oncall@example.com');
      await container.invoke();
      assert.deepEqual(confirmedValues(), [1]);
    });

    it('counts across pages (SNS lists 100 a page)', async () => {
      await Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          subscribe('sqs', `arn:aws:sqs:us-east-1:123456789012:q${i}`),
        ),
      );
      await subscribe('email', 'oncall@example.com');
      await container.invoke();
      assert.deepEqual(confirmedValues(), [120]);
      assert.equal(h.sns.listRequests, 2);
    });

    it('SNS refuses the listing: the check still succeeds, nothing is emitted, a warning says why', async () => {
      await subscribe('sqs', 'arn:aws:sqs:us-east-1:123456789012:q');
      h.sns.failNext(1, 'authorization', 'ListSubscriptionsByTopic');
      const before = warnings(container).length;
      const report = await container.invoke();
      assert.equal(report.clusters[0]?.lastStatus, 'checked');
      assert.equal(emf.of('CheckSucceeded').length, 1, 'the check counted as successful');
      assert.deepEqual(confirmedValues(), []);
      const [warning, ...more] = warnings(container).slice(before);
      assert.equal(more.length, 0);
      assert.match(String(warning?.message), /cannot count the confirmed subscriptions/);
      assert.match(String(warning?.fields.error), /not authorized/);
      assert.equal(h.sns.listRequests, 1);
    });

    it('SNS does not answer the listing: the invocation returns within the budget, nothing emitted', async () => {
      h.sns.failNext(1, 'hang', 'ListSubscriptionsByTopic');
      const started = Date.now();
      const report = await container.invoke();
      const elapsed = Date.now() - started;
      assert.equal(report.clusters[0]?.lastStatus, 'checked');
      assert.deepEqual(confirmedValues(), []);
      assert.ok(elapsed < COUNT_BUDGET_MS + 5_000, `returned after ${elapsed} ms`);
      assert.match(
        String(warnings(container).at(-1)?.message),
        /cannot count the confirmed subscriptions/,
      );
    });

    it('lists at most once per container per TTL, emitting the kept count on every invocation', async () => {
      await subscribe('sqs', 'arn:aws:sqs:us-east-1:123456789012:q');
      await container.invoke();
      h.sns.unsubscribe('arn:aws:sqs:us-east-1:123456789012:q');
      h.clock.advance(COUNT_TTL_MS - 1_000);
      await container.invoke();
      assert.equal(h.sns.listRequests, 1, 'the second invocation used the kept count');
      assert.deepEqual(confirmedValues(), [1, 1]);

      h.clock.advance(1_000);
      await container.invoke();
      assert.equal(h.sns.listRequests, 2, 'listed again once the count is TTL old');
      assert.deepEqual(confirmedValues(), [1, 1, 0], 'the unsubscribe shows');
    });

    it('after a failed listing it does not try again before the TTL, and emits nothing meanwhile', async () => {
      h.sns.failNext(1, 'internal', 'ListSubscriptionsByTopic');
      await container.invoke();
      h.clock.advance(COUNT_TTL_MS - 1_000);
      await container.invoke();
      assert.equal(h.sns.listRequests, 1);
      assert.deepEqual(confirmedValues(), []);
      h.clock.advance(1_000);
      await container.invoke();
      assert.equal(h.sns.listRequests, 2);
      assert.deepEqual(confirmedValues(), [0]);
    });
  });

  describe('lambda e2e: NotificationsAbandoned, for the whole deployment', () => {
    it('a given-up notification is counted in one EMF line with {service} alone', async () => {
      h.sns.reset();
      const container = emfContainer();
      const t = h.target('prod');
      h.clock.advance(SCHEDULE_MS);
      await container.invoke();
      emf.clear();
      t.sim.stopKubelet(t.nodes[0] as string);
      // Refused on every check, a minute apart: given up on the one 30 min after the first.
      const checks = GIVE_UP_AFTER_MS / SCHEDULE_MS + 1;
      for (let i = 0; i < checks; i++) {
        h.sns.failNext(1, 'invalid-parameter');
        h.clock.advance(SCHEDULE_MS);
        await container.invoke();
      }
      const lines = emf.of('NotificationsAbandoned');
      const given: EmfLine[] = lines.filter((line) => line.NotificationsAbandoned === 1);
      assert.equal(given.length, 1, 'given up once, on the last refusal');
      assert.equal(
        lines.length,
        1,
        'written on that check alone: a metric never written is not billed',
      );
      for (const line of lines) {
        const [directive] = line._aws.CloudWatchMetrics;
        assert.equal(directive?.Namespace, METRICS_NAMESPACE);
        assert.deepEqual(directive?.Dimensions, [['service']]);
        assert.equal(line.service, SERVICE_NAME);
        assert.equal(line.cluster, undefined, 'no cluster dimension: no metric-month per cluster');
      }
    });
  });
});
