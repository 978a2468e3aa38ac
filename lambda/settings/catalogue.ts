/**
 * Every setting of the watchdog, declared once: key, type and bounds (the schema), default,
 * meaning, and where it applies (the deployment file, the Lambda, a CLI flag). The deployment-file
 * validation, the Lambda's environment parsing, the CLI's flags, the JSON Schema of the
 * configuration and the README's tables all come from here.
 *
 * Declaration order is the order of the README's tables.
 */
import * as z from 'zod';
import { CLI_FLAGS, DAY } from './cli-flags.js';
import { clusterList, clusterSchema, httpsUrlProblem, secretId } from './clusters.js';
import { DEFAULTS } from './defaults.js';
import { discover } from './discovery.js';
import { shown } from './errors.js';
import { cliOption, flag, fraction, strictObject, text, wholeNumber } from './fields.js';
import { PATTERNS } from './patterns.js';
import { setting } from './registry.js';

// --- Options of the command line only (cli-flags.ts says what they mean) ---------------------

cliOption(CLI_FLAGS.selector);
cliOption(CLI_FLAGS.output);
cliOption(CLI_FLAGS.noHeaders);
cliOption(CLI_FLAGS.intervalSeconds);
cliOption(CLI_FLAGS.checks);
cliOption(CLI_FLAGS.stateFile);
cliOption(CLI_FLAGS.snsTopicArn);
cliOption(CLI_FLAGS.insecureSkipTlsVerify);
cliOption(CLI_FLAGS.verbose);

// --- What the function runs with (the deployment file, the Lambda, and some CLI flags) --------

export const gracePeriodSeconds = setting({
  key: 'gracePeriodSeconds',
  meaning: 'silence that makes a lease `expired`',
  cli: CLI_FLAGS.gracePeriodSeconds,
  schema: wholeNumber(CLI_FLAGS.gracePeriodSeconds.rule.whole),
});

export const startupGraceSeconds = setting({
  key: 'startupGraceSeconds',
  meaning: 'age before a node without a renewed lease alerts',
  cli: CLI_FLAGS.startupGraceSeconds,
  schema: wholeNumber(CLI_FLAGS.startupGraceSeconds.rule.whole),
});

export const reminderIntervalSeconds = setting({
  key: 'reminderIntervalSeconds',
  meaning: 'reminders while a node stays down; 0 turns them off',
  cli: CLI_FLAGS.reminderIntervalSeconds,
  // The flag also takes 1-59 (the demo's compressed timings remind every 36 s).
  schema: wholeNumber(CLI_FLAGS.reminderIntervalSeconds.rule.whole).refine(
    (seconds) => seconds === 0 || seconds >= 60,
    { error: (issue) => `must be 0 (no reminders) or at least 60 (got ${shown(issue.input)})` },
  ),
});

export const readFailuresBeforePage = setting({
  key: 'readFailuresBeforePage',
  defaultValue: DEFAULTS.readFailuresBeforePage,
  meaning:
    'page the WATCHDOG when reads of a cluster have failed on at least this many checks in a row and for `gracePeriodSeconds` (50 s) or longer since the first of them, however often the watchdog looks (every failure counts in `ClusterReadFailures` from the first); 1 leaves the time alone to decide',
  schema: wholeNumber({ min: 1, max: 60 }),
});

export const stuckRemovalSeconds = setting({
  key: 'stuckRemovalSeconds',
  shownDefault: `${DEFAULTS.stuckRemovalSeconds} (30 min)`,
  defaultValue: DEFAULTS.stuckRemovalSeconds,
  meaning:
    "a cordoned, being-deleted or autoscaler/Karpenter-tainted node that is also silent (`expired` or `missing-lease` but for that) this long, on the watchdog's clock, pages: its removal seems stuck. Drains happen while the kubelet still renews; the silence of a normal removal or reboot lasts minutes. The `excludeSelector` is never timed out",
  schema: wholeNumber({ min: 300, max: 7 * DAY }),
});

