/**
 * The emails the watchdog sends, rendered by the real code from a scripted cluster: the source of
 * docs/EMAILS.md (`npm run emails` rewrites it; a test checks that it is current).
 */

import { writeFile } from 'node:fs/promises';
import {
  type RenderContext,
  renderBody,
  renderSubject,
} from '../lambda/adapters/notify/render/render.js';
import type { AlertOutcome } from '../lambda/core/alert-policy.js';
import { EMPTY_ALERT_STATE } from '../lambda/core/alert-state.js';
import { evaluate } from '../lambda/core/evaluate.js';
import { alertsForEvaluation } from '../lambda/core/incidents.js';
import type { LeaseInfo, NodeInfo, Observations, Snapshot } from '../lambda/core/model.js';
import type { Notification } from '../lambda/core/notification.js';
import {
  alertsForDegraded,
  alertsForReadFailure,
  setAsideNotice,
} from '../lambda/core/watchdog-alerts.js';
import { DEFAULT_ALERT_POLICY, DEFAULT_POLICY } from '../lambda/settings/index.js';

const T = Date.UTC(2026, 10, 29, 17, 50, 0);
const ZONES = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];
const NAMES = ZONES.flatMap((_, z) =>
  [11, 12, 13, 14].map((i) => `ip-10-0-${z + 1}-${i}.eu-west-1.compute.internal`),
);

function micro(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -1)}000Z`;
}

interface NodeState {
  /** Last renewal, epoch ms (kubelet clock = server clock here). */
  renewedAt: number;
  ready?: 'True' | 'False';
  cordoned?: boolean;
}

/** The cluster as the reader would hand it over at `at`: every live kubelet renewed 3 s ago. */
function snapshot(at: number, states: Map<string, NodeState>): Snapshot {
  const leases: LeaseInfo[] = [];
  const nodes: NodeInfo[] = [];
  NAMES.forEach((name, i) => {
    const zone = ZONES[Math.floor(i / 4)] as string;
    const state = states.get(name);
    leases.push({
      name,
      renewTime: micro(state?.renewedAt ?? at - 3_000),
      leaseDurationSeconds: 40,
    });
    nodes.push({
      name,
      createdAt: '2026-11-01T08:00:00Z',
      labels: {
        'topology.kubernetes.io/zone': zone,
        // The last node of each zone is in the GPU node group; the third is a spot instance.
        'eks.amazonaws.com/nodegroup': i % 4 === 3 ? 'gpu' : 'general',
        'node.kubernetes.io/instance-type': i % 4 === 3 ? 'g5.2xlarge' : 'm6i.xlarge',
        'eks.amazonaws.com/capacityType': i % 4 === 2 ? 'SPOT' : 'ON_DEMAND',
      },
      unschedulable: state?.cordoned ?? false,
      taints: [],
      ready: state?.ready ?? 'True',
      readyReason: state?.ready === 'False' ? 'KubeletNotReady' : 'KubeletReady',
      readyMessage:
        state?.ready === 'False'
          ? 'PLEG is not healthy: pleg was last seen active 3m10s ago'
          : undefined,
      providerID: `aws:///${zone}/i-0${(0x3a7f1c + i * 7919).toString(16)}e5d2b9c41f`,
    });
  });
  return { cluster: 'prod-eu', namespace: 'kube-node-lease', leases, nodes, serverTime: at };
}

/** Runs checks every minute from T, applying `events` (minute → changes), collecting notifications. */
function scenario(
  minutes: number,
  events: Record<number, (states: Map<string, NodeState>, at: number) => void>,
) {
  const states = new Map<string, NodeState>();
  let observations: Observations = new Map();
  let alerts = EMPTY_ALERT_STATE;
  const sent: Notification[] = [];
  for (let m = 0; m <= minutes; m++) {
    const at = T + m * 60_000;
    events[m]?.(states, at);
    const evaluation = evaluate(snapshot(at, states), observations, DEFAULT_POLICY, { now: at });
    observations = evaluation.observations;
    const outcome: AlertOutcome = alertsForEvaluation(evaluation, alerts, DEFAULT_ALERT_POLICY, at);
    alerts = outcome.state;
    if (outcome.notification) sent.push(outcome.notification);
  }
  return { sent, alerts, observations, at: T + minutes * 60_000 };
}

