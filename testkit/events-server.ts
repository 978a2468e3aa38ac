/**
 * A tiny Amazon EventBridge endpoint on 127.0.0.1 and a random port, speaking the JSON 1.1
 * protocol the real `@aws-sdk/client-eventbridge` uses for PutEvents (`POST /`,
 * `X-Amz-Target: AWSEvents.PutEvents`): it keeps every entry as PutEvents received it and answers
 * as EventBridge does, `{FailedEntryCount, Entries: [{EventId} | {ErrorCode, ErrorMessage}]}`.
 * Scripted: `failEntries` answers 200 with every entry failed (as EventBridge does for a
 * per-entry error), `unavailable` answers 500 InternalException. Never AWS.
 */
import { readBody, sendJson, serveOnLoopback } from './aws-endpoint.js';

/** One entry of a PutEvents request, as received. */
export interface ReceivedEntry {
  readonly EventBusName?: string;
  readonly Source?: string;
  readonly DetailType?: string;
  readonly Detail?: string;
  readonly Resources?: string[];
  /** Epoch seconds, as the JSON protocol sends a timestamp. */
  readonly Time?: number;
}

export interface EventsServer {
  readonly url: string;
  /** Entries of every PutEvents request, accepted or not, in order. */
  readonly entries: ReceivedEntry[];
  /** Entries answered with an EventId. */
  readonly accepted: ReceivedEntry[];
  /** The X-Amz-Target header of each request. */
  readonly targets: string[];
  /** Answer 200 with every entry failed with this error code; null: accept again. */
  failEntries(code: string | null): void;
  /** Answer 500 InternalException to every request; false: answer again. */
  unavailable(on: boolean): void;
  close(): Promise<void>;
}

export async function startEventsServer(): Promise<EventsServer> {
  const entries: ReceivedEntry[] = [];
  const accepted: ReceivedEntry[] = [];
  const targets: string[] = [];
  let failCode: string | null = null;
  let down = false;
  let ids = 0;

  const endpoint = await serveOnLoopback(async (req, res) => {
    const { body } = await readBody(req);
    const target = String(req.headers['x-amz-target'] ?? '');
    targets.push(target);
    if (req.method !== 'POST' || target !== 'AWSEvents.PutEvents') {
      sendJson(res, 400, { __type: 'ValidationException', message: `unsupported: ${target}` });
      return;
    }
    const received =
      (JSON.parse(body.toString('utf8')) as { Entries?: ReceivedEntry[] }).Entries ?? [];
    entries.push(...received);
    if (down) {
      sendJson(res, 500, { __type: 'InternalException', message: 'Internal error' });
    } else if (failCode !== null) {
      const code = failCode;
      sendJson(res, 200, {
        FailedEntryCount: received.length,
        Entries: received.map(() => ({ ErrorCode: code, ErrorMessage: `${code} (scripted)` })),
      });
    } else {
      accepted.push(...received);
      sendJson(res, 200, {
        FailedEntryCount: 0,
        Entries: received.map(() => ({ EventId: `event-${++ids}` })),
      });
    }
  });
  return {
    url: endpoint.url,
    entries,
    accepted,
    targets,
    failEntries: (code) => {
      failCode = code;
    },
    unavailable: (on) => {
      down = on;
    },
    close: endpoint.close,
  };
}
