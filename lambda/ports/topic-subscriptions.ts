/** Watching the notification topic: who still receives the alerts. */

/**
 * The notification topic's subscriptions: an unsubscribe link (or a mail gateway that follows
 * it) removes one silently, and with the last one every alert reaches nobody.
 */
export interface TopicSubscriptions {
  /**
   * How many subscriptions of the topic are confirmed (pending and deleted ones do not count).
   * Rejects when they cannot be listed; honours `signal`.
   */
  confirmedCount(signal?: AbortSignal): Promise<number>;
}