const [a1, , , , b1] = NAMES as [string, string, string, string, string];
const zoneC = NAMES.slice(8);

/** An `eks` cluster in the deployment's account, with a runbook: what its emails add. */
const EKS_CONTEXT: RenderContext = {
  kube: { eks: { clusterName: 'prod-eu', region: 'eu-west-1' } },
  aws: { account: '123456789012', region: 'eu-west-1' },
  runbookUrl: 'https://wiki.example.com/runbooks/node-down',
};

/** What EC2 and the cluster's Events said about the first FIRING's nodes (one of each outcome). */
function withEvidence(n: Notification): Notification {
  const [first, second] = n.firing;
  if (!first || !second) throw new Error('the evidence example needs two firing nodes');
  return {
    ...n,
    evidence: {
      nodes: [
        {
          node: first.name,
          instance: {
            instanceId: first.instance ?? 'i-0unknown',
            region: 'eu-west-1',
            state: 'stopped',
            stateReason: 'Server.SpotInstanceTermination: Spot instance termination',
            systemStatus: 'not-applicable',
            instanceStatus: 'not-applicable',
            scheduledEvents: [],
          },
          events: [
            {
              type: 'Normal',
              reason: 'NodeNotReady',
              message: `Node ${first.name} status is now: NodeNotReady`,
              count: 1,
              lastSeen: new Date(n.at - 20_000).toISOString(),
            },
          ],
        },
        {
          node: second.name,
          instance: {
            instanceId: second.instance ?? 'i-0unknown',
            region: 'eu-west-1',
            state: 'running',
            systemStatus: 'impaired',
            instanceStatus: 'ok',
            scheduledEvents: [
              'instance-stop from 2026-12-02T09:00:00.000Z: The instance is running on degraded hardware',
            ],
          },
          events: [
            {
              type: 'Normal',
              reason: 'NodeNotReady',
              message: `Node ${second.name} status is now: NodeNotReady`,
              count: 1,
              lastSeen: new Date(n.at - 70_000).toISOString(),
            },
          ],
        },
      ],
      unread: [],
    },
  };
}

/** One email of docs/EMAILS.md: its heading, the notification, and how its cluster is reached. */
interface Example {
  title: string;
  notification: Notification;
  context?: RenderContext;
}

/** The first notification of `kind` a scenario sent. */
function pick(list: Notification[], kind: string): Notification {
  const found = list.find((n) => n.kind === kind);
  if (!found) throw new Error(`the scenario sent no ${kind}`);
  return found;
}

/** The examples of docs/EMAILS.md, in its order: the nodes' emails, then the watchdog's own. */
export function examples(): Example[] {
  return [...nodeExamples(), ...watchdogExamples()];
}

/** What nodes going silent, not ready, dark by zone or node group, or stuck, send. */
function nodeExamples(): Example[] {
  const failing = scenario(8, {
    1: (s, at) => s.set(a1, { renewedAt: at - 20_000 }),
    2: (s, at) => s.set(b1, { renewedAt: at - 3_000, ready: 'False' }),
    7: (s) => {
      s.delete(a1);
      s.delete(b1);
    },
  });
  const storm = scenario(3, {
    1: (s, at) => {
      for (const name of zoneC) s.set(name, { renewedAt: at - 15_000 });
    },
  });
  // Reminders come every reminderIntervalSeconds (4 h by default) while a node stays down.
  const longDown = scenario(4 * 60 + 2, {
    1: (s, at) => s.set(a1, { renewedAt: at - 20_000 }),
  });
  const stuck = scenario(33, {
    1: (s, at) => s.set(a1, { renewedAt: at - 20_000, cordoned: true }),
  });
  return [
    {
      title:
        'A node stops renewing its lease; another reports Ready=False (an EKS cluster with a runbook)',
      notification: withEvidence(pick(failing.sent, 'FIRING')),
      context: EKS_CONTEXT,
    },
    { title: 'Both come back', notification: pick(failing.sent, 'RESOLVED') },
    {
      title:
        'Still down four hours later: a REMINDER, which points at the FIRING for what happens next',
      notification: pick(longDown.sent, 'REMINDER'),
    },
    {
      title: 'A zone goes dark: one summary, not one email per node',
      notification: pick(storm.sent, 'STORM'),
    },
    {
      title: 'A cordoned node stays silent for 30 minutes: its removal seems stuck',
      notification: pick(stuck.sent, 'FIRING'),
    },
  ];
}

