/**
 * A stand-in of Opsgenie's Alert API on 127.0.0.1 and a random port, checking each request as
 * Opsgenie documents it (https://docs.opsgenie.com/docs/alert-api): `Authorization: GenieKey
 * <key>` (the one the test expects, else 401); `POST /v2/alerts` with a JSON body whose `message`
 * is 1 to 130 characters, `alias` at most 512, `description` at most 15,000, `source` at most 100,
 * `entity` at most 512, `priority` P1..P5, `tags` at most 20 of at most 50 characters, `details`
 * a map of strings; `POST /v2/alerts/{alias}/close?identifierType=alias` with an optional JSON
 * body (`source`, `user` at most 100, `note` at most 25,000). It answers as Opsgenie does: 202
 * `{result: "Request will be processed", took, requestId}` (both calls are asynchronous), 422
 * `{message, took, requestId}` for a body it cannot process, 400 for one that is not JSON, 404
 * for another path. Scripted: `answer(429)` (rate limited,
 * https://docs.opsgenie.com/docs/api-rate-limiting) or `answer(500)`/`answer(503)` for every
 * request until `answer(null)`. Never Opsgenie.
 *
 * As Jira Service Management (`prefix: '/jsm/ops/integration'`): the same calls under that path of
 * api.atlassian.com (https://developer.atlassian.com/cloud/jira/service-desk-ops/rest/v1/api-group-integration-events/:
 * the same create body, `Authorization: GenieKey`, an optional `identifierType` of id, tiny or
 * alias "for endpoints that support multiple identifier types", Close alert not named as one;
 * JSDCLOUD-14179: `identifierType=alias` "is missing from the documentation"):
 * `refuseCloseByAlias(true)` answers such a close 404, as a JSM that does not take it would.
 */
import { randomUUID } from 'node:crypto';
import { readBody, sendJson } from './aws-endpoint.js';
import { startVendorStandIn, type VendorStandIn } from './vendor-stand-in.js';

/** A request Opsgenie took (202): `create` or `close`, with the alert's alias. */
export interface OpsgenieCall {
  readonly action: 'create' | 'close';
  readonly alias: string;
  readonly body: Readonly<Record<string, unknown>>;
}

/** The Opsgenie stand-in: `accepted` holds the creates and closes answered 202. */
export type OpsgenieServer = VendorStandIn<OpsgenieCall> & {
  /** JSM: answer a close by alias 404 (true) or take it (false, the default). */
  refuseCloseByAlias(refused: boolean): void;
};

const PRIORITIES = ['P1', 'P2', 'P3', 'P4', 'P5'];
const CLOSE_PATH = /^\/v2\/alerts\/([^/?]+)\/close$/;

/** `field` is absent, or a string of at most `max` characters (at least `min`). */
function textProblem(body: Record<string, unknown>, field: string, max: number, min = 0) {
  const v = body[field];
  if (v === undefined && min === 0) return [];
  if (typeof v === 'string' && v.length >= min && v.length <= max) return [];
  return [`${field} must be a string of ${min} to ${max} characters`];
}

/** What Opsgenie's 422 would say about a create-alert body; empty when nothing. */
export function createProblems(body: Record<string, unknown>): string[] {
  const problems = [
    ...textProblem(body, 'message', 130, 1),
    ...textProblem(body, 'alias', 512),
    ...textProblem(body, 'description', 15_000),
    ...textProblem(body, 'source', 100),
    ...textProblem(body, 'entity', 512),
    ...textProblem(body, 'user', 100),
    ...textProblem(body, 'note', 25_000),
  ];
  if (body.priority !== undefined && !PRIORITIES.includes(body.priority as string)) {
    problems.push('priority must be one of P1, P2, P3, P4, P5');
  }
  const tags = body.tags;
  const tagsOk =
    tags === undefined ||
    (Array.isArray(tags) &&
      tags.length <= 20 &&
      tags.every((t) => typeof t === 'string' && t.length <= 50));
  if (!tagsOk) problems.push('tags must be at most 20 strings of at most 50 characters');
  const details = body.details;
  const detailsOk =
    details === undefined ||
    (typeof details === 'object' &&
      details !== null &&
      !Array.isArray(details) &&
      Object.values(details).every((v) => typeof v === 'string') &&
      JSON.stringify(details).length <= 8_000);
  if (!detailsOk) problems.push('details must be a map of strings, 8000 characters at most');
  return problems;
}

/** What Opsgenie's 422 would say about a close-alert body. */
function closeProblems(body: Record<string, unknown>): string[] {
  return [
    ...textProblem(body, 'source', 100),
    ...textProblem(body, 'user', 100),
    ...textProblem(body, 'note', 25_000),
  ];
}

/** The call a request makes, or the status and reason it is refused with. */
function route(
  method: string | undefined,
  url: URL,
  body: Record<string, unknown>,
): OpsgenieCall | { status: number; problems: string[] } {
  const close = CLOSE_PATH.exec(url.pathname);
  if (method === 'POST' && url.pathname === '/v2/alerts' && url.search === '') {
    const problems = createProblems(body);
    if (problems.length > 0) return { status: 422, problems };
    return { action: 'create', alias: String(body.alias ?? body.message), body };
  }
  if (method === 'POST' && close) {
    const problems = closeProblems(body);
    if (url.searchParams.get('identifierType') !== 'alias') {
      problems.push('identifierType must be alias to close by alias');
    }
    if (problems.length > 0) return { status: 422, problems };
    return { action: 'close', alias: decodeURIComponent(close[1] as string), body };
  }
  return {
    status: 404,
    problems: [`${method} ${url.pathname}${url.search} is not an Alert API call`],
  };
}

export async function startOpsgenieServer(apiKey: string, prefix = ''): Promise<OpsgenieServer> {
  let refusing = false;
  const server = await startVendorStandIn<OpsgenieCall>(async (req, res, book) => {
    const { accepted, answers, rejected, forced } = book;
    const { body } = await readBody(req, 512 * 1024);
    const reply = (status: number, fields: Record<string, unknown>) => {
      answers.push(status);
      sendJson(res, status, { ...fields, took: 0.01, requestId: randomUUID() });
    };
    const refuse = (status: number, problems: string[]) => {
      rejected.push(problems.join('; '));
      reply(status, { message: problems.join('; ') });
    };
    if (forced !== null) {
      reply(forced, { message: forced === 429 ? 'Rate limit exceeded' : 'Internal error' });
      return;
    }
    if (req.headers.authorization !== `GenieKey ${apiKey}`) {
      refuse(401, ['Could not authenticate: Authorization must be GenieKey <the API key>']);
      return;
    }
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      refuse(415, ['Content-Type must be application/json']);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8') || '{}');
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      refuse(400, ['the body is not a JSON object']);
      return;
    }
    const url = new URL((req.url ?? '/').replace(prefix, ''), 'http://x');
    const call = (req.url ?? '').startsWith(prefix)
      ? route(req.method, url, parsed as never)
      : { status: 404, problems: [`${req.url} is not under ${prefix}`] };
    if (refusing && 'action' in call && call.action === 'close') {
      refuse(404, ['Alert not found: closing by alias is refused']);
      return;
    }
    if ('status' in call) {
      refuse(call.status, call.problems);
      return;
    }
    accepted.push(call);
    reply(202, { result: 'Request will be processed' });
  });
  return {
    ...server,
    url: `${server.url}${prefix}`,
    refuseCloseByAlias: (refused) => {
      refusing = refused;
    },
  };
}