export const storm = setting({
  key: 'storm',
  shownDefault: '`0.55, 3, 0.55, 3`',
  meaning:
    '`zoneFraction`, `zoneMinNodes`, `clusterFraction`, `clusterMinNodes`: when one STORM email replaces per-node ones',
  schema: strictObject(
    {
      zoneFraction: fraction().default(DEFAULTS.storm.zoneFraction),
      zoneMinNodes: wholeNumber({ min: 1, max: 100_000 }).default(DEFAULTS.storm.zoneMinNodes),
      clusterFraction: fraction().default(DEFAULTS.storm.clusterFraction),
      clusterMinNodes: wholeNumber({ min: 1, max: 100_000 }).default(
        DEFAULTS.storm.clusterMinNodes,
      ),
    },
    'storm thresholds',
  ),
});

export const nodeRefreshSeconds = setting({
  key: 'nodeRefreshSeconds',
  meaning:
    'list whole Nodes at most this often (and after a cold start); in between, each check lists the server-side Table of Nodes (Ready and cordon per node) and reads afresh, one GET each, only the nodes that may page or changed (silent, not Ready, new, gone, cordoned): [the bytes each reads](docs/BENCHMARKS.md). `not-ready` is noticed at the next check and a node that may page is judged on fresh Node facts; only labels and taints of healthy nodes can be up to one period old. 0 lists whole Nodes on every check',
  cli: CLI_FLAGS.nodeRefreshSeconds,
  schema: wholeNumber(CLI_FLAGS.nodeRefreshSeconds.rule.whole),
});

export const requestTimeoutSeconds = setting({
  key: 'requestTimeoutSeconds',
  meaning: 'timeout of each request to the Kubernetes API server',
  cli: CLI_FLAGS.timeoutSeconds,
  schema: wholeNumber(CLI_FLAGS.timeoutSeconds.rule.whole),
});

