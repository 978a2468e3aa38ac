/**
 * What an answer of the API server must be to be read: the kind each list answers with, the
 * fields a page of each keeps, and the error an answer of another shape is, described from its
 * whole body with every credential redacted first (a gateway may echo the request's headers).
 */

import { invalidAnswerError, type Resource } from '../http/read-errors.js';
import { LEASE_FIELDS, NODE_FIELDS, record } from './projection.js';
import { ALL, type Keep, keepEach, keepFields } from './pruned-json.js';

/** What each list answers with, by `kind`. */
export const LIST_KINDS: Readonly<Record<Resource, string>> = {
  leases: 'LeaseList',
  nodes: 'NodeList',
  events: 'EventList',
};

/**
 * What a page of a resource's own list keeps: its kind and metadata, and of each item the fields
 * its projection reads. The Events a node's notification quotes are read whole.
 */
export const LIST_FIELDS: Readonly<Partial<Record<Resource, Keep>>> = {
  leases: listPage(LEASE_FIELDS),
  nodes: listPage(NODE_FIELDS),
};

function listPage(item: Keep): Keep {
  return keepFields({ kind: ALL, metadata: ALL, items: keepEach(item) });
}

export interface Answer {
  /**
   * The parsed JSON body (only the fields asked for, when pruned); undefined when the object
   * does not exist (404, with `missingIsNull`).
   */
  readonly body: unknown;
  /** The body's bytes: an answer that is not what was asked for is described from all of it. */
  readonly raw: Buffer;
  readonly date: number | undefined;
  readonly bytes: number;
}

/** The body when it is an object of `kind`; otherwise the answer is not what was asked for. */
export function ofKind(
  answer: Answer,
  kind: string,
  what: string,
  redact: (text: string) => string,
): Record<string, unknown> {
  if (record(answer.body).kind !== kind) {
    throw invalidAnswerError(what, kind, wholeBody(answer, redact));
  }
  return record(answer.body);
}

/**
 * All of the body, pruned or not, its credentials redacted before anything of it is quoted: what
 * an error describes ("a Status: …", "an empty object").
 */
export function wholeBody(answer: Answer, redact: (text: string) => string): unknown {
  try {
    // Already checked as JSON; a credential that held JSON's own characters may break it.
    return JSON.parse(redact(answer.raw.toString('utf8')));
  } catch {
    return 'an answer that quoted a credential';
  }
}
