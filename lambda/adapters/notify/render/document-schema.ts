/**
 * The machine-readable notification, version 1: what SQS, Lambda, HTTP(S) and Firehose
 * subscribers of the topic receive (the `sqs`, `lambda`, `http`, `https` and `firehose` keys of a
 * `MessageStructure: json` publish). Declared once here: the TypeScript type, the JSON Schema
 * published as docs/schema/notification.v1.json (`npm run docs:notifications`) and the tests' validation
 * all come from it.
 *
 * Compatibility: within v1, fields are only added (consumers must ignore fields they do not know)
 * and enums may gain values (a new kind, verdict or severity); a field is never removed, renamed
 * or given another meaning without a new `schema` string.
 */
import * as z from 'zod';
import { VERDICTS } from '../../../core/model.js';
import { DISCOVERY_CHANGES, NOTIFICATION_KINDS, SEVERITIES } from '../../../core/notification.js';
import { DOCUMENT_SCHEMA } from './document-version.js';

/** What happened to a node in this check: the list of the notification it comes from. */
export const NODE_CHANGES = ['firing', 'flapping', 'reminder', 'resolved', 'silenced'] as const;

const time = z.iso
  .datetime()
  .meta({ description: 'UTC, RFC 3339 with milliseconds: 2026-11-29T17:55:00.000Z' });
const nullableText = (description: string) => z.string().nullable().meta({ description });
/** An incident key (lambda/core/incident-keys.ts): `lw-<kind>-<24 hex digits>`. */
const incidentKeyField = z
  .string()
  .regex(/^lw-(node|watchdog|storm)-[0-9a-f]{24}$/)
  .meta({ description: 'lw-node-, lw-watchdog- or lw-storm- and 24 hex digits' });

export const documentNode = z
  .object({
    name: z
      .string()
      .meta({ description: 'the Node (or Lease) name, sanitised, at most 253 characters' }),
    change: z.enum(NODE_CHANGES).meta({
      description:
        'firing: newly down; flapping: going down and up; reminder: still down; resolved: the incident ended; silenced: a silence or maintenance window took the incident over (not a recovery: a node still down when it ends pages again)',
    }),
    verdict: z.enum(VERDICTS).meta({ description: 'the verdict of this check (see the README)' }),
    zone: nullableText('topology.kubernetes.io/zone'),
    instance: nullableText('the instance id from spec.providerID, e.g. i-0abc1234567890def'),
    nodeGroup: nullableText(
      'the node group or node pool (eks.amazonaws.com/nodegroup, karpenter.sh/nodepool, ...)',
    ),
    instanceType: nullableText('node.kubernetes.io/instance-type'),
    capacityType: nullableText('on-demand or spot'),
    renewTime: nullableText("the lease's spec.renewTime as last read (the kubelet's clock)"),
    silentForSeconds: z
      .number()
      .nullable()
      .meta({ description: "silence measured on the watchdog's clock, seconds" }),
    since: time.nullable().meta({ description: 'when the incident opened (watchdog clock)' }),
    reason: z.string().meta({ description: 'one human sentence: why this verdict' }),
    resolution: nullableText(
      'for resolved nodes, how the incident ended: recovered, cordoned, deleting, autoscaler-removal, karpenter-disruption, graceful-shutdown, out-of-service, spot-interruption, instance-terminated, excluded, silenced, maintenance, node-deleted',
    ),
    incidentKey: incidentKeyField.optional().meta({
      description:
        "the node's incident key: the same on its firing, reminder, flapping and resolved entries, new for each incident (absent on notifications made before keys)",
    }),
  })
  .meta({ description: 'one node the notification is about' });

const zoneCount = z.object({
  zone: z.string(),
  total: z.int().min(0),
  silent: z.int().min(0).meta({ description: 'nodes of the zone whose leases went silent' }),
});

const nodeGroupCount = z.object({
  nodeGroup: z.string(),
  total: z.int().min(0),
  silent: z.int().min(0).meta({ description: 'nodes of the node group whose leases went silent' }),
});

