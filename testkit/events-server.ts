/**
 * A tiny Amazon EventBridge endpoint on 127.0.0.1 and a random port, speaking the JSON 1.1
 * protocol the real `@aws-sdk/client-eventbridge` uses for PutEvents (`POST /`,
 * `X-Amz-Target: AWSEvents.PutEvents`): it keeps every entry as PutEvents received it and answers
 * as EventBridge does, `{FailedEntryCount, Entries: [{EventId} | {ErrorCode, ErrorMessage}]}`.
 * Scripted: `failEntries` answers 200 with every entry failed (as EventBridge does for a
 * per-entry error), `unavailable` answers 500 InternalException. Never AWS.
 */
import { createServer, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './ports.js';

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

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      targets.push(target);
      if (req.method !== 'POST' || target !== 'AWSEvents.PutEvents') {
        answer(res, 400, { __type: 'ValidationException', message: `unsupported: ${target}` });
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        Entries?: ReceivedEntry[];
      };
      const received = body.Entries ?? [];
      entries.push(...received);
      if (down) {
        answer(res, 500, { __type: 'InternalException', message: 'Internal error' });
        return;
      }
      if (failCode !== null) {
        const code = failCode;
        answer(res, 200, {
          FailedEntryCount: received.length,
          Entries: received.map(() => ({ ErrorCode: code, ErrorMessage: `${code} (scripted)` })),
        });
        return;
      }
      accepted.push(...received);
      answer(res, 200, {
        FailedEntryCount: 0,
        Entries: received.map(() => ({ EventId: `event-${++ids}` })),
      });
    });
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    entries,
    accepted,
    targets,
    failEntries: (code) => {
      failCode = code;
    },
    unavailable: (on) => {
      down = on;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': 'local-request',
  });
  res.end(text);
}
