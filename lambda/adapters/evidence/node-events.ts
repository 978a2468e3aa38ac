/**
 * The last few Events of a node, read at alert time (evidence of a FIRING). Node events live in
 * the `default` namespace (the kubelet and the node lifecycle controller record them there, with
 * `involvedObject.kind=Node`); one list per node with a field selector, like `kubectl describe
 * node`. Bounded: a few nodes, one small session, at most EVENTS_PER_NODE per node, each message
 * cut to EVENT_MESSAGE_MAX characters (the renderers sanitise what is kept).
 */
import type { AlertNode, NodeEventEvidence, NodeEvidence } from '../../core/notification.js';
import {
  ClusterReadError,
  EvidenceReadError,
  type EvidenceReader,
  type KubeConfigView,
} from '../../ports/index.js';
import { record, str } from '../kube/decode/projection.js';
import { ApiSession } from '../kube/http/transport.js';

/** Where Kubernetes records node events (kube-apiserver, kubelet, node lifecycle controller). */
export const NODE_EVENT_NAMESPACE = 'default';
export const EVENTS_PER_NODE = 5;
export const EVENT_MESSAGE_MAX = 300;

export interface NodeEventsOptions {
  /** The cluster's KubeConfig (the same identity that reads the leases). */
  readonly kubeConfig: (signal: AbortSignal) => Promise<KubeConfigView>;
  /** Timeout of each request, ms. */
  readonly requestTimeoutMs: number;
}

export class NodeEventsReader implements EvidenceReader {
  readonly what = 'Kubernetes Events';

  constructor(private readonly options: NodeEventsOptions) {}

  async read(nodes: readonly AlertNode[], signal: AbortSignal): Promise<readonly NodeEvidence[]> {
    let session: ApiSession;
    try {
      const kubeConfig = await this.options.kubeConfig(signal);
      const server = kubeConfig.getCurrentCluster()?.server?.replace(/\/+$/, '') ?? '';
      session = await ApiSession.open(kubeConfig, {
        server,
        namespace: NODE_EVENT_NAMESPACE,
        pageSize: 100,
        timeoutMs: this.options.requestTimeoutMs,
        bounds: { maxPageBytes: 1024 * 1024, maxPages: 3, budgetMs: 10_000 },
      });
    } catch (error) {
      throw evidenceError(error);
    }
    try {
      return await Promise.all(
        nodes.map(async (x) => ({ node: x.name, events: await eventsOf(session, x.name, signal) })),
      );
    } catch (error) {
      throw evidenceError(error);
    } finally {
      session.close();
    }
  }
}

async function eventsOf(
  session: ApiSession,
  node: string,
  signal: AbortSignal,
): Promise<NodeEventEvidence[]> {
  const listed = await session.list(
    'events',
    `/api/v1/namespaces/${NODE_EVENT_NAMESPACE}/events`,
    (item) => projectEvent(item, node),
    signal,
    { fieldSelector: `involvedObject.kind=Node,involvedObject.name=${node}` },
  );
  return listed.items
    .sort((a, b) => (b.lastSeen ?? '').localeCompare(a.lastSeen ?? ''))
    .slice(0, EVENTS_PER_NODE);
}

/** One Event about `node` (others, which a server ignoring the field selector sends, are dropped). */
export function projectEvent(item: unknown, node: string): NodeEventEvidence | undefined {
  const event = record(item);
  const involved = record(event.involvedObject);
  if (str(involved.kind) !== 'Node' || str(involved.name) !== node) return undefined;
  const count = Number(event.count);
  const series = record(event.series);
  const seen =
    str(event.lastTimestamp) ??
    str(series.lastObservedTime) ??
    str(event.eventTime) ??
    str(event.firstTimestamp) ??
    str(record(event.metadata).creationTimestamp) ??
    null;
  return {
    type: (str(event.type) ?? '').slice(0, 20),
    reason: (str(event.reason) ?? '').slice(0, 100),
    message: (str(event.message) ?? str(event.note) ?? '').slice(0, EVENT_MESSAGE_MAX),
    count: Number.isSafeInteger(count) && count > 0 ? count : 1,
    lastSeen: seen === null ? null : seen.slice(0, 40),
  };
}

/** One line: a 403 says what to grant; other read failures keep the reader's own line. */
function evidenceError(error: unknown): EvidenceReadError {
  if (error instanceof ClusterReadError) {
    if (error.failure === 'forbidden') {
      return new EvidenceReadError(
        `403 Forbidden (grant get and list on events in namespace ${NODE_EVENT_NAMESPACE}: deploy/rbac.yaml)`,
      );
    }
    return new EvidenceReadError(error.message);
  }
  return new EvidenceReadError(
    error instanceof Error
      ? `${error.name}: the events could not be read`
      : 'the events could not be read',
  );
}
