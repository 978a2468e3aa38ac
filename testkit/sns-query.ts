/**
 * SNS's AWS query protocol as the local SNS endpoint (sns-server.ts) speaks it: which requests it
 * takes (form-encoded POSTs signed with SigV4, one of the actions it knows), the faults it answers
 * in SNS's own error XML (those a rule raises and those a test injects), the topic ARN every action
 * names, and the XML of an answer.
 */
import type { IncomingMessage } from 'node:http';
import { queryErrorXml, queryForm } from './aws-endpoint.js';

/** The actions this server answers; `failNext` scripts each apart. */
export type SnsAction = 'Publish' | 'Subscribe' | 'ListSubscriptionsByTopic' | 'GetTopicAttributes';
const ACTIONS: readonly string[] = [
  'Publish',
  'Subscribe',
  'ListSubscriptionsByTopic',
  'GetTopicAttributes',
] satisfies SnsAction[];

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
  | 'authorization'
  | 'not-found';

export const XMLNS = 'http://sns.amazonaws.com/doc/2010-03-31/';

/** An error SNS answers: its HTTP status, code and message. */
export class SnsFault extends Error {
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

export const invalid = (message: string) => new SnsFault(400, 'InvalidParameter', message);
export const invalidValue = (message: string) =>
  new SnsFault(400, 'ParameterValueInvalid', message);
export const internalError = () =>
  new SnsFault(500, 'InternalError', 'Request could not be completed', 'Receiver');

/** The injected failures that are answers (the others hang or accept). */
export const FAILURES: Readonly<
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
  internal: internalError,
  'not-found': () => new SnsFault(404, 'NotFound', 'Topic does not exist'),
  throttled: () => new SnsFault(429, 'Throttled', 'Rate exceeded'),
  throttling: () => new SnsFault(400, 'Throttling', 'Rate exceeded'),
};

/** The action and parameters of a request; throws the fault SNS answers one it does not take. */
export function readRequest(
  req: IncomingMessage,
  body: Buffer,
): { action: SnsAction; form: URLSearchParams } {
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
  const form = queryForm(body);
  const action = form.get('Action');
  if (action === null || !ACTIONS.includes(action)) {
    throw new SnsFault(
      400,
      'InvalidAction',
      `Could not find operation ${action ?? '(none)'} for version 2010-03-31`,
    );
  }
  return { action: action as SnsAction, form };
}

export const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

/** The request's TopicArn, required and well formed (any such topic exists here). */
export function requiredTopicArn(form: URLSearchParams): string {
  const topicArn = form.get('TopicArn');
  if (!topicArn) {
    throw invalid('Invalid parameter: TopicArn Reason: no value for required parameter');
  }
  if (!TOPIC_ARN.test(topicArn)) throw invalid('Invalid parameter: TopicArn');
  return topicArn;
}

/** A successful answer: `result` is the inner XML of `<{action}Result>`. */
export function resultXml(action: SnsAction, result: string, requestId: string): string {
  return (
    `<${action}Response xmlns="${XMLNS}"><${action}Result>${result}</${action}Result>` +
    `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>`
  );
}

/** A fault's answer. */
export function faultXml(fault: SnsFault, requestId: string): string {
  return queryErrorXml(XMLNS, fault, requestId);
}

/** The answer to a request larger than SNS reads (no request id: SNS never parsed it). */
export const TOO_LARGE_XML = `<ErrorResponse xmlns="${XMLNS}"><Error><Type>Sender</Type><Code>RequestEntityTooLarge</Code><Message>Request too large</Message></Error></ErrorResponse>`;
