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
 * It enforces the rules of Publish that it can, answering SNS's own error XML, so that a test
 * relying on it fails when the code under test breaks them:
 * - Subject: fewer than 100 characters (counted in UTF-16 units, the stricter count), no line
 *   breaks or control characters, starting with a letter, number or punctuation mark; with
 *   `asciiSubjects` (the default) printable ASCII only, as SNS documented for years and as AWS's
 *   own SNS integrations still require.
 * - Message: present, non-empty, at most 262,144 UTF-8 bytes — and the whole payload (message,
 *   subject, attribute names, types and values) too.
 * - Message attributes: at most 10, valid names, known data types, non-empty values; a
 *   String.Array value must be a JSON array (of strings, numbers, true, false or null).
 * - MessageStructure: only `json`, and then the Message must be a JSON object with a string
 *   `default` entry, and the entries of the protocols it knows must be strings. `message` of what
 *   was received is then what an email subscription gets (`email`, else `default`);
 *   `deliveredAs(m, protocol)` is what a subscription of another protocol gets.
 * - FIFO topics (ARN ending in `.fifo`): MessageGroupId required, MessageDeduplicationId required
 *   (no content-based deduplication here), both ≤ 128 characters of SNS's allowed set; a repeated
 *   deduplication id within 5 minutes is accepted but not delivered again (same MessageId back).
 * - Standard topics: MessageDeduplicationId is rejected.
 * - A request without a SigV4 Authorization header is refused (403).
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
 * Subscriptions: `Subscribe` (TopicArn, Protocol, Endpoint, ReturnSubscriptionArn) and
 * `ListSubscriptionsByTopic` (pages of `subscriptionPageSize`, 100 as in SNS, followed by an opaque
 * NextToken). As in SNS, an `email`, `email-json`, `http` or `https` subscription waits for its
 * confirmation: Subscribe answers `pending confirmation` (the ARN with ReturnSubscriptionArn) and
 * the listing shows `PendingConfirmation` until the test calls `confirm(endpoint)`; other protocols
 * (sqs, lambda, …) are confirmed at once. `unsubscribe(endpoint)` removes one, as an unsubscribe
 * link does. Topics are not created: any well-formed topic ARN exists, with no subscription.
 * `failNext(count, failure, 'ListSubscriptionsByTopic')` scripts the listing's failures, apart from
 * Publish's; `authorization` answers 403 AuthorizationError (no permission).
 *
 * Not supported: the AWS JSON protocol (`X-Amz-Target`) — the installed client does not send it —
 * and other actions (answered with InvalidAction).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const SNS_MAX_MESSAGE_BYTES = 262_144;
export const SNS_MAX_SUBJECT_CHARS = 99;
export const FIFO_DEDUP_WINDOW_MS = 5 * 60 * 1000;

export interface ReceivedAttribute {
  readonly dataType: string;
  readonly stringValue?: string | undefined;
  readonly binaryValue?: string | undefined;
}

export interface ReceivedMessage {
  readonly messageId: string;
  readonly topicArn: string;
  readonly subject?: string | undefined;
  /** What an email subscription receives: the Message, or with `MessageStructure: json` its `email` (else `default`) entry. */
  readonly message: string;
  /** The Message parameter exactly as published. */
  readonly rawMessage?: string | undefined;
  /** `json` when the publish set MessageStructure. */
  readonly messageStructure?: string | undefined;
  /** With `MessageStructure: json`: the string entries of the message, by protocol key. */
  readonly structure?: Readonly<Record<string, string>> | undefined;
  readonly attributes: Readonly<Record<string, ReceivedAttribute>>;
  readonly messageGroupId?: string | undefined;
  readonly messageDeduplicationId?: string | undefined;
  /** Server clock (epoch ms) at which it was accepted. */
  readonly receivedAt: number;
}

