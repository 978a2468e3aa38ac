/**
 * The names of the alarms the stack creates: `<stackName>-<name>`, exactly as docs/OPERATE.md's
 * "Operate" table lists them, so that runbooks, `aws cloudwatch` commands and PagerDuty's
 * CloudWatch integration can refer to them (CloudFormation's generated names change with every
 * replacement and say nothing).
 *
 * CloudWatch's PutMetricAlarm (https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html):
 * AlarmName "must be unique within the Region. The name must contain only UTF-8 characters, and
 * can't contain ASCII control characters", 1 to 255 characters. A stack name (≤ 128) and a cluster
 * name (≤ 100, letters, digits, `.`, `_`, `-`) stay within it; a longer name (a construct reused
 * under a long prefix) is cut and ends with a digest of the whole, so it stays unique and the same
 * on every synth.
 */
import { createHash } from 'node:crypto';

export const ALARM_NAME_MAX_CHARS = 255;
const DIGEST_CHARS = 12;

/** `<prefix>-<name>`, without control characters, cut to 255 characters with a digest. */
export function alarmName(prefix: string, name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  const whole = `${prefix}-${name}`.replace(/[\u0000-\u001f\u007f]/g, '-');
  const characters = Array.from(whole);
  if (characters.length <= ALARM_NAME_MAX_CHARS) return whole;
  const digest = createHash('sha256').update(whole, 'utf8').digest('hex').slice(0, DIGEST_CHARS);
  return `${characters.slice(0, ALARM_NAME_MAX_CHARS - DIGEST_CHARS - 1).join('')}-${digest}`;
}
