/**
 * A local SNS endpoint for tests: speaks SNS's AWS query protocol (the one the installed
 * `@aws-sdk/client-sns` uses: form-encoded `Action=Publish&Version=2010-03-31&...` POSTed to `/`,
 * XML answers) on 127.0.0.1, so the real SDK client can publish to it.
 *
 *   const sns = await startSnsServer();
 *   const client = new SNSClient({ region: 'us-east-1', endpoint: sns.url,
 *     credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
 *   ...
 *   sns.messages  // what was accepted, decoded
 *   await sns.close();
 *
 * It enforces the rules of Publish that it can (sns-publish-rules.ts), answering SNS's own error
 * XML, so that a test relying on it fails when the code under test breaks them; `message` of what
 * was received is what an email subscription gets, `deliveredAs(m, protocol)` what a subscription
 * of another protocol gets; FIFO duplicates are accepted, not delivered again (sns-deliveries.ts).
 * A request without a SigV4 Authorization header is refused (403).
 *
 * `failNext(count, failure)` makes the next publishes fail as SNS does under trouble: `internal`
 * (500 InternalError), `throttled` (429 Throttled, SNS's own throttling answer, which the SDK maps
 * to ThrottledException) or `throttling` (400 Throttling, the generic AWS query throttling code);
 * or `hang` (never answer: for deadline and abort tests); `invalid-parameter` (400, never
 * retryable); `accept-then-hang` (the message is taken, the answer never comes: a lost response);
 * `accept` (a normal answer, to script a sequence).
 * The SDK's retry strategy treats all three as retryable (5xx transient; `ThrottledException` and
 * `Throttling` are in its throttling codes, as is any 429).
 *
 * Subscriptions (sns-subscriptions.ts): `Subscribe` and `ListSubscriptionsByTopic`; an email or
 * HTTP subscription stays pending until the test calls `confirm(endpoint)`; `unsubscribe(endpoint)`
 * removes one, as an unsubscribe link does. `failNext(count, failure, 'ListSubscriptionsByTopic')`
 * scripts the listing's failures, apart from Publish's; `authorization` answers 403
 * AuthorizationError (no permission). `GetTopicAttributes` answers the topic's ARN (any well-formed
 * topic exists here); `not-found`, scripted for it, answers 404 NotFound (a topic that is gone).
 *
 * Not supported: the AWS JSON protocol (`X-Amz-Target`) — the installed client does not send it —
 * and other actions (answered with InvalidAction).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { readBody, sendXml, serveOnLoopback } from './aws-endpoint.js';
import { Deliveries, type ReceivedMessage } from './sns-deliveries.js';
import { readPublication } from './sns-publish-rules.js';
import {
  FAILURES,
  faultXml,
  type InjectedFailure,
  internalError,
  readRequest,
  requiredTopicArn,
  resultXml,
  type SnsAction,
  SnsFault,
  TOO_LARGE_XML,
} from './sns-query.js';
import { type SubscriptionRecord, Subscriptions } from './sns-subscriptions.js';

export { deliveredAs, FIFO_DEDUP_WINDOW_MS, type ReceivedMessage } from './sns-deliveries.js';
export {
  type ReceivedAttribute,
  SNS_MAX_MESSAGE_BYTES,
  SNS_MAX_SUBJECT_CHARS,
} from './sns-publish-rules.js';
export type { InjectedFailure, SnsAction } from './sns-query.js';
export type { SubscriptionRecord } from './sns-subscriptions.js';

export interface SnsServerOptions {
  /** Reject non-ASCII subjects (default true). */
  readonly asciiSubjects?: boolean;
  /** Clock for FIFO deduplication (default Date.now). */
  readonly now?: () => number;
  /** Subscriptions per ListSubscriptionsByTopic page (default 100, as SNS). */
  readonly subscriptionPageSize?: number;
}

export interface SnsServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Accepted messages, in order (FIFO duplicates are not added again). */
  readonly messages: ReceivedMessage[];
  /** Every Publish request answered, accepted or not: how many attempts the client made. */
  readonly requests: number;
  /** ListSubscriptionsByTopic requests answered (each page is one), accepted or not. */
  readonly listRequests: number;
  /** The subscriptions, of every topic, in the order they were made. */
  readonly subscriptions: readonly SubscriptionRecord[];
  /** Confirms the subscriptions of `endpoint` (as its owner clicking the confirmation link). */
  confirm(endpoint: string): void;
  /** Removes the subscriptions of `endpoint` (as its unsubscribe link does). */
  unsubscribe(endpoint: string): void;
  /** Publishes accepted as duplicates of an earlier FIFO deduplication id. */
  readonly duplicates: number;
  /** Rejections sent, with their codes, for assertions. */
  readonly rejections: readonly { code: string; message: string }[];
  /** Make the next `count` requests of `action` (default Publish) fail with the given failure. */
  failNext(count: number, failure: InjectedFailure, action?: SnsAction): void;
  /** Forget messages, subscriptions, counters, injected failures and the deduplication memory. */
  reset(): void;
  close(): Promise<void>;
}

