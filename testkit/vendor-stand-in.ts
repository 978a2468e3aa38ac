/**
 * What the paging tools' stand-ins (pagerduty-server.ts, opsgenie-server.ts) share: the records a
 * test reads (what was taken, every status answered, why each refusal), the scripted answer
 * (`answer(429)` to every request until `answer(null)`), and the loopback server they run on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ServerTls, serveOnLoopback } from './aws-endpoint.js';

/** A vendor stand-in as a test reads and scripts it; `Taken` is one request the vendor took. */
export interface VendorStandIn<Taken> {
  readonly url: string;
  /** Requests answered 2xx, in order. */
  readonly accepted: Taken[];
  /** Every request's status, in order. */
  readonly answers: number[];
  /** Why each 4xx was answered. */
  readonly rejected: string[];
  /** Answer this status to every request (429, 500, 503...); null: process them again. */
  answer(status: number | null): void;
  close(): Promise<void>;
}

/** What a stand-in's handler gets: the records to add to, and the answer scripted now. */
export interface StandInBook<Taken> {
  readonly accepted: Taken[];
  readonly answers: number[];
  readonly rejected: string[];
  readonly forced: number | null;
}

/** Serves `handle` on loopback (HTTPS with `tls`) with the records and the scripted answer it keeps. */
export async function startVendorStandIn<Taken>(
  handle: (req: IncomingMessage, res: ServerResponse, book: StandInBook<Taken>) => Promise<void>,
  tls?: ServerTls,
): Promise<VendorStandIn<Taken>> {
  let forced: number | null = null;
  const records = { accepted: [] as Taken[], answers: [] as number[], rejected: [] as string[] };
  const endpoint = await serveOnLoopback(
    (req, res) => handle(req, res, { ...records, forced }),
    undefined,
    tls,
  );
  return {
    url: endpoint.url,
    ...records,
    answer: (status) => {
      forced = status;
    },
    close: () => endpoint.close(),
  };
}
