/**
 * What a notification and the stored state say of one node: its snapshot (what an incident
 * remembers), and the node as a notification lists it — from its verdict, or, for a node gone
 * from the cluster, as last remembered. Pure; no undefined keys (stored state and notifications
 * carry none).
 */
import type { Incident, NodeSnapshot } from './alert-state.js';
import type { NodeFacts, NodeVerdict } from './model.js';
import type { AlertNode, Resolution } from './notification.js';

const GONE_REASON = 'no longer in the cluster: neither its Node nor its Lease was found';

/** The node facts that are present (stored state and notifications carry no undefined keys). */
export function factsOf(node: NodeFacts): NodeFacts {
  return {
    ...(node.nodeGroup === undefined ? {} : { nodeGroup: node.nodeGroup }),
    ...(node.instanceType === undefined ? {} : { instanceType: node.instanceType }),
    ...(node.capacityType === undefined ? {} : { capacityType: node.capacityType }),
  };
}

export function snapshotOf(node: NodeVerdict): NodeSnapshot {
  return {
    verdict: node.verdict,
    zone: node.zone,
    instance: node.instance,
    renewTime: node.renewTime,
    ...factsOf(node),
  };
}

export function sameSnapshot(incident: Incident, node: NodeVerdict): boolean {
  return (
    incident.verdict === node.verdict &&
    incident.zone === node.zone &&
    incident.instance === node.instance &&
    incident.renewTime === node.renewTime
  );
}

export function alertNode(
  node: NodeVerdict,
  since: number | undefined,
  resolution: Resolution | undefined,
  key: string | undefined,
): AlertNode {
  return {
    name: node.name,
    zone: node.zone,
    instance: node.instance,
    ...factsOf(node),
    verdict: node.verdict,
    reason: node.reason,
    renewTime: node.renewTime,
    silentForSeconds: node.silentForSeconds,
    ...(since === undefined ? {} : { since }),
    ...(resolution === undefined ? {} : { resolution }),
    ...(key === undefined ? {} : { key }),
  };
}

/** A node absent from the evaluation, as last remembered. */
export function goneNode(
  name: string,
  last: NodeSnapshot,
  since: number | undefined,
  key: string | undefined,
): AlertNode {
  return {
    name,
    zone: last.zone,
    instance: last.instance,
    ...factsOf(last),
    verdict: last.verdict,
    reason: GONE_REASON,
    renewTime: last.renewTime,
    silentForSeconds: null,
    ...(since === undefined ? {} : { since }),
    resolution: 'node-deleted',
    ...(key === undefined ? {} : { key }),
  };
}
