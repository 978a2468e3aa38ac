/**
 * The parts of `watch`, beyond those of `check` (compose.ts): the state store, the notifier, the
 * evidence reader and the silences. A module of its own so that `check` loads none of them (the
 * renderers; the AWS SDK only with --sns-topic-arn).
 */

import { randomUUID } from 'node:crypto';
import type { SNSClient } from '@aws-sdk/client-sns';
import { NodeEventsReader } from '../lambda/adapters/evidence/node-events.js';
import { NodeCache } from '../lambda/adapters/kube/kube-reader.js';
import { TerminalNotifier } from '../lambda/adapters/notify/delivery/terminal-notifier.js';
import { renderSubject } from '../lambda/adapters/notify/render/render.js';
import { FileSilenceStore } from '../lambda/adapters/state/file/file-silence-store.js';
import { FileStateStore } from '../lambda/adapters/state/file/file-store.js';
import { MemoryStateStore } from '../lambda/adapters/state/memory/memory-store.js';
import type { Notifier } from '../lambda/ports/index.js';
import type { CycleDeps } from '../lambda/use-cases/check-cycle.js';
import { UsageError, type WatchOptions } from './args.js';
import { clusterKeyOf, keyedSilenceStore, keyedStateStore } from './cluster-key.js';
import { policiesFor, readerFor } from './compose.js';
import { awsClients, type Io, timeOfDay } from './io.js';

export interface WatchParts {
  /** The name the cluster is reported under: the kubeconfig context. */
  readonly cluster: string;
  readonly cycle: CycleDeps;
  /** Terminal output held until the check's changes are printed (each email after its cause). */
  readonly held: string[];
}

/**
 * Where notifications go: SNS with --sns-topic-arn (the SDK loaded then), else the terminal. Their
 * kubectl commands name `context`, the kubeconfig context the watch reads through (--context, or
 * the current context).
 */
async function notifierFor(
  options: WatchOptions,
  io: Io,
  held: string[],
  context: string,
): Promise<Notifier> {
  const contextFor = () => ({
    namespace: options.namespace,
    kube: context ? { context } : undefined,
  });
  if (!options.snsTopicArn) return new TerminalNotifier((text) => held.push(text), { contextFor });
  const region = options.snsTopicArn.split(':')[3];
  const [aws, { SnsNotifier }] = await Promise.all([
    awsClients(io),
    import('../lambda/adapters/notify/delivery/sns-notifier.js'),
  ]);
  const client = aws.sns(region);
  await checkTopic(client, options.snsTopicArn, io);
  const sns = new SnsNotifier({ client, topicArn: options.snsTopicArn, contextFor });
  return {
    async publish(notification, signal) {
      await sns.publish(notification, signal);
      held.push(`${timeOfDay(notification.at)}   published to SNS: ${renderSubject(notification)}`);
    },
  };
}

/**
 * Before the first check: the topic exists and the credentials reach it (SNS GetTopicAttributes),
 * else one line and exit 2, not "1 notification not published and lost" at the first page. Not
 * allowed to read its attributes: the publishing may still be allowed, and the first publish
 * tells (a warning).
 */
async function checkTopic(client: SNSClient, topicArn: string, io: Io): Promise<void> {
  const { GetTopicAttributesCommand } = await import('@aws-sdk/client-sns');
  try {
    const asked = new GetTopicAttributesCommand({ TopicArn: topicArn });
    await client.send(asked, { abortSignal: io.signal });
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    const why = `${name}: ${message.split('\n')[0]}`;
    if (name === 'AuthorizationErrorException') {
      io.stderr(`lease-watchdog: warning: the topic ${topicArn} cannot be checked (${why})`);
      return;
    }
    throw new UsageError(
      `cannot publish to ${topicArn} (${why}): check the topic ARN and the AWS credentials and region, or leave out --sns-topic-arn`,
    );
  }
}

export async function composeWatch(options: WatchOptions, io: Io): Promise<WatchParts> {
  const policies = policiesFor(options);
  const nodeCache =
    options.nodeRefreshSeconds > 0
      ? new NodeCache(options.nodeRefreshSeconds * 1000, io.now)
      : undefined;
  const { reader, kubeConfig } = readerFor(options, io, policies, nodeCache);
  const held: string[] = [];
  return {
    cluster: reader.cluster,
    held,
    cycle: {
      reader,
      store: options.stateFile
        ? keyedStateStore(new FileStateStore(options.stateFile), clusterKeyOf(kubeConfig))
        : new MemoryStateStore(),
      notifier: await notifierFor(options, io, held, kubeConfig.getCurrentContext()),
      policy: policies.policy,
      alertPolicy: policies.alertPolicy,
      clock: io.now,
      runId: `cli-${randomUUID()}`,
      lockMs: Math.max(60_000, options.intervalSeconds * 2000),
      // The node's Events, with the identity that reads the leases; no EC2 (no AWS identity here).
      evidence: [
        new NodeEventsReader({
          kubeConfig: async () => kubeConfig,
          requestTimeoutMs: options.timeoutSeconds * 1000,
        }),
      ],
      silences: options.stateFile
        ? keyedSilenceStore(
            new FileSilenceStore(options.stateFile, io.now),
            clusterKeyOf(kubeConfig),
          )
        : // Without a state file there are no silences: `silence add` needs one.
          undefined,
    },
  };
}