/**
 * `hang`: never answer (until the client gives up or the server closes). `invalid-parameter`: 400
 * InvalidParameter, as for a message SNS will never take. `accept-then-hang`: accept the message,
 * then never answer (a lost response). `accept`: answer normally (to script a sequence).
 */
export type InjectedFailure =
  | 'internal'
  | 'throttled'
  | 'throttling'
  | 'invalid-parameter'
  | 'hang'
  | 'accept-then-hang'
  | 'accept'
  | 'authorization';

/** The actions this server answers; `failNext` scripts each apart. */
export type SnsAction = 'Publish' | 'Subscribe' | 'ListSubscriptionsByTopic';

export interface SubscriptionRecord {
  readonly topicArn: string;
  readonly protocol: string;
  readonly endpoint: string;
  /** Its ARN, confirmed or not (SNS lists a pending one as `PendingConfirmation`). */
  readonly arn: string;
  confirmed: boolean;
}

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

const XMLNS = 'http://sns.amazonaws.com/doc/2010-03-31/';
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

class SnsFault extends Error {
  override readonly name = 'SnsFault';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly type: 'Sender' | 'Receiver' = 'Sender',
  ) {
    super(message);
  }
}

const invalid = (message: string) => new SnsFault(400, 'InvalidParameter', message);
const invalidValue = (message: string) => new SnsFault(400, 'ParameterValueInvalid', message);

const FAILURES: Readonly<
  Record<Exclude<InjectedFailure, 'hang' | 'accept-then-hang' | 'accept'>, () => SnsFault>
> = {
  authorization: () =>
    new SnsFault(
      403,
      'AuthorizationError',
      'User is not authorized to perform this action: injected by the test',
    ),
  'invalid-parameter': () =>
    new SnsFault(400, 'InvalidParameter', 'Invalid parameter: injected by the test'),
  internal: () => new SnsFault(500, 'InternalError', 'Request could not be completed', 'Receiver'),
  throttled: () => new SnsFault(429, 'Throttled', 'Rate exceeded'),
  throttling: () => new SnsFault(400, 'Throttling', 'Rate exceeded'),
};

