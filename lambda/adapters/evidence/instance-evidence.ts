/**
 * EC2's word on the instances of a FIRING's nodes (evidence at alert time): their state, status
 * checks and scheduled events (DescribeInstanceStatus with IncludeAllInstances), and why a stopped
 * or terminated instance went (DescribeInstances' StateReason, e.g. Server.SpotInstanceTermination).
 * Only nodes with an EC2 instance id and a known region are asked about. Neither call supports
 * resource-level permissions: the IAM policy grants them on `*`.
 */
import { awsInstanceId } from '../../core/aws-instance.js';
import type { AlertNode, InstanceEvidence, NodeEvidence } from '../../core/notification.js';
import { EvidenceReadError, type EvidenceReader } from '../../ports/index.js';
import {
  childrenNamed,
  Ec2QueryError,
  type Ec2QueryOptions,
  ec2Query,
  textAt,
  type XmlValue,
} from './ec2-query.js';

const MAX_EVENTS = 3;
const TEXT_MAX = 200;

export interface InstanceEvidenceOptions extends Ec2QueryOptions {
  /** The region of a node's instance: the cluster's (EKS), else its zone's; undefined: not asked. */
  readonly regionOf: (node: AlertNode) => string | undefined;
}

export class InstanceStateReader implements EvidenceReader {
  readonly what = 'EC2 state';

  constructor(private readonly options: InstanceEvidenceOptions) {}

  async read(nodes: readonly AlertNode[], signal: AbortSignal): Promise<readonly NodeEvidence[]> {
    const asked = nodes.flatMap((x) => {
      const instanceId = awsInstanceId(x.instance);
      const region = this.options.regionOf(x);
      return instanceId && region ? [{ node: x.name, instanceId, region }] : [];
    });
    const regions = [...new Set(asked.map((a) => a.region))];
    try {
      const found = await Promise.all(
        regions.map((region) =>
          this.describe(
            region,
            asked.filter((a) => a.region === region).map((a) => a.instanceId),
            signal,
          ),
        ),
      );
      const byId = new Map(found.flatMap((m) => [...m]));
      return asked.map((a) => ({
        node: a.node,
        instance: byId.get(a.instanceId) ?? notFound(a.instanceId, a.region),
      }));
    } catch (error) {
      throw evidenceError(error);
    }
  }

  /** The instances of one region: status and reasons asked at once. */
  private async describe(
    region: string,
    ids: readonly string[],
    signal: AbortSignal,
  ): Promise<Map<string, InstanceEvidence>> {
    const params = (prefix: string) =>
      Object.fromEntries(ids.map((id, i) => [`${prefix}.${i + 1}`, id]));
    const [status, reasons] = await Promise.all([
      ec2Query(
        region,
        { Action: 'DescribeInstanceStatus', IncludeAllInstances: 'true', ...params('InstanceId') },
        this.options,
        signal,
      ).catch((error: unknown) => {
        // One unknown id fails the whole call: ask for each alone, so the others are still seen.
        if (error instanceof Ec2QueryError && error.code === 'InvalidInstanceID.NotFound') {
          return ids.length > 1 ? undefined : null;
        }
        throw error;
      }),
      // Reasons are a bonus: without them (ec2:DescribeInstances denied) the state still shows.
      ec2Query(
        region,
        { Action: 'DescribeInstances', ...params('InstanceId') },
        this.options,
        signal,
      ).catch(() => null),
    ]);
    if (status === undefined) {
      const each = await Promise.all(ids.map((id) => this.describe(region, [id], signal)));
      return new Map(each.flatMap((m) => [...m]));
    }
    const why = reasonsOf(reasons?.value);
    const out = new Map<string, InstanceEvidence>();
    const set = childrenNamed(status?.value, 'instanceStatusSet')[0];
    for (const item of childrenNamed(set, 'item')) {
      const instanceId = textAt(item, 'instanceId');
      if (!instanceId || !ids.includes(instanceId)) continue;
      out.set(instanceId, instanceOf(item, instanceId, region, why.get(instanceId)));
    }
    // Not in the status answer (a terminated instance may be only in DescribeInstances).
    for (const [instanceId, reason] of why) {
      if (out.has(instanceId) || !ids.includes(instanceId)) continue;
      out.set(instanceId, instanceOf({}, instanceId, region, reason));
    }
    return out;
  }
}