/** An https URL for a chat message: no spaces or characters chat markdown would read as markup. */
const CHAT_LINK = /^https:\/\/[^\s<>"'`|\\]{1,500}$/;

export const chatNotifications = setting({
  key: 'chatNotifications',
  meaning:
    '`{}` or `{"link":"https://..."}`: also publish each notification as an Amazon Q Developer in chat applications (AWS Chatbot) custom notification to a topic of its own (output `ChatTopicArn`) for a Slack or Microsoft Teams channel, with the kubectl next steps and the link; see [docs/NOTIFICATIONS.md](docs/NOTIFICATIONS.md)',
  schema: strictObject(
    {
      link: text({
        hint: 'an https URL shown in chat messages (a runbook, a dashboard)',
        pattern: CHAT_LINK,
        invalid: (value) =>
          `must be an https URL of at most 500 characters without spaces, quotes, <, >, | or backticks (got ${shown(value)})`,
      }).optional(),
    },
    'chat notifications: {} or {"link": "https://..."}',
  ),
});

export const machineTopic = setting({
  key: 'machineTopic',
  meaning:
    '`true`: also publish each notification to a topic of its own (output `MachineTopicArn`) as the JSON document, String structure, with the message attributes `cluster`, `kind`, `severity`, `zones` and `nodeGroups`, for subscription filter policies (SNS delivers attributes only with a String-structure publish); see [docs/NOTIFICATIONS.md](docs/NOTIFICATIONS.md)',
  schema: flag(),
});

export const dispatch = setting({
  key: 'dispatch',
  meaning:
    "`true`: check the listed clusters through the fleet's dispatcher (one schedule for all, one queue, one fleet-wide dead-man's switch) instead of one schedule and one dead-man's switch each; clusters found by discovery always are; for hundreds of clusters, see [docs/FLEET.md](docs/FLEET.md)",
  schema: flag(),
});

export const eventBus = setting({
  key: 'eventBus',
  meaning:
    'an EventBridge event bus name (`default`) or ARN: also put each notification, once the topic accepted it, as one event (source `lease-watchdog`, detail-type `Lease Watchdog Notification`, detail the JSON document) for rules that route to PagerDuty, Opsgenie or an API destination; failures count in `NotificationEventsFailed`; see [docs/NOTIFICATIONS.md](docs/NOTIFICATIONS.md)',
  schema: text({
    hint: 'the EventBridge event bus name or ARN',
    check: (value) =>
      (value.startsWith('arn:') ? PATTERNS.EVENT_BUS_ARN : PATTERNS.EVENT_BUS_NAME).test(value)
        ? undefined
        : `must be an EventBridge event bus name like default or an ARN like arn:aws:events:eu-west-1:123456789012:event-bus/alerts (got ${shown(value)})`,
  }),
});

/** A paging tool's key stays in Secrets Manager: the setting names the secret, never the key. */
export const pagerDuty = setting({
  key: 'pagerDuty',
  meaning:
    '`{"routingKeySecret":"<secret name or ARN>"}`: also send PagerDuty Events API v2 events (trigger when an incident opens, resolve when it ends, the incident key as `dedup_key`) beside the topic, never held back by it; the secret holds the routing key of an Events API v2 integration and the stack grants reading exactly it; failures are retried by the next checks for 30 minutes (a malformed event is given up at once) and count in `OnCallEventsFailed`; see [docs/NOTIFICATIONS.md](docs/NOTIFICATIONS.md)',
  schema: strictObject(
    { routingKeySecret: secretId() },
    'PagerDuty: {"routingKeySecret": "<secret name or ARN>"}',
  ),
});

export const opsgenie = setting({
  key: 'opsgenie',
  meaning:
    '`{"apiKeySecret":"<secret name or ARN>","region":"eu"}` (`region` optional: `us`, `eu` or `jsm`): also create an Opsgenie alert when an incident opens and close it when it ends (Alert API, the incident key as `alias`) beside the topic, never held back by it; the secret holds the API key of an Opsgenie API integration, the stack grants reading exactly it; `eu` for accounts on api.eu.opsgenie.com (default `us`, api.opsgenie.com), `jsm` for Jira Service Management (api.atlassian.com, the same alerts: Opsgenie support ends on 5 April 2027); failures are retried by the next checks for 30 minutes (a malformed event is given up at once) and count in `OnCallEventsFailed`; see [docs/NOTIFICATIONS.md](docs/NOTIFICATIONS.md)',
  schema: strictObject(
    {
      apiKeySecret: secretId(),
      // Opsgenie's API hosts (Alert API: "If using the EU instance ... https://api.eu.opsgenie.com"),
      // and Jira Service Management's integration API, which takes the same calls.
      region: z
        .enum(['us', 'eu', 'jsm'], {
          error: (issue) =>
            `must be "us" (api.opsgenie.com), "eu" (api.eu.opsgenie.com) or "jsm" (Jira Service Management), got ${shown(issue.input)}`,
        })
        .default('us'),
    },
    'Opsgenie: {"apiKeySecret": "<secret name or ARN>", "region": "us" | "eu" | "jsm"}',
  ),
});

export const incidentIo = setting({
  key: 'incidentIo',
  meaning:
    '`{"alertSourceId":"<alert source config id>","tokenSecret":"<secret name or ARN>"}`: also send incident.io alert events to an HTTP alert source (`status` `firing` when an incident opens, `resolved` when it ends, the incident key as `deduplication_key`) beside the topic, never held back by it; the secret holds the alert source\'s token, the stack grants reading exactly it; retried as `pagerDuty` is, failures count in `OnCallEventsFailed`; see [docs/NOTIFICATIONS.md](docs/NOTIFICATIONS.md)',
  schema: strictObject(
    {
      alertSourceId: text({
        hint: 'the alert source config id, the last part of its HTTP URL',
        pattern: /^[A-Za-z0-9]{1,64}$/,
        invalid: (value) =>
          `must be letters and digits, like 01GW2G3V0S59R238FAHPDS1R66 (got ${shown(value)})`,
      }),
      tokenSecret: secretId(),
    },
    'incident.io: {"alertSourceId": "<alert source config id>", "tokenSecret": "<secret name or ARN>"}',
  ),
});

export const webhook = setting({
  key: 'webhook',
  meaning:
    '`{"url":"https://...","signingKeySecret":"<secret name or ARN>"}`: also POST each incident\'s opening and end as a JSON document (`data.incidentKey`, `data.state` `firing` or `resolved`) to the URL, signed as Standard Webhooks sign (`webhook-id`, `webhook-timestamp`, `webhook-signature` HMAC-SHA256 with the key in the secret), beside the topic, never held back by it; retried as `pagerDuty` is, failures count in `OnCallEventsFailed`; see [docs/NOTIFICATIONS.md](docs/NOTIFICATIONS.md)',
  schema: strictObject(
    {
      url: text({ hint: 'the https:// URL to POST to', check: httpsUrlProblem('the webhook') }),
      signingKeySecret: secretId(),
    },
    'webhook: {"url": "https://...", "signingKeySecret": "<secret name or ARN>"}',
  ),
});

export const alertmanager = setting({
  key: 'alertmanager',
  meaning:
    '`{"url":"https://am.example:9093","authSecret":"<secret name or ARN>"}` (`endsAfterMinutes` optional, 2-1440, default 10): also post each incident as an alert to an Alertmanager (API v2, labels `alertname`, `cluster`, `node`, `zone`, `nodegroup`, `severity`) beside the topic, never held back by it, so that its routes, grouping, inhibitions and receivers take it; a firing alert is posted again at every check with `endsAt` `endsAfterMinutes` ahead (keep it above 2 × `scheduleMinutes`: Alertmanager resolves an alert not posted again by then, as when the watchdog stops), a resolved one with `endsAt` the check that saw the end; the secret holds `user:password` (sent as basic auth) or a bearer token, and the stack grants reading exactly it; failures are retried by the next checks for 30 minutes (a malformed alert is given up at once) and count in `OnCallEventsFailed`; see [docs/NOTIFICATIONS.md](docs/NOTIFICATIONS.md)',
  schema: strictObject(
    {
      // https, and no user or password in it: they would end up in errors and logs.
      url: text({
        hint: 'the https:// URL of the Alertmanager',
        pattern: /^https:\/\/[^/@\s]+(\/\S*)?$/,
        invalid: () =>
          'must be the https:// URL of the Alertmanager without a user or password (keep them in authSecret), e.g. https://alertmanager.example.com:9093',
      }),
      authSecret: secretId(),
      endsAfterMinutes: wholeNumber({ min: 2, max: 1440 }).default(10),
    },
    'Alertmanager: {"url": "https://...", "authSecret": "<secret name or ARN>"}',
  ),
});

/** What the function receives: the clusters and how to judge them. */
export const watchdogSettingsShape = {
  clusters: clusterList(clusterSchema),
  discover: discover.optional(),
  gracePeriodSeconds: gracePeriodSeconds.default(DEFAULTS.gracePeriodSeconds),
  startupGraceSeconds: startupGraceSeconds.default(DEFAULTS.startupGraceSeconds),
  reminderIntervalSeconds: reminderIntervalSeconds.default(DEFAULTS.reminderIntervalSeconds),
  readFailuresBeforePage: readFailuresBeforePage.default(DEFAULTS.readFailuresBeforePage),
  stuckRemovalSeconds: stuckRemovalSeconds.default(DEFAULTS.stuckRemovalSeconds),
  storm: storm.prefault({}),
  dispatch: dispatch.default(false),
  nodeRefreshSeconds: nodeRefreshSeconds.default(DEFAULTS.nodeRefreshSeconds),
  requestTimeoutSeconds: requestTimeoutSeconds.default(DEFAULTS.requestTimeoutSeconds),
  chatNotifications: chatNotifications.optional(),
  machineTopic: machineTopic.optional(),
  eventBus: eventBus.optional(),
  pagerDuty: pagerDuty.optional(),
  opsgenie: opsgenie.optional(),
  incidentIo: incidentIo.optional(),
  webhook: webhook.optional(),
  alertmanager: alertmanager.optional(),
};
