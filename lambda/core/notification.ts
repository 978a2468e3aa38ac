/**
 * A notification: what one check of one cluster has to tell people. Built by the alert lifecycle
 * (pure), rendered and published by a notifier (SNS, terminal). One per cluster per check that
 * changes something, like an Alertmanager group: every node that changed is listed in it.
 */
import type {
  ClusterReadFailure,
  NodeFacts,
  NodeGroupSummary,
  NodeVerdict,
  SuppressionCause,
  ZoneSummary,
} from './model.js';

export const NOTIFICATION_KINDS = [
  'FIRING',
  'RESOLVED',
  'SILENCED',
  'REMINDER',
  'FLAPPING',
  'STORM',
  'WATCHDOG',
  'NOTICE',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * How an incident ended: the node is healthy again (`recovered`), is suppressed for one of its
 * causes (an expected removal or planned exit, the user's selector, a silence, a maintenance
 * window: core/suppression.ts), or the Node is gone (`node-deleted`; its lease may be orphaned).
 */
export type Resolution = 'recovered' | SuppressionCause | 'node-deleted';

/**
 * A silence or a maintenance window took the incident over: the node may still be down, so it is
 * said as SILENCED, never as a recovery (it pages again if still down when the silence ends).
 */
export function isSilencing(resolution: Resolution | undefined): boolean {
  return resolution === 'silenced' || resolution === 'maintenance';
}

/** A notification's `resolved` list split: incidents that ended, and those silenced. */
export function splitResolved(nodes: readonly AlertNode[]) {
  const ended = nodes.filter((x) => !isSilencing(x.resolution));
  return { ended, silenced: nodes.filter((x) => isSilencing(x.resolution)) };
}

/** One node as a notification shows it. */
export interface AlertNode
  extends NodeFacts,
    Pick<NodeVerdict, 'name' | 'zone' | 'instance' | 'verdict' | 'reason' | 'renewTime'> {
  readonly silentForSeconds: number | null;
  /** Watchdog clock (epoch ms) at which the incident opened, when there is one. */
  readonly since?: number | undefined;
  /** For resolved nodes: how the incident ended. */
  readonly resolution?: Resolution | undefined;
  /** The incident's key (incident-keys.ts): the same on its FIRING, REMINDERs, FLAPPING, RESOLVED. */
  readonly key?: string | undefined;
}

export interface StormInfo {
  /**
   * 'active' when the storm starts or spreads (headline STORM, critical); 'ended' when it is over
   * (severity info). Absent means 'active'. Set only on the checks where the storm changes.
   */
  readonly state?: 'active' | 'ended' | undefined;
  /**
   * 'zone' when one or more zones crossed the threshold (node groups may have too), 'node-group'
   * when only node groups did, 'cluster' when the whole cluster did.
   */
  readonly scope: 'zone' | 'node-group' | 'cluster';
  /** The zones that crossed the threshold (all zones, for scope 'cluster'), with silent counts. */
  readonly zones: readonly ZoneSummary[];
  /** The node groups that crossed the threshold (all, for scope 'cluster'); absent when none. */
  readonly nodeGroups?: readonly NodeGroupSummary[] | undefined;
  readonly clusterTotal: number;
  /** Silent nodes in the cluster (notifications stored before it was named so: `clusterAlerting`). */
  readonly clusterSilent: number;
  /** The storm's incident key (incident-keys.ts), from its start to its end. */
  readonly key?: string | undefined;
}

export interface WatchdogInfo {
  readonly state: 'failing' | 'resolved';
  readonly failure: ClusterReadFailure | 'unknown';
  /** The reader's one-line message (never contains secrets). */
  readonly message: string;
  /** Watchdog clock (epoch ms) at which reads started failing. */
  readonly since: number;
  /** The watchdog incident's key (incident-keys.ts), from its page to its resolution. */
  readonly key?: string | undefined;
}

/**
 * The watchdog's word about itself that is not a read failure (kind NOTICE; a WATCHDOG means the
 * cluster cannot be read, and pages). Sent on its own, never grouped with node changes.
 * - 'degraded': the Nodes cannot be read (e.g. 403) while the leases can, so the checks run on
 *   leases alone ('started', warning) — or can be read again ('ended', info). One notice per change.
 * - 'state-reset': the stored state could not be read; it was kept aside and the watchdog started
 *   afresh (warning). Open alerts may be announced again.
 * - 'checks-overdue': the fleet's dispatcher found clusters with no successful check for too long
 *   (the fleet-wide dead-man's switch: 'started', warning), or their checks succeeding again
 *   ('ended', info); sent for the whole fleet (cluster FLEET_CLUSTER), naming them.
 * - 'silences-set-aside': stored silences could not be honoured (core/silences.ts
 *   `silenceProblem`, or not silences at all); they were moved aside and the nodes they named are
 *   judged as usual (warning). The other silences hold.
 * - 'discovery': discovery's word about one cluster it found: it appeared (now watched), was
 *   deleted or stopped matching (no longer watched), or a tag of its settings was ignored.
 */
export type NoticeInfo =
  | {
      readonly topic: 'degraded';
      readonly state: 'started' | 'ended';
      /** The reader's one line on what is missing (never contains secrets). */
      readonly message: string;
      /** Watchdog clock (epoch ms) of the first degraded check. */
      readonly since: number;
    }
  | {
      readonly topic: 'state-reset';
      /** Why the stored state could not be read (one line, never secrets). */
      readonly message: string;
      /** Where the unreadable copy was kept (a DynamoDB key, a file path). */
      readonly copy: string;
    }
  | {
      readonly topic: 'checks-overdue';
      /** 'started': these clusters' checks stopped; 'ended': they succeed again. */
      readonly state: 'started' | 'ended';
      /** The clusters this notice is about, sorted. */
      readonly clusters: readonly string[];
      /** How many of the fleet's clusters are overdue after this dispatcher run. */
      readonly overdue: number;
      /** One line: what happened, and for how long a cluster has gone unchecked to be named. */
      readonly message: string;
    }
  | {
      readonly topic: 'silences-set-aside';
      /** Why the silences could not be honoured (one line, never secrets). */
      readonly message: string;
      /** Where they were kept (a DynamoDB key, a file path). */
      readonly copy: string;
    }
  | {
      readonly topic: 'discovery';
      readonly change: DiscoveryChange;
      /** One line: which cluster, where, and what changed (never secrets). */
      readonly message: string;
      /** What to do about it, when something is to be done: one line, a command to run. */
      readonly advice?: string | undefined;
    };

/**
 * What discovery saw change: a cluster `appeared` (watched from now on), was `deleted`, was
 * `dropped` (it no longer matches the tag filter, or failed), a tag of its settings was
 * ignored (`tag-invalid`), another cluster it would watch has its name (`same-name`: only the
 * one watched before is), or its tags changed what is watched (`settings-changed`).
 */
export const DISCOVERY_CHANGES = [
  'appeared',
  'deleted',
  'dropped',
  'tag-invalid',
  'same-name',
  'settings-changed',
] as const;
export type DiscoveryChange = (typeof DISCOVERY_CHANGES)[number];

/**
 * The `cluster` of a notification about the fleet as a whole (no cluster name can be it: names
 * start with a letter or a digit).
 */
export const FLEET_CLUSTER = '(fleet)';

export interface Notification {
  /** Deterministic id (same inputs, same id): used as SNS FIFO deduplication id and outbox key. */
  readonly id: string;
  readonly cluster: string;
  /**
   * The headline kind: STORM > WATCHDOG > FIRING > FLAPPING > REMINDER > RESOLVED > SILENCED
   * (NOTICE: alone). SILENCED: every node change is a silence or window taking an incident over.
   */
  readonly kind: NotificationKind;
  readonly severity: Severity;
  /** Watchdog clock (epoch ms) of the check that produced it. */
  readonly at: number;
  readonly firing: readonly AlertNode[];
  readonly resolved: readonly AlertNode[];
  readonly reminders: readonly AlertNode[];
  readonly flapping: readonly AlertNode[];
  readonly storm?: StormInfo | undefined;
  readonly watchdog?: WatchdogInfo | undefined;
  /** Set on NOTICE notifications only. */
  readonly notice?: NoticeInfo | undefined;
  /** What was read about the first firing nodes when the FIRING or STORM was made (those only). */
  readonly evidence?: Evidence | undefined;
  /**
   * Added when it is published, not when it is decided: an earlier FIRING that the notifier
   * refused until it was given up, for nodes whose incidents are still open. The page they never got.
   */
  readonly missedFiring?: MissedFiring | undefined;
}

/** A FIRING given up unsent (outbox-publishing.ts), as the next notification that goes out names it. */
export interface MissedFiring {
  /** The nodes it fired for whose incidents are still open, sorted. */
  readonly nodes: readonly string[];
  /** Watchdog clock (epoch ms) of the check that made it (the earliest, when several were given up). */
  readonly at: number;
}

/**
 * Evidence at alert time: what EC2 and the cluster's Events said about the first few firing nodes
 * when the FIRING was made, and one line for each source that could not be read ("EC2 state not
 * read: UnauthorizedOperation (grant ec2:DescribeInstanceStatus)"). Gathered within a small time
 * budget, never in the way of the page. Every string is as read: renderers sanitise it.
 */
export interface Evidence {
  readonly nodes: readonly NodeEvidence[];
  /** One line per source (or per node) that could not be read, and why. */
  readonly unread: readonly string[];
}

export interface NodeEvidence {
  readonly node: string;
  readonly instance?: InstanceEvidence | undefined;
  /** The node's last few Events, newest first. */
  readonly events?: readonly NodeEventEvidence[] | undefined;
}

/** EC2's word on a node's instance (DescribeInstanceStatus, DescribeInstances). */
export interface InstanceEvidence {
  readonly instanceId: string;
  readonly region: string;
  /** pending, running, stopping, stopped, shutting-down, terminated; `not found` when EC2 has none. */
  readonly state: string;
  /** Why it stopped or terminated (StateReason), e.g. `Server.SpotInstanceTermination: ...`. */
  readonly stateReason?: string | undefined;
  /** The status checks: ok, impaired, insufficient-data, not-applicable, initializing. */
  readonly systemStatus?: string | undefined;
  readonly instanceStatus?: string | undefined;
  /** Scheduled events: `instance-stop from 2026-12-01T00:00:00.000Z: The instance is running on degraded hardware`. */
  readonly scheduledEvents: readonly string[];
}

/** One core/v1 Event about the node. */
export interface NodeEventEvidence {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly count: number;
  /** When it was last seen (lastTimestamp, or eventTime), RFC 3339, as the API server wrote it. */
  readonly lastSeen: string | null;
}
