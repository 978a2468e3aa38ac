/**
 * A stand-in of PagerDuty's Events API v2 on 127.0.0.1 and a random port, checking each request
 * as PagerDuty documents it (https://developer.pagerduty.com/docs/send-alert-event, and the
 * OpenAPI description in github.com/PagerDuty/api-schema, reference/events-v2/openapiv3.json):
 * `POST /v2/enqueue`, a JSON body with `routing_key` (the one the test expects), `event_action`
 * trigger, acknowledge or resolve, `dedup_key` (at most 255 characters; required but for a
 * trigger), and for a trigger `payload` with `summary` (1 to 1,024 characters), `source` (not
 * empty) and `severity` (critical, error, warning, info). It answers as PagerDuty does: 202
 * `{status: "success", message: "Event processed", dedup_key}`, 400 `{status: "invalid event",
 * message, errors: [...]}` for a request that breaks those rules. Scripted: `answer(429)` (rate
 * limited) or `answer(500)`/`answer(503)` for every request until `answer(null)`. Never PagerDuty.
 */
import { readBody, sendJson } from './aws-endpoint.js';
import { startVendorStandIn, type VendorStandIn } from './vendor-stand-in.js';

/** An event PagerDuty took (202), as received. */
export interface PagerDutyEvent {
  readonly event_action: 'trigger' | 'acknowledge' | 'resolve';
  readonly dedup_key: string;
  readonly payload?: {
    readonly summary: string;
    readonly source: string;
    readonly severity: string;
    readonly custom_details?: Record<string, unknown>;
  };
  /** Which integration took it: the index of its routing key (0: the first; acceptKey adds). */
  readonly integration: number;
}

/**
 * The PagerDuty stand-in: `accepted` holds the events answered 202 (without the routing key);
 * `overLimit` counts the requests beyond PagerDuty's limit of 120 a minute per integration key
 * ("Events - 120/min/integration key", https://community.pagerduty.com/forum/t/monitoring-api-rate-limiting/3318),
 * on the test's clock: each is answered 429, as PagerDuty does.
 */
export type PagerDutyServer = VendorStandIn<PagerDutyEvent> & {
  readonly overLimit: number;
  /**
   * A second integration on the service (a rotated key): its events are taken too, but PagerDuty
   * pairs a resolve with a trigger only under the same integration key.
   */
  acceptKey(routingKey: string): void;
};

const EVENTS_PER_MINUTE = 120;

const SEVERITIES = ['critical', 'error', 'warning', 'info'];
const ACTIONS = ['trigger', 'acknowledge', 'resolve'];

/** What is wrong with a request body, as PagerDuty's 400 would list it; empty when nothing. */
export function eventProblems(body: unknown, routingKeys: readonly string[]): string[] {
  if (typeof body !== 'object' || body === null) return ['Event object is invalid'];
  const e = body as Record<string, unknown>;
  const problems: string[] = [];
  if (!routingKeys.includes(e.routing_key as string)) problems.push("'routing_key' is invalid");
  if (!ACTIONS.includes(e.event_action as string)) problems.push("'event_action' is invalid");
  const key = e.dedup_key;
  if (key !== undefined && (typeof key !== 'string' || key.length > 255 || key === '')) {
    problems.push("'dedup_key' must be a string of 1 to 255 characters");
  }
  if (e.event_action !== 'trigger') {
    if (key === undefined) problems.push("'dedup_key' is required for this event_action");
    return problems;
  }
  const p = e.payload as Record<string, unknown> | undefined;
  if (typeof p !== 'object' || p === null) return [...problems, "'payload' is missing"];
  const summary = p.summary;
  if (typeof summary !== 'string' || summary === '' || summary.length > 1024) {
    problems.push("'payload.summary' must be 1 to 1024 characters");
  }
  if (typeof p.source !== 'string' || p.source === '') problems.push("'payload.source' is missing");
  if (!SEVERITIES.includes(p.severity as string)) problems.push("'payload.severity' is invalid");
  return problems;
}

export async function startPagerDutyServer(
  routingKey: string,
  now: () => number = Date.now,
): Promise<PagerDutyServer> {
  const json = { contentType: 'application/json' };
  const times: number[] = [];
  const keys = [routingKey];
  let overLimit = 0;
  const server = await startVendorStandIn<PagerDutyEvent>(async (req, res, book) => {
    const { accepted, answers, rejected, forced } = book;
    const { body } = await readBody(req, 512 * 1024);
    const reply = (status: number, value: unknown) => {
      answers.push(status);
      sendJson(res, status, value, json);
    };
    times.push(now());
    if (times.filter((t) => t > now() - 60_000).length > EVENTS_PER_MINUTE) {
      overLimit += 1;
      reply(429, {
        status: 'throttle event',
        message: 'Requests for this service are arriving too quickly. Please retry later.',
      });
      return;
    }
    if (forced !== null) {
      reply(forced, { status: 'error', message: forced === 429 ? 'Rate limited' : 'Error' });
      return;
    }
    const route = req.method === 'POST' && req.url === '/v2/enqueue';
    const typed = String(req.headers['content-type'] ?? '').startsWith('application/json');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const problems = [
      ...(route ? [] : [`${req.method} ${req.url} is not POST /v2/enqueue`]),
      ...(typed ? [] : ['Content-Type must be application/json']),
      ...eventProblems(parsed, keys),
    ];
    if (problems.length > 0) {
      rejected.push(problems.join('; '));
      reply(400, { status: 'invalid event', message: 'Event object is invalid', errors: problems });
      return;
    }
    const event = parsed as PagerDutyEvent & { routing_key?: string };
    const { routing_key: key, ...kept } = event;
    accepted.push({ ...kept, integration: keys.indexOf(key as string) });
    reply(202, { status: 'success', message: 'Event processed', dedup_key: event.dedup_key });
  });
  return {
    ...server,
    get overLimit() {
      return overLimit;
    },
    acceptKey: (key) => {
      keys.push(key);
    },
  };
}