export async function startSnsServer(options: SnsServerOptions = {}): Promise<SnsServer> {
  const asciiSubjects = options.asciiSubjects ?? true;
  const now = options.now ?? Date.now;
  const messages: ReceivedMessage[] = [];
  const rejections: { code: string; message: string }[] = [];
  const seen = new Map<string, { messageId: string; at: number }>();
  const scripted = new Map<SnsAction, InjectedFailure[]>();
  const subscriptions: SubscriptionRecord[] = [];
  const pageSize = options.subscriptionPageSize ?? 100;
  let requests = 0;
  let listRequests = 0;
  let duplicates = 0;
  let sequence = 10_000_000_000_000_000n;

  function publish(form: URLSearchParams): { messageId: string; sequenceNumber?: string } {
    const topicArn = form.get('TopicArn') ?? form.get('TargetArn');
    if (!topicArn) {
      throw invalid(
        'Invalid parameter: TopicArn or TargetArn Reason: no value for required parameter',
      );
    }
    if (!/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/.test(topicArn)) {
      throw invalid('Invalid parameter: TopicArn');
    }
    const fifo = topicArn.endsWith('.fifo');

    const message = form.get('Message');
    if (message === null || message.length === 0) throw invalid('Invalid parameter: Empty message');
    const messageBytes = Buffer.byteLength(message, 'utf8');
    if (messageBytes > SNS_MAX_MESSAGE_BYTES) throw invalid('Invalid parameter: Message too long');

    const subject = form.get('Subject') ?? undefined;
    if (subject !== undefined) checkSubject(subject, asciiSubjects);
    const messageStructure = form.get('MessageStructure') ?? undefined;
    const structure = readStructure(messageStructure, message);
    const delivered = {
      message: structure ? (structure.email ?? structure.default ?? message) : message,
      rawMessage: message,
      messageStructure,
      structure,
    };

    const attributes = readAttributes(form);
    const attributeBytes = Object.entries(attributes).reduce(
      (sum, [name, a]) =>
        sum +
        Buffer.byteLength(name) +
        Buffer.byteLength(a.dataType) +
        Buffer.byteLength(a.stringValue ?? a.binaryValue ?? ''),
      0,
    );
    if (messageBytes + Buffer.byteLength(subject ?? '') + attributeBytes > SNS_MAX_MESSAGE_BYTES) {
      throw invalid('Invalid parameter: Message too long');
    }

    const messageGroupId = form.get('MessageGroupId') ?? undefined;
    const messageDeduplicationId = form.get('MessageDeduplicationId') ?? undefined;
    if (messageGroupId !== undefined) checkFifoId('MessageGroupId', messageGroupId);
    if (messageDeduplicationId !== undefined) {
      checkFifoId('MessageDeduplicationId', messageDeduplicationId);
    }
    if (fifo) {
      if (messageGroupId === undefined) {
        throw invalid(
          'Invalid parameter: The MessageGroupId parameter is required for FIFO topics',
        );
      }
      if (messageDeduplicationId === undefined) {
        throw invalid(
          'Invalid parameter: The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
        );
      }
    } else if (messageDeduplicationId !== undefined) {
      throw invalid(
        'Invalid parameter: MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type',
      );
    }

    const at = now();
    if (fifo && messageDeduplicationId !== undefined) {
      const key = `${topicArn}\n${messageDeduplicationId}`;
      const earlier = seen.get(key);
      if (earlier && at - earlier.at < FIFO_DEDUP_WINDOW_MS) {
        duplicates += 1;
        sequence += 1n;
        return { messageId: earlier.messageId, sequenceNumber: String(sequence) };
      }
      const messageId = randomUUID();
      seen.set(key, { messageId, at });
      messages.push({
        messageId,
        topicArn,
        subject,
        ...delivered,
        attributes,
        messageGroupId,
        messageDeduplicationId,
        receivedAt: at,
      });
      sequence += 1n;
      return { messageId, sequenceNumber: String(sequence) };
    }
    const messageId = randomUUID();
    messages.push({
      messageId,
      topicArn,
      subject,
      ...delivered,
      attributes,
      messageGroupId,
      messageDeduplicationId,
      receivedAt: at,
    });
    return { messageId };
  }

  /** Subscribe: the result's inner XML. */
  function subscribe(form: URLSearchParams): string {
    const topicArn = requiredTopicArn(form);
    const protocol = form.get('Protocol');
    if (!protocol) {
      throw invalid('Invalid parameter: Protocol Reason: no value for required parameter');
    }
    if (!PROTOCOLS.has(protocol)) {
      throw invalid(
        `Invalid parameter: Amazon SNS does not support this protocol string: ${protocol}`,
      );
    }
    const endpoint = form.get('Endpoint');
    if (!endpoint)
      throw invalid('Invalid parameter: Endpoint Reason: no value for required parameter');
    if (protocol.startsWith('email') && !/^[^@\s]+@[^@\s]+$/.test(endpoint)) {
      throw invalid('Invalid parameter: Email address');
    }
    let sub = subscriptions.find(
      (s) => s.topicArn === topicArn && s.protocol === protocol && s.endpoint === endpoint,
    );
    if (!sub) {
      sub = {
        topicArn,
        protocol,
        endpoint,
        arn: `${topicArn}:${randomUUID()}`,
        confirmed: !CONFIRMED_BY_THE_ENDPOINT.has(protocol),
      };
      subscriptions.push(sub);
    }
    const shown =
      sub.confirmed || form.get('ReturnSubscriptionArn') === 'true'
        ? sub.arn
        : 'pending confirmation';
    return `<SubscriptionArn>${escapeXml(shown)}</SubscriptionArn>`;
  }

  /** ListSubscriptionsByTopic: the result's inner XML, one page. */
  function listSubscriptions(form: URLSearchParams): string {
    const topicArn = requiredTopicArn(form);
    const token = form.get('NextToken');
    let start = 0;
    if (token !== null) {
      const decoded = /^page:(\d+)$/.exec(Buffer.from(token, 'base64').toString('utf8'));
      if (!decoded) throw invalid('Invalid parameter: NextToken');
      start = Number(decoded[1]);
    }
    const ofTopic = subscriptions.filter((sub) => sub.topicArn === topicArn);
    const page = ofTopic.slice(start, start + pageSize);
    const owner = topicArn.split(':')[4] ?? '';
    const members = page
      .map(
        (sub) =>
          `<member><TopicArn>${escapeXml(sub.topicArn)}</TopicArn><Protocol>${escapeXml(sub.protocol)}</Protocol>` +
          `<SubscriptionArn>${sub.confirmed ? escapeXml(sub.arn) : 'PendingConfirmation'}</SubscriptionArn>` +
          `<Owner>${owner}</Owner><Endpoint>${escapeXml(sub.endpoint)}</Endpoint></member>`,
      )
      .join('');
    const next =
      start + pageSize < ofTopic.length
        ? `<NextToken>${Buffer.from(`page:${start + pageSize}`).toString('base64')}</NextToken>`
        : '';
    return `<Subscriptions>${members}</Subscriptions>${next}`;
  }

  function handle(
    req: http.IncomingMessage,
    body: Buffer,
    requestId: string,
  ): { status: number; xml: string } | null {
    try {
      if (req.method !== 'POST') {
        throw new SnsFault(400, 'InvalidAction', `${req.method} is not supported here`);
      }
      const type = req.headers['content-type'] ?? '';
      if (!type.startsWith('application/x-www-form-urlencoded')) {
        throw new SnsFault(
          400,
          'InvalidAction',
          `Content-Type ${type || '(none)'} is not the query protocol (the AWS JSON protocol is not supported by this test server)`,
        );
      }
      if (!String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 ')) {
        throw new SnsFault(
          403,
          'MissingAuthenticationToken',
          'Request is missing Authentication Token',
        );
      }
      const form = new URLSearchParams(body.toString('utf8'));
      const action = form.get('Action');
      if (action !== 'Publish' && action !== 'Subscribe' && action !== 'ListSubscriptionsByTopic') {
        throw new SnsFault(
          400,
          'InvalidAction',
          `Could not find operation ${action ?? '(none)'} for version 2010-03-31`,
        );
      }
      if (action === 'Publish') requests += 1;
      if (action === 'ListSubscriptionsByTopic') listRequests += 1;
      const injected = scripted.get(action)?.shift();
      if (injected === 'hang') return null;
      if (injected && injected !== 'accept' && injected !== 'accept-then-hang') {
        throw FAILURES[injected]();
      }
      if (action !== 'Publish') {
        const result = action === 'Subscribe' ? subscribe(form) : listSubscriptions(form);
        if (injected === 'accept-then-hang') return null;
        return {
          status: 200,
          xml:
            `<${action}Response xmlns="${XMLNS}"><${action}Result>${result}</${action}Result>` +
            `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>`,
        };
      }
      const { messageId, sequenceNumber } = publish(form);
      if (injected === 'accept-then-hang') return null;
      const seq = sequenceNumber ? `<SequenceNumber>${sequenceNumber}</SequenceNumber>` : '';
      return {
        status: 200,
        xml:
          `<PublishResponse xmlns="${XMLNS}"><PublishResult><MessageId>${messageId}</MessageId>${seq}` +
          `</PublishResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></PublishResponse>`,
      };
    } catch (error) {
      const fault =
        error instanceof SnsFault
          ? error
          : new SnsFault(500, 'InternalError', 'Request could not be completed', 'Receiver');
      rejections.push({ code: fault.code, message: fault.message });
      return {
        status: fault.status,
        xml:
          `<ErrorResponse xmlns="${XMLNS}"><Error><Type>${fault.type}</Type><Code>${fault.code}</Code>` +
          `<Message>${escapeXml(fault.message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
      };
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      const requestId = randomUUID();
      // Only a Publish can be that large.
      if (size > MAX_REQUEST_BYTES) requests += 1;
      const answer =
        size > MAX_REQUEST_BYTES
          ? {
              status: 413,
              xml: `<ErrorResponse xmlns="${XMLNS}"><Error><Type>Sender</Type><Code>RequestEntityTooLarge</Code><Message>Request too large</Message></Error></ErrorResponse>`,
            }
          : handle(req, Buffer.concat(chunks), requestId);
      if (answer === null) return; // injected hang
      const { status, xml } = answer;
      res.writeHead(status, {
        'content-type': 'text/xml',
        'x-amzn-requestid': requestId,
        'content-length': Buffer.byteLength(xml),
      });
      res.end(xml);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    messages,
    get requests() {
      return requests;
    },
    get duplicates() {
      return duplicates;
    },
    get listRequests() {
      return listRequests;
    },
    subscriptions,
    confirm(endpoint: string) {
      for (const sub of subscriptions) if (sub.endpoint === endpoint) sub.confirmed = true;
    },
    unsubscribe(endpoint: string) {
      for (let i = subscriptions.length - 1; i >= 0; i--) {
        if (subscriptions[i]?.endpoint === endpoint) subscriptions.splice(i, 1);
      }
    },
    rejections,
    failNext(count: number, failure: InjectedFailure, action: SnsAction = 'Publish') {
      const queue = scripted.get(action) ?? [];
      for (let i = 0; i < count; i++) queue.push(failure);
      scripted.set(action, queue);
    },
    reset() {
      messages.length = 0;
      rejections.length = 0;
      subscriptions.length = 0;
      scripted.clear();
      seen.clear();
      requests = 0;
      listRequests = 0;
      duplicates = 0;
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/** SNS's subscription protocols. */
const PROTOCOLS = new Set([
  'http',
  'https',
  'email',
  'email-json',
  'sms',
  'sqs',
  'application',
  'lambda',
  'firehose',
]);
/** Protocols whose endpoint must confirm the subscription (the others are confirmed at once). */
const CONFIRMED_BY_THE_ENDPOINT = new Set(['http', 'https', 'email', 'email-json']);

const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

function requiredTopicArn(form: URLSearchParams): string {
  const topicArn = form.get('TopicArn');
  if (!topicArn) {
    throw invalid('Invalid parameter: TopicArn Reason: no value for required parameter');
  }
  if (!TOPIC_ARN.test(topicArn)) throw invalid('Invalid parameter: TopicArn');
  return topicArn;
}

function checkSubject(subject: string, ascii: boolean): void {
  const reject = (why: string) => invalid(`Invalid parameter: Subject Reason: ${why}`);
  if (subject.length === 0) throw reject('must not be empty');
  if (subject.length > SNS_MAX_SUBJECT_CHARS) {
    throw reject('must be less than 100 characters long');
  }
  if (/[\p{Cc}\u2028\u2029]/u.test(subject)) {
    throw reject('must not include line breaks or control characters');
  }
  if (!/^[\p{L}\p{N}\p{P}]/u.test(subject)) {
    throw reject('must begin with a letter, number or punctuation mark');
  }
  if (ascii && /[^\x20-\x7e]/.test(subject)) throw reject('must be ASCII text');
}

/** SNS's allowed characters for MessageGroupId and MessageDeduplicationId: printable ASCII, no space. */
function checkFifoId(name: string, value: string): void {
  if (value.length === 0 || value.length > 128 || !/^[\x21-\x7e]+$/.test(value)) {
    throw invalid(
      `Invalid parameter: ${name} Reason: must be 1 to 128 alphanumeric or punctuation characters`,
    );
  }
}

const ATTRIBUTE_TYPE = /^(String|Number|Binary|String\.Array)(\.[A-Za-z0-9_.-]+)?$/;

function isAttributeArray(value: string): boolean {
  try {
    const parsed: unknown = JSON.parse(value);
    return (
      Array.isArray(parsed) &&
      parsed.every(
        (x) =>
          x === null || typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean',
      )
    );
  } catch {
    return false;
  }
}

function readAttributes(form: URLSearchParams): Record<string, ReceivedAttribute> {
  const attributes: Record<string, ReceivedAttribute> = {};
  for (let i = 1; ; i++) {
    const prefix = `MessageAttributes.entry.${i}`;
    const name = form.get(`${prefix}.Name`);
    if (name === null) break;
    if (i > 10) {
      throw invalidValue('Number of message attributes [11] exceeds the allowed maximum [10].');
    }
    if (
      name.length === 0 ||
      name.length > 256 ||
      !/^[A-Za-z0-9_.-]+$/.test(name) ||
      /^(aws\.|amazon\.)/i.test(name) ||
      name.startsWith('.') ||
      name.endsWith('.') ||
      name.includes('..')
    ) {
      throw invalidValue(`The message attribute name '${name}' is invalid.`);
    }
    const dataType = form.get(`${prefix}.Value.DataType`) ?? '';
    if (!ATTRIBUTE_TYPE.test(dataType)) {
      throw invalidValue(
        `The message attribute '${name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.`,
      );
    }
    const stringValue = form.get(`${prefix}.Value.StringValue`) ?? undefined;
    const binaryValue = form.get(`${prefix}.Value.BinaryValue`) ?? undefined;
    const value = dataType.startsWith('Binary') ? binaryValue : stringValue;
    if (value === undefined || value.length === 0) {
      throw invalidValue(
        `The message attribute '${name}' must contain non-empty message attribute value for message attribute type '${dataType.split('.')[0]}'.`,
      );
    }
    if (/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u.test(value)) {
      throw invalidValue(`The message attribute '${name}' contains invalid characters.`);
    }
    if (dataType === 'String.Array' && !isAttributeArray(value)) {
      throw invalidValue(
        `The message attribute '${name}' with type 'String.Array' must be a JSON array of strings, numbers, true, false or null.`,
      );
    }
    if (dataType.startsWith('Number') && !/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(value)) {
      throw invalidValue(`The message attribute '${name}' with type 'Number' must be a number.`);
    }
    attributes[name] = { dataType, stringValue, binaryValue };
  }
  return attributes;
}

