/**
 * The second delivery path for the watchdog's own alarms, so that one click cannot end all
 * alerting: an unsubscribe link in one email (or a mail gateway that follows links) removes a
 * subscription of the notification topic, silently. With `alarmEmails` the stack creates an
 * alarm topic with its own KMS key (a disabled or deleted notification key does not take it
 * down) and subscribes those addresses; with `alarmTopicArn` the alarms also go to an existing ops
 * topic. Both may be given.
 *
 * Every alarm notifies the alarm path as well as the notification topic, not instead of it: the
 * people on the notification topic keep seeing the watchdog's own trouble next to the node
 * alerts, and the alarm path adds a second, independent way for it to arrive. Moving the alarms
 * off the notification topic would only move the single point of failure.
 */
import type { Construct } from 'constructs';
import type { DeploymentConfig } from '../lambda/settings/index.js';
import { NotificationTopic } from './topic.js';

/** The topics the alarms also notify (none when neither setting is given). */
export function createAlarmPaths(
  scope: Construct,
  config: Pick<DeploymentConfig, 'alarmEmails' | 'alarmTopicArn'>,
): NotificationTopic[] {
  const paths: NotificationTopic[] = [];
  if (config.alarmEmails !== undefined && config.alarmEmails.length > 0) {
    paths.push(
      new NotificationTopic(
        scope,
        { emails: config.alarmEmails },
        {
          idPrefix: 'Alarm',
          carries: "the topic of the watchdog's own alarms",
          displayName: 'lease-watchdog alarms',
        },
      ),
    );
  }
  if (config.alarmTopicArn !== undefined) {
    paths.push(
      new NotificationTopic(
        scope,
        { existingTopicArn: config.alarmTopicArn, emails: [] },
        { idPrefix: 'OpsAlarm', carries: 'the ops topic', displayName: 'lease-watchdog alarms' },
      ),
    );
  }
  return paths;
}
