/**
 * The topics' subscriptions of the local SNS endpoint (sns-server.ts): `Subscribe` (TopicArn,
 * Protocol, Endpoint, ReturnSubscriptionArn) and `ListSubscriptionsByTopic` (pages of `pageSize`,
 * 100 as in SNS, followed by an opaque NextToken). As in SNS, an `email`, `email-json`, `http` or
 * `https` subscription waits for its confirmation: Subscribe answers `pending confirmation` (the
 * ARN with ReturnSubscriptionArn) and the listing shows `PendingConfirmation` until the test
 * confirms it; other protocols (sqs, lambda, …) are confirmed at once. Topics are not created: any
 * well-formed topic ARN exists, with no subscription.
 */
import { randomUUID } from 'node:crypto';
import { escapeXml } from './aws-endpoint.js';
import { invalid, requiredTopicArn } from './sns-query.js';

export interface SubscriptionRecord {
  readonly topicArn: string;
  readonly protocol: string;
  readonly endpoint: string;
  /** Its ARN, confirmed or not (SNS lists a pending one as `PendingConfirmation`). */
  readonly arn: string;
  confirmed: boolean;
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

/** Every topic's subscriptions, in the order they were made. */
export class Subscriptions {
  readonly records: SubscriptionRecord[] = [];

  constructor(private readonly pageSize: number) {}

  /** Subscribe: the result's inner XML. */
  subscribe(form: URLSearchParams): string {
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
    const sub = this.#find(topicArn, protocol, endpoint) ?? this.#add(topicArn, protocol, endpoint);
    const shown =
      sub.confirmed || form.get('ReturnSubscriptionArn') === 'true'
        ? sub.arn
        : 'pending confirmation';
    return `<SubscriptionArn>${escapeXml(shown)}</SubscriptionArn>`;
  }

  /** ListSubscriptionsByTopic: the result's inner XML, one page. */
  list(form: URLSearchParams): string {
    const topicArn = requiredTopicArn(form);
    const token = form.get('NextToken');
    let start = 0;
    if (token !== null) {
      const decoded = /^page:(\d+)$/.exec(Buffer.from(token, 'base64').toString('utf8'));
      if (!decoded) throw invalid('Invalid parameter: NextToken');
      start = Number(decoded[1]);
    }
    const ofTopic = this.records.filter((sub) => sub.topicArn === topicArn);
    const page = ofTopic.slice(start, start + this.pageSize);
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
      start + this.pageSize < ofTopic.length
        ? `<NextToken>${Buffer.from(`page:${start + this.pageSize}`).toString('base64')}</NextToken>`
        : '';
    return `<Subscriptions>${members}</Subscriptions>${next}`;
  }

  /** Confirms the subscriptions of `endpoint` (as its owner clicking the confirmation link). */
  confirm(endpoint: string): void {
    for (const sub of this.records) if (sub.endpoint === endpoint) sub.confirmed = true;
  }

  /** Removes the subscriptions of `endpoint` (as its unsubscribe link does). */
  unsubscribe(endpoint: string): void {
    for (let i = this.records.length - 1; i >= 0; i--) {
      if (this.records[i]?.endpoint === endpoint) this.records.splice(i, 1);
    }
  }

  reset(): void {
    this.records.length = 0;
  }

  #find(topicArn: string, protocol: string, endpoint: string): SubscriptionRecord | undefined {
    return this.records.find(
      (s) => s.topicArn === topicArn && s.protocol === protocol && s.endpoint === endpoint,
    );
  }

  #add(topicArn: string, protocol: string, endpoint: string): SubscriptionRecord {
    const sub = {
      topicArn,
      protocol,
      endpoint,
      arn: `${topicArn}:${randomUUID()}`,
      confirmed: !CONFIRMED_BY_THE_ENDPOINT.has(protocol),
    };
    this.records.push(sub);
    return sub;
  }
}