export const notificationDocument = z
  .object({
    schema: z.literal(DOCUMENT_SCHEMA).meta({ description: 'the schema and its version' }),
    id: z.string().meta({
      description:
        'the notification id: deterministic (a retried publish has the same id), the FIFO deduplication id',
    }),
    kind: z.enum(NOTIFICATION_KINDS).meta({ description: 'the headline kind' }),
    severity: z.enum(SEVERITIES),
    cluster: z.string().meta({ description: "the cluster's name in the watchdog's settings" }),
    subject: z.string().meta({ description: "the email's subject line" }),
    summary: z.string().meta({ description: 'one line: FIRING: 2 nodes down' }),
    checkedAt: time.meta({ description: 'the check that produced it (watchdog clock)' }),
    zones: z.array(z.string()).meta({
      description:
        'the distinct zones of the nodes (and storm zones), sorted; the same values as the zones message attribute',
    }),
    nodeGroups: z.array(z.string()).meta({
      description:
        'the distinct node groups of the nodes, sorted; the same values as the nodeGroups message attribute',
    }),
    counts: z
      .object({
        firing: z.int().min(0),
        flapping: z.int().min(0),
        reminder: z.int().min(0),
        resolved: z.int().min(0),
        silenced: z.int().min(0).meta({
          description:
            'nodes a silence or maintenance window took over (change silenced; not counted in resolved)',
        }),
      })
      .meta({ description: 'how many nodes of each change, listed or not' }),
    nodes: z.array(documentNode).meta({
      description:
        'firing first, then flapping, reminder, resolved, silenced; cut to fit the message size',
    }),
    nodesOmitted: z
      .int()
      .min(0)
      .meta({ description: 'nodes not listed in `nodes` (message size limit); 0 when all are' }),
    runbookUrl: z.string().optional().meta({
      description: "the cluster's runbook (the clusters[].runbookUrl setting), when it has one",
    }),
    storm: z
      .object({
        state: z.enum(['active', 'ended']),
        scope: z.enum(['zone', 'node-group', 'cluster']),
        zones: z.array(zoneCount).meta({ description: 'the zones that crossed the threshold' }),
        nodeGroups: z
          .array(nodeGroupCount)
          .meta({ description: 'the node groups that crossed the threshold (empty when none)' }),
        clusterTotal: z.int().min(0),
        clusterSilent: z.int().min(0).meta({ description: 'silent nodes in the whole cluster' }),
        incidentKey: incidentKeyField
          .optional()
          .meta({ description: "the storm's incident key, the same from its start to its end" }),
      })
      .optional()
      .meta({ description: 'present when a storm starts, spreads or ends in this check' }),
    watchdog: z
      .object({
        state: z.enum(['failing', 'resolved']),
        failure: z.string().meta({
          description:
            'config, unavailable, exec-plugin, unreachable, tls, unauthorized, forbidden, not-found, server, invalid-response, timeout, aborted or unknown',
        }),
        message: z.string().meta({ description: "the reader's one-line message (no secrets)" }),
        since: time.meta({ description: 'when reads started failing' }),
        incidentKey: incidentKeyField.optional().meta({
          description: "the watchdog incident's key, the same on its failing and resolved notices",
        }),
      })
      .optional()
      .meta({ description: 'present when the watchdog cannot read the cluster, or can again' }),
    notice: z
      .object({
        topic: z.enum([
          'degraded',
          'state-reset',
          'silences-set-aside',
          'discovery',
          'checks-overdue',
        ]),
        state: z.enum(['started', 'ended']).optional(),
        change: z.enum(DISCOVERY_CHANGES).optional().meta({
          description:
            'discovery: the cluster appeared (watched from now on), was deleted or dropped (no longer watched), a tag was ignored, another cluster has its name (same-name: that one is not watched), or its tags changed what is watched (settings-changed)',
        }),
        advice: z
          .string()
          .optional()
          .meta({ description: 'discovery: the command to run, when something is to be done' }),
        message: z.string().meta({ description: 'one line: what is missing or why (no secrets)' }),
        since: time.optional().meta({ description: 'degraded: the first degraded check' }),
        copy: z.string().optional().meta({
          description: 'state-reset, silences-set-aside: where the unreadable copy was kept',
        }),
        clusters: z.array(z.string()).optional().meta({
          description:
            'checks-overdue: the clusters whose checks stopped (started) or succeed again (ended), sorted',
        }),
        overdue: z.number().int().nonnegative().optional().meta({
          description: "checks-overdue: how many of the fleet's clusters are overdue now",
        }),
      })
      .optional()
      .meta({
        description:
          "kind NOTICE: checks run degraded (the Nodes cannot be read), the state was unreadable and was reset, stored silences could not be honoured and were set aside, discovery found a cluster, lost one or ignored one of its tags, or the fleet's dispatcher found clusters with no successful check for too long (cluster `(fleet)`)",
      }),
    missedFiring: z
      .object({
        nodes: z.array(z.string()).meta({
          description: 'the nodes it fired for that are still down (their incidents open), sorted',
        }),
        firedAt: time.meta({ description: 'the check that made the FIRING' }),
      })
      .optional()
      .meta({
        description:
          'present when an earlier FIRING was refused by SNS until it was given up, and its nodes are still down: the first notification that goes out after it names them',
      }),
  })
  .meta({
    title: 'lease-watchdog notification v1',
    description:
      'What SQS, Lambda, HTTP(S) and Firehose subscribers of the lease-watchdog topic receive as the SNS message.',
  });

export type NotificationDocument = z.infer<typeof notificationDocument>;
export type DocumentNode = z.infer<typeof documentNode>;

/**
 * The JSON Schema of the document (docs/schema/notification.v1.json): open objects (no
 * `additionalProperties: false`), so that a v1 document with fields added later still validates.
 */
export function documentJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(notificationDocument, { io: 'input' }) as Record<string, unknown>;
}
