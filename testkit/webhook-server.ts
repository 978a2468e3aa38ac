/**
 * A stand-in of a team's webhook receiver on 127.0.0.1 and a random port, verifying each request
 * as the Standard Webhooks specification tells a consumer to
 * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md,
 * "Verifying signatures"): `webhook-id`, `webhook-timestamp` and `webhook-signature` present;
 * the timestamp (integer Unix seconds) within 5 minutes of its clock (no replays); one `v1,`
 * signature in the header equal, compared in constant time, to the base64 HMAC-SHA256 of
 * `<id>.<timestamp>.<raw body>` keyed by the secret (`whsec_` and base64: the decoded bytes);
 * else 401. Then the document as docs/NOTIFICATIONS.md names it: JSON, `type`
 * `incident.firing` or `incident.resolved`, `data.incidentKey`, `data.state` matching the type
 * (else 400). A `webhook-id` seen before is answered 204 and not taken twice (the id is the
 * idempotency key). Taken: 200. Scripted: `answer(503)` until `answer(null)`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { readBody, type ServerTls, sendJson } from './aws-endpoint.js';
import { startVendorStandIn, type VendorStandIn } from './vendor-stand-in.js';

/** A delivery taken: its `webhook-id` and document. */
export interface WebhookDelivery {
  readonly id: string;
  readonly type: string;
  readonly data: { readonly incidentKey: string; readonly state: string } & Record<string, unknown>;
}

const TOLERANCE_S = 5 * 60;

/** Why the signature headers of `body` do not verify with `secret` at `nowMs`; undefined when they do. */
export function signatureProblem(
  headers: IncomingHttpHeaders,
  body: string,
  secret: string,
  nowMs: number,
): string | undefined {
  const [id, timestamp, signatures] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map(
    (name) => headers[name],
  );
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') {
    return 'webhook-id, webhook-timestamp and webhook-signature are required';
  }
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowMs / 1000 - seconds) > TOLERANCE_S) {
    return `webhook-timestamp ${timestamp} is not within 5 minutes of now`;
  }
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const match = signatures.split(' ').some((s) => {
    const given = Buffer.from(s.startsWith('v1,') ? s.slice(3) : '', 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return match ? undefined : 'no v1 signature matches';
}

/** What is wrong with a delivered document; empty when nothing. */
function documentProblems(doc: unknown): string[] {
  const d = doc as { type?: unknown; data?: Record<string, unknown> } | undefined;
  const state = d?.data?.state;
  if (d?.type !== 'incident.firing' && d?.type !== 'incident.resolved') {
    return ['type must be incident.firing or incident.resolved'];
  }
  if (typeof d.data?.incidentKey !== 'string') return ['data.incidentKey is required'];
  return d.type === `incident.${state}` ? [] : ['data.state must match the type'];
}

/** The stand-in, verifying with `secret` on the clock `now`; HTTPS with `tls`. */
export async function startWebhookServer(
  secret: string,
  now: () => number,
  tls?: ServerTls,
): Promise<VendorStandIn<WebhookDelivery>> {
  const seen = new Set<string>();
  return startVendorStandIn<WebhookDelivery>(async (req, res, book) => {
    const text = (await readBody(req, 512 * 1024)).body.toString('utf8');
    const reply = (status: number, problems: string[] = []) => {
      book.answers.push(status);
      if (problems.length > 0) book.rejected.push(problems.join('; '));
      sendJson(res, status, problems.length > 0 ? { errors: problems } : {});
    };
    if (book.forced !== null) return reply(book.forced);
    const bad = signatureProblem(req.headers, text, secret, now());
    if (req.method !== 'POST') return reply(405, [`${req.method} is not POST`]);
    if (bad !== undefined) return reply(401, [bad]);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      doc = undefined;
    }
    const typed = String(req.headers['content-type'] ?? '').startsWith('application/json');
    const problems = [...(typed ? [] : ['Content-Type must be application/json'])];
    problems.push(...documentProblems(doc));
    if (problems.length > 0) return reply(400, problems);
    const id = req.headers['webhook-id'] as string;
    if (seen.has(id)) return reply(204);
    seen.add(id);
    book.accepted.push({ id, ...(doc as Omit<WebhookDelivery, 'id'>) });
    return reply(200);
  }, tls);
}