interface Reason {
  readonly state?: string | undefined;
  readonly reason?: string | undefined;
}

function reasonsOf(answer: XmlValue | undefined): Map<string, Reason> {
  const out = new Map<string, Reason>();
  for (const reservation of childrenNamed(childrenNamed(answer, 'reservationSet')[0], 'item')) {
    for (const item of childrenNamed(childrenNamed(reservation, 'instancesSet')[0], 'item')) {
      const instanceId = textAt(item, 'instanceId');
      if (!instanceId) continue;
      const code = textAt(item, 'stateReason', 'code');
      const message = textAt(item, 'stateReason', 'message');
      const transition = textAt(item, 'reason') ?? textAt(item, 'stateTransitionReason');
      // EC2 words the message with its code first ("Server.SpotInstanceTermination: Spot ...").
      const reason = code
        ? message?.startsWith(code)
          ? message
          : `${code}${message ? `: ${message}` : ''}`
        : transition;
      out.set(instanceId, {
        state: textAt(item, 'instanceState', 'name'),
        reason: reason?.slice(0, TEXT_MAX),
      });
    }
  }
  return out;
}

function instanceOf(
  item: XmlValue,
  instanceId: string,
  region: string,
  reason: Reason | undefined,
): InstanceEvidence {
  const events = childrenNamed(childrenNamed(item, 'eventsSet')[0], 'item')
    .slice(0, MAX_EVENTS)
    .map((e) => {
      const code = textAt(e, 'code') ?? 'event';
      const from = textAt(e, 'notBefore');
      const description = textAt(e, 'description');
      return `${code}${from ? ` from ${from}` : ''}${description ? `: ${description}` : ''}`.slice(
        0,
        TEXT_MAX,
      );
    });
  const systemStatus = textAt(item, 'systemStatus', 'status');
  const instanceStatus = textAt(item, 'instanceStatus', 'status');
  return {
    instanceId,
    region,
    state: textAt(item, 'instanceState', 'name') ?? reason?.state ?? 'unknown',
    ...(reason?.reason ? { stateReason: reason.reason } : {}),
    ...(systemStatus ? { systemStatus } : {}),
    ...(instanceStatus ? { instanceStatus } : {}),
    scheduledEvents: events,
  };
}

function notFound(instanceId: string, region: string): InstanceEvidence {
  return { instanceId, region, state: 'not found', scheduledEvents: [] };
}

/** Permissions say what to grant; other failures say what EC2 (or the network) said. */
function evidenceError(error: unknown): EvidenceReadError {
  if (!(error instanceof Ec2QueryError)) {
    return new EvidenceReadError(
      error instanceof Error && error.name === 'AbortError' ? 'aborted' : 'the call to EC2 failed',
    );
  }
  if (['UnauthorizedOperation', 'AccessDenied', 'AccessDeniedException'].includes(error.code)) {
    return new EvidenceReadError(`${error.code} (grant ec2:DescribeInstanceStatus)`);
  }
  if (
    ['AuthFailure', 'InvalidClientTokenId', 'ExpiredToken', 'NoCredentials'].includes(error.code)
  ) {
    return new EvidenceReadError(
      `${error.code}: the function's AWS credentials were refused or missing`,
    );
  }
  const detail = error.message ? `: ${error.message.replace(/\s+/g, ' ').slice(0, TEXT_MAX)}` : '';
  return new EvidenceReadError(`${error.code}${detail}`);
}
