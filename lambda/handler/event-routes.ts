/**
 * The events the handler takes, and how each finds its route: by the key that names its kind
 * (`discover`, `dispatch`, `Records`), each kind one row of the handler's `Routes`; any other
 * event is a scheduled check (or the look it names). create-handler.ts builds the routes.
 */
import type { DiscoveryReport } from '../use-cases/discovery.js';
import type { DispatchReport } from '../use-cases/dispatch.js';
import type { ClusterReport, InvocationEvent } from '../use-cases/invocation.js';
import type { QueuedMessage } from './queued-events.js';

/** Discovery's schedule: `{ "discover": true }`. */
export interface DiscoverEvent {
  readonly discover: true;
}

/** The dispatcher's schedule's input: fan the period's checks out (use-cases/dispatch.ts). */
export interface DispatchEvent {
  readonly dispatch: { readonly periodSeconds: number };
}

/**
 * A scheduled run (the schedule's input), discovery, the dispatcher's run, or a batch from SQS:
 * the watchdog's own looks, or the dispatched checks (`{ "cluster": "<name>" }`).
 */
export type HandlerEvent =
  | InvocationEvent
  | DiscoverEvent
  | DispatchEvent
  | { readonly Records: readonly QueuedMessage[] }
  | null;

export interface HandlerResult {
  readonly clusters: ClusterReport[];
  /** For `{ "discover": true }`: what discovery found and announced. */
  readonly discovery?: DiscoveryReport;
  /** For the dispatcher's run: what it sent and found overdue. */
  readonly dispatch?: DispatchReport;
  /** For an SQS batch: the messages to deliver again (`ReportBatchItemFailures`). */
  readonly batchItemFailures?: { itemIdentifier: string }[];
}

/** The keys that name an event's kind, each with its route (the others are scheduled checks). */
const ROUTE_KEYS = ['discover', 'dispatch', 'Records'] as const;
type RouteKey = (typeof ROUTE_KEYS)[number];

/** What a route gets beside its event: the invocation's deadline, and a check to run. */
export interface RouteParts {
  readonly deadline: AbortSignal;
  readonly run: (event: InvocationEvent | null) => Promise<HandlerResult>;
}

export type Routes = {
  readonly [K in RouteKey]: (
    event: Extract<NonNullable<HandlerEvent>, Readonly<Record<K, unknown>>>,
    parts: RouteParts,
  ) => Promise<HandlerResult>;
};

/** Runs `event` by its route, or as a scheduled check when no key names its kind. */
export function routed(event: HandlerEvent, routes: Routes, parts: RouteParts) {
  const route = event === null ? undefined : ROUTE_KEYS.find((key) => key in event);
  if (route === undefined) return parts.run(event as InvocationEvent | null);
  return routes[route](event as never, parts);
}