/** The protocol keys SNS gives a meaning to in a JSON message structure: their values must be strings. */
const PROTOCOL_KEYS = new Set([
  'default',
  'email',
  'email-json',
  'http',
  'https',
  'sqs',
  'sms',
  'lambda',
  'firehose',
  'application',
]);

function readStructure(
  messageStructure: string | undefined,
  message: string,
): Record<string, string> | undefined {
  if (messageStructure === undefined) return undefined;
  if (messageStructure !== 'json') {
    throw invalid('Invalid parameter: MessageStructure Reason: must be json');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    throw invalid('Invalid parameter: Message Structure - JSON message body failed to parse');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalid('Invalid parameter: Message Structure - JSON message body failed to parse');
  }
  const entries: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string') entries[key] = value;
    else if (PROTOCOL_KEYS.has(key)) {
      throw invalid(`Invalid parameter: Message Structure - the ${key} entry must be a string`);
    }
  }
  if (entries.default === undefined) {
    throw invalid('Invalid parameter: Message Structure - No default entry in JSON message body');
  }
  return entries;
}

/** What a subscription of `protocol` receives of a message: its entry, else `default`. */
export function deliveredAs(message: ReceivedMessage, protocol: string): string {
  if (!message.structure) return message.message;
  return message.structure[protocol] ?? message.structure.default ?? message.message;
}

function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}