/** SNS reads no request larger than this. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/** An answer to send, or null: none (an injected hang). */
type Answer = { readonly status: number; readonly xml: string } | null;

/** What the server holds between requests: what it accepted, its counters and its script. */
class SnsState {
  readonly deliveries = new Deliveries();
  readonly subscriptions: Subscriptions;
  readonly rejections: { code: string; message: string }[] = [];
  readonly scripted = new Map<SnsAction, InjectedFailure[]>();
  requests = 0;
  listRequests = 0;

  constructor(
    readonly options: { readonly asciiSubjects: boolean; readonly now: () => number },
    pageSize: number,
  ) {
    this.subscriptions = new Subscriptions(pageSize);
  }

  /** Answers one request whose body SNS read whole. */
  answer(req: IncomingMessage, body: Buffer, requestId: string): Answer {
    try {
      const { action, form } = readRequest(req, body);
      if (action === 'Publish') this.requests += 1;
      if (action === 'ListSubscriptionsByTopic') this.listRequests += 1;
      const injected = this.scripted.get(action)?.shift();
      if (injected === 'hang') return null;
      if (injected && injected !== 'accept' && injected !== 'accept-then-hang') {
        throw FAILURES[injected]();
      }
      const result = this.#perform(action, form);
      if (injected === 'accept-then-hang') return null;
      return { status: 200, xml: resultXml(action, result, requestId) };
    } catch (error) {
      const fault = error instanceof SnsFault ? error : internalError();
      this.rejections.push({ code: fault.code, message: fault.message });
      return { status: fault.status, xml: faultXml(fault, requestId) };
    }
  }

  /** The action, done: the inner XML of its result. */
  #perform(action: SnsAction, form: URLSearchParams): string {
    if (action === 'Subscribe') return this.subscriptions.subscribe(form);
    if (action === 'ListSubscriptionsByTopic') return this.subscriptions.list(form);
    if (action === 'GetTopicAttributes') {
      const arn = requiredTopicArn(form);
      return `<Attributes><entry><key>TopicArn</key><value>${arn}</value></entry></Attributes>`;
    }
    const publication = readPublication(form, this.options.asciiSubjects);
    const { messageId, sequenceNumber } = this.deliveries.accept(publication, this.options.now());
    const seq = sequenceNumber ? `<SequenceNumber>${sequenceNumber}</SequenceNumber>` : '';
    return `<MessageId>${messageId}</MessageId>${seq}`;
  }

  reset(): void {
    this.deliveries.reset();
    this.subscriptions.reset();
    this.rejections.length = 0;
    this.scripted.clear();
    this.requests = 0;
    this.listRequests = 0;
  }
}

export async function startSnsServer(options: SnsServerOptions = {}): Promise<SnsServer> {
  const state = new SnsState(
    { asciiSubjects: options.asciiSubjects ?? true, now: options.now ?? Date.now },
    options.subscriptionPageSize ?? 100,
  );
  const endpoint = await serveOnLoopback(async (req, res) => {
    const { body, size } = await readBody(req, MAX_REQUEST_BYTES);
    const requestId = randomUUID();
    // Only a Publish can be that large.
    if (size > MAX_REQUEST_BYTES) state.requests += 1;
    const answer =
      size > MAX_REQUEST_BYTES
        ? { status: 413, xml: TOO_LARGE_XML }
        : state.answer(req, body, requestId);
    if (answer !== null) sendXml(res, answer.status, answer.xml, { requestId });
  });
  return {
    url: endpoint.url,
    messages: state.deliveries.messages,
    get requests() {
      return state.requests;
    },
    get duplicates() {
      return state.deliveries.duplicates;
    },
    get listRequests() {
      return state.listRequests;
    },
    subscriptions: state.subscriptions.records,
    confirm: (endpoint) => state.subscriptions.confirm(endpoint),
    unsubscribe: (endpoint) => state.subscriptions.unsubscribe(endpoint),
    rejections: state.rejections,
    failNext(count, failure, action = 'Publish') {
      const queue = state.scripted.get(action) ?? [];
      for (let i = 0; i < count; i++) queue.push(failure);
      state.scripted.set(action, queue);
    },
    reset: () => state.reset(),
    close: endpoint.close,
  };
}
