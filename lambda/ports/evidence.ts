/** Evidence at alert time: what else is read about the nodes of a FIRING. */
import type { AlertNode, NodeEvidence } from '../core/notification.js';
import type { ClusterSettings } from '../settings/index.js';

/**
 * One source of evidence about the nodes of a FIRING (lambda/adapters/kube: the node's Events; lambda/adapters/evidence:
 * EC2's word on the instance), bound to one cluster. Asked only when a FIRING is about to be saved,
 * for a few nodes, under a small time budget the use case enforces.
 */
export interface EvidenceReader {
  /** What it reads, for the line that says it could not: "EC2 state", "Kubernetes Events". */
  readonly what: string;
  /**
   * What it found about `nodes` (nodes it has nothing on are left out). Rejects with an
   * EvidenceReadError when it could read nothing; honours `signal`.
   */
  read(nodes: readonly AlertNode[], signal: AbortSignal): Promise<readonly NodeEvidence[]>;
}

/** Why evidence could not be read: one line, no secrets ("AccessDenied (grant ec2:...)"). */
export class EvidenceReadError extends Error {
  override readonly name = 'EvidenceReadError';
}

/** The evidence readers of a cluster (none: no evidence is gathered). */
export type EvidenceReaderFactory = (cluster: ClusterSettings) => readonly EvidenceReader[];
