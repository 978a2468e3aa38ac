/**
 * What each field of the deployment file is, in one short line: the README's compact table. The
 * full meaning is the setting's own (lambda/settings), rendered into docs/CONFIGURATION.md; a field
 * without a line here fails `npm run docs:settings` and test/settings-docs.test.ts.
 */
export const SHORT_LINES: Readonly<Record<string, string>> = {
  'clusters[]': 'the clusters to watch, at least one (or `discover`)',
  'clusters[].name': 'unique; names the cluster in emails, metrics and the schedule',
  'clusters[].auth': 'how to reach it: `eks`, `token` or `kubeconfig` (Deploy, step 3)',
  'clusters[].namespace': 'where the node leases live',
  'clusters[].excludeSelector': 'label selector of nodes never to page about',
  'clusters[].maintenanceWindows': 'recurring windows (cron, UTC) in which nodes do not page',
  'clusters[].accessEntry': "create the EKS access entry for the function's role",
  'clusters[].runbookUrl': "the team's runbook, shown in emails, chat and the JSON document",
  discover: 'also watch the EKS clusters found by region, account and tag',
  gracePeriodSeconds: 'silence that makes a lease `expired`',
  startupGraceSeconds: 'age before a node without a renewed lease alerts',
  reminderIntervalSeconds: 'reminders while a node stays down; 0: none',
  readFailuresBeforePage:
    'checks failing to read in a row (and for the grace period) before the WATCHDOG pages',
  stuckRemovalSeconds:
    'a node being removed (cordoned, deleted, tainted) but silent this long pages',
  storm: 'when one STORM email replaces per-node ones',
  nodeRefreshSeconds: 'how often whole Nodes are listed',
  requestTimeoutSeconds: 'timeout of each request to the API server',
  chatNotifications: 'a topic for Slack or Teams (Amazon Q Developer)',
  machineTopic: 'a topic of JSON documents with message attributes',
  dispatch: 'check the listed clusters through the fleet dispatcher',
  eventBus: 'also put each notification on an EventBridge bus',
  pagerDuty: 'PagerDuty Events API v2, routing key in Secrets Manager',
  opsgenie: 'Opsgenie or Jira Service Management alerts, API key in Secrets Manager',
  incidentIo: 'incident.io alert events, token in Secrets Manager',
  webhook: 'a signed (Standard Webhooks) POST to your URL, key in Secrets Manager',
  alertmanager: 'alerts posted to your Alertmanager (API v2), kept alive while they fire',
  emails: 'addresses subscribed to the topic',
  existingTopicArn: 'publish to this topic instead of creating one',
  alarmEmails: "a second delivery path for the watchdog's own alarms",
  dashboard: "the CloudWatch dashboard ($3.00 a month beyond an account's first three)",
  alarmTopicArn: "your ops topic, for the watchdog's own alarms",
  scheduleMinutes: 'check every N minutes',
  logRetentionDays: "the function's log group",
  reservedConcurrency: "a cap on the function's concurrency",
  memoryMb: "the function's memory",
  largestClusterNodes: 'size the memory for this many nodes',
  vpc: 'run in your VPC, for private API endpoints',
  account: 'the AWS account to deploy to',
  region: 'the AWS region to deploy to',
  stackName: 'the CloudFormation stack',
};
