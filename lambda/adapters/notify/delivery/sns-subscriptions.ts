/**
 * The notification topic's subscriptions, as SNS lists them (`ListSubscriptionsByTopic`, 100 a
 * page, followed by NextToken). A subscription counts as confirmed when its SubscriptionArn is an
 * ARN: SNS shows `PendingConfirmation` until the address confirms, and `Deleted` for a moment after
 * an unsubscribe.
 */

import { ListSubscriptionsByTopicCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { TopicSubscriptions } from '../../../ports/index.js';

/**
 * 20 pages: 2,000 subscriptions. A topic with more is counted up to there (a lower bound, which is
 * all the alarm needs: fewer than one confirmed).
 */
export const MAX_SUBSCRIPTION_PAGES = 20;

export class SnsTopicSubscriptions implements TopicSubscriptions {
  constructor(private readonly options: { client: SNSClient; topicArn: string }) {}

  async confirmedCount(signal?: AbortSignal): Promise<number> {
    const { client, topicArn } = this.options;
    let confirmed = 0;
    let token: string | undefined;
    const tokens = new Set<string>();
    for (let page = 0; page < MAX_SUBSCRIPTION_PAGES; page++) {
      const output = await client.send(
        new ListSubscriptionsByTopicCommand({ TopicArn: topicArn, NextToken: token }),
        { abortSignal: signal },
      );
      for (const subscription of output.Subscriptions ?? []) {
        // Confirmed: an ARN, not `PendingConfirmation` or `Deleted`.
        if (subscription.SubscriptionArn?.startsWith('arn:')) confirmed += 1;
      }
      token = output.NextToken || undefined;
      // The last page, or a token seen before (a cycle would list the same pages again).
      if (token === undefined || tokens.has(token)) break;
      tokens.add(token);
    }
    return confirmed;
  }
}