/** What the watchdog says about itself: the cluster unreadable, Nodes unreadable, state reset. */
function watchdogExamples(): Example[] {
  const forbidden =
    'cannot list leases in namespace kube-node-lease (API group coordination.k8s.io) (403 Forbidden): leases.coordination.k8s.io is forbidden: User "arn:aws:sts::123456789012:assumed-role/LeaseWatchdog-FunctionRole/lease-watchdog" cannot list resource "leases" in API group "coordination.k8s.io" in the namespace "kube-node-lease" — grant get/list on leases, see deploy/rbac.yaml';
  // Two failed reads in a row (readFailuresBeforePage): the second pages.
  const firstFailure = alertsForReadFailure(
    { cluster: 'prod-eu', failure: 'forbidden', message: forbidden },
    EMPTY_ALERT_STATE,
    DEFAULT_ALERT_POLICY,
    T + 29 * 60_000,
  );
  const unreadable = alertsForReadFailure(
    { cluster: 'prod-eu', failure: 'forbidden', message: forbidden },
    firstFailure.state,
    DEFAULT_ALERT_POLICY,
    T + 30 * 60_000,
  );
  const degraded = alertsForDegraded(
    'prod-eu',
    {
      degraded:
        'cannot list nodes (403 Forbidden): nodes is forbidden: User "arn:aws:sts::123456789012:assumed-role/LeaseWatchdog-FunctionRole/lease-watchdog" cannot list resource "nodes" in API group "" at the cluster scope — grant get/list on nodes, see deploy/rbac.yaml; checked leases alone',
      previous: null,
    },
    EMPTY_ALERT_STATE,
    T + 40 * 60_000,
  );
  return [
    {
      title: 'The watchdog cannot read the cluster',
      notification:
        unreadable.notification ??
        (() => {
          throw new Error('no WATCHDOG');
        })(),
    },
    {
      title: 'The Nodes cannot be read: checks run on leases alone (one NOTICE)',
      notification:
        degraded.notification ??
        (() => {
          throw new Error('no NOTICE');
        })(),
    },
    {
      title: 'The stored state could not be read: reset, kept aside, announced once (NOTICE)',
      notification: setAsideNotice(
        'prod-eu',
        'state-reset',
        {
          reason:
            'state of cluster prod-eu in table LeaseWatchdog-StateTable is unreadable: the stored blob does not match its checksum',
          copy: 'table LeaseWatchdog-StateTable, pk cluster#prod-eu, sk corrupt#2026-11-29T18:40:00.000Z#head',
        },
        T + 50 * 60_000,
      ),
    },
  ];
}

export function emailsMarkdown(): string {
  const parts = [
    '# What the emails look like',
    '',
    'Rendered by the code (`lambda/adapters/notify/render/render.ts`) from a scripted cluster of 12',
    'nodes checked every minute with the default settings (`docs/emails.ts`; `npm run emails`',
    'rewrites this file, a test checks it is current). SNS sends each as a plain-text email; the',
    'other formats: [NOTIFICATIONS.md](NOTIFICATIONS.md).',
    '',
    "Every age said about a silent node is on the watchdog's clock (renewTime as the kubelet wrote it",
    "appears only when the node's clock is off). Every kubectl command names its context: for EKS the",
    'one `aws eks update-kubeconfig --alias` makes, for a kubeconfig the context the watchdog uses',
    '(as in every example after the first). "What happens next in Kubernetes" is said once per',
    'incident, in its FIRING, with the evidence read at alert time. A stored silence the check cannot',
    'honour is set aside and announced by a NOTICE of the same form as the last one here.',
    '',
  ];
  for (const { title, notification, context } of examples()) {
    parts.push(
      `## ${title}`,
      '',
      '```',
      `Subject: ${renderSubject(notification)}`,
      '',
      renderBody(notification, context),
      '```',
      '',
    );
  }
  return parts.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await writeFile(new URL('./EMAILS.md', import.meta.url), emailsMarkdown());
  process.stdout.write('wrote docs/EMAILS.md\n');
}
