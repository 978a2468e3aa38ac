/**
 * Every setting of the watchdog, declared once: key, type and bounds (the schema), default,
 * meaning, and where it applies (the deployment file, the Lambda, a CLI flag). The deployment-file
 * validation, the Lambda's environment parsing, the CLI's flags, the JSON Schema of the
 * configuration and the README's tables all come from here.
 *
 * Declaration order is the order of the README's tables.
 */
import { z } from 'zod';
import { clusterList, clusterSchema, deployedClusters } from './clusters.js';
import { DEFAULTS } from './defaults.js';
import { shown } from './errors.js';
import { flag, fraction, idList, strictObject, text, wholeNumber } from './fields.js';
import { LOG_RETENTION_DAYS, PATTERNS } from './patterns.js';
import { setting } from './registry.js';

/** The longest a fast-mode invocation may spend between its first and last check (Lambda's limit is 900 s). */
export const MAX_FAST_MODE_SPAN_SECONDS = 840;

const DAY = 86_400;

// --- Options of the command line only ---------------------------------------------------------

const OUTPUT_FORMATS = ['table', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const output = setting({
  key: '--output',
  places: ['cli'],
  shownDefault: '`table`',
  defaultValue: 'table',
  meaning:
    '`json` is one object: `{ cluster, checkedAt, serverTime, nodes: [{ name, verdict, renewTime, leaseDurationSeconds, silentForSeconds, reason, zone, instance }], summary: { <verdict>: count } }` (and `degraded` when Nodes could not be read)',
  cli: { flag: 'output', short: 'o', value: 'table|json', help: 'output format' },
  schema: z.enum(OUTPUT_FORMATS, {
    error: (issue) => `must be table or json (got ${shown(issue.input)})`,
  }),
});

export const interval = setting({
  key: '--interval',
  places: ['cli'],
  defaultValue: DEFAULTS.intervalSeconds,
  meaning: '`watch`: seconds between checks',
  cli: { flag: 'interval', value: 'S', commands: ['watch'], help: 'seconds between checks' },
  schema: z
    .number({
      error: (issue) => `must be a positive number of seconds (got ${shown(issue.input)})`,
    })
    .positive({
      error: (issue) => `must be a positive number of seconds (got ${shown(issue.input)})`,
    })
    .max(DAY, { error: (issue) => `must be at most ${DAY} seconds (got ${shown(issue.input)})` }),
});

export const checks = setting({
  key: '--checks',
  places: ['cli'],
  shownDefault: 'forever',
  meaning: '`watch`: stop after N checks',
  cli: {
    flag: 'checks',
    value: 'N',
    commands: ['watch'],
    help: 'stop after N checks (default: run until interrupted)',
  },
  schema: wholeNumber(1, 1_000_000_000),
});

export const stateFile = setting({
  key: '--state-file',
  places: ['cli'],
  shownDefault: 'in memory',
  meaning: '`watch`: keep observations and incidents in a JSON file across runs',
  cli: {
    flag: 'state-file',
    value: 'PATH',
    commands: ['watch'],
    help: 'keep observations and incidents in this JSON file across runs',
  },
  schema: text({ hint: 'a file path' }),
});

export const insecureSkipTlsVerify = setting({
  key: '--insecure-skip-tls-verify',
  places: ['cli'],
  shownDefault: 'off',
  defaultValue: false,
  meaning:
    "do not verify the API server's certificate (warns on stderr); without it the command refuses to run while `NODE_TLS_REJECT_UNAUTHORIZED=0` is set",
  cli: {
    flag: 'insecure-skip-tls-verify',
    help: "do not verify the API server's certificate (insecure; warns)",
  },
  schema: flag(),
});

export const verbose = setting({
  key: '--verbose',
  places: ['cli'],
  shownDefault: 'off',
  defaultValue: false,
  meaning:
    "show what a kubeconfig's exec credential plugin writes to stderr (it can echo credentials)",
  cli: { flag: 'verbose', short: 'v', help: "show the exec credential plugin's stderr" },
  schema: flag(),
});

// --- What the function runs with (the deployment file, the Lambda, and some CLI flags) --------

export const gracePeriodSeconds = setting({
  key: 'gracePeriodSeconds',
  places: ['file', 'lambda', 'cli'],
  defaultValue: DEFAULTS.gracePeriodSeconds,
  meaning: 'silence that makes a lease `expired`',
  cli: { flag: 'grace-period', value: 'S', help: 'silence that makes a lease expired, seconds' },
  schema: wholeNumber(1, DAY),
});

export const startupGraceSeconds = setting({
  key: 'startupGraceSeconds',
  places: ['file', 'lambda', 'cli'],
  defaultValue: DEFAULTS.startupGraceSeconds,
  meaning: 'age before a node without a renewed lease alerts',
  cli: {
    flag: 'startup-grace',
    value: 'S',
    meaning: 'how old a node without a renewed lease must be before it alerts',
  },
  schema: wholeNumber(0, DAY),
});

export const reminderIntervalSeconds = setting({
  key: 'reminderIntervalSeconds',
  places: ['file', 'lambda', 'cli'],
  defaultValue: DEFAULTS.reminderIntervalSeconds,
  meaning: 'reminders while a node stays down; 0 turns them off',
  cli: {
    flag: 'reminder-interval',
    value: 'S',
    commands: ['watch'],
    help: 're-notify open incidents every S seconds (0 = off)',
    meaning: '`watch`: re-notify open incidents this often; 0 turns reminders off',
    // The demo's compressed timings remind every 36 s.
    schema: wholeNumber(0, 7 * DAY, '0 turns reminders off'),
  },
  schema: wholeNumber(0, 7 * DAY, '0 turns reminders off').refine(
    (seconds) => seconds === 0 || seconds >= 60,
    { error: (issue) => `must be 0 (no reminders) or at least 60 (got ${shown(issue.input)})` },
  ),
});

export const readFailuresBeforePage = setting({
  key: 'readFailuresBeforePage',
  places: ['file', 'lambda'],
  shownDefault: String(DEFAULTS.readFailuresBeforePage),
  defaultValue: DEFAULTS.readFailuresBeforePage,
  meaning:
    'page the WATCHDOG when reads of a cluster have failed on this many checks in a row (every failure counts in `ClusterReadFailures` from the first); 1 pages the first failed read',
  schema: wholeNumber(1, 60),
});

export const storm = setting({
  key: 'storm',
  places: ['file', 'lambda'],
  shownDefault: '`0.55, 3, 0.55, 3`',
  meaning:
    '`zoneFraction`, `zoneMinNodes`, `clusterFraction`, `clusterMinNodes`: when one STORM email replaces per-node ones',
  schema: strictObject(
    {
      zoneFraction: fraction().default(DEFAULTS.storm.zoneFraction),
      zoneMinNodes: wholeNumber(1, 100_000).default(DEFAULTS.storm.zoneMinNodes),
      clusterFraction: fraction().default(DEFAULTS.storm.clusterFraction),
      clusterMinNodes: wholeNumber(1, 100_000).default(DEFAULTS.storm.clusterMinNodes),
    },
    'storm thresholds',
  ),
});

export const fastMode = setting({
  key: 'fastMode',
  places: ['file', 'lambda'],
  shownDefault: '`{"checksPerInvocation":1,"intervalSeconds":10}`',
  meaning:
    '`{"checksPerInvocation":6,"intervalSeconds":10}` runs six checks 10 s apart in each 1-minute invocation, so detection is bounded by the grace period, not the schedule: a dead node is reported 50-60 s after its last renewal instead of 60-120 s ([measured](docs/BENCHMARKS.md))',
  schema: strictObject(
    {
      checksPerInvocation: wholeNumber(1, 60).default(DEFAULTS.fastMode.checksPerInvocation),
      intervalSeconds: wholeNumber(1, 300).default(DEFAULTS.fastMode.intervalSeconds),
    },
    'fast mode',
  ),
});

export const nodeRefreshSeconds = setting({
  key: 'nodeRefreshSeconds',
  places: ['file', 'lambda', 'cli'],
  defaultValue: DEFAULTS.nodeRefreshSeconds,
  meaning:
    'for very large clusters: list whole Nodes (~13× the bytes of Leases) at most this often, and in between re-read only the nodes whose leases look silent (one GET each), so a 100,000-node check costs about the lease list. Silent nodes are always judged on fresh Node facts; `not-ready` and a newly cordoned healthy node are noticed up to one refresh late',
  cli: {
    flag: 'node-refresh',
    value: 'S',
    commands: ['watch'],
    help: 'list whole Nodes at most every S seconds (0: on every check)',
    meaning: '`watch`: list whole Nodes at most every S seconds (see `nodeRefreshSeconds` below)',
  },
  schema: wholeNumber(0, 3_600, '0 lists whole Nodes on every check'),
});

export const requestTimeoutSeconds = setting({
  key: 'requestTimeoutSeconds',
  places: ['file', 'lambda', 'cli'],
  defaultValue: DEFAULTS.requestTimeoutSeconds,
  meaning: 'timeout of each request to the Kubernetes API server',
  cli: {
    flag: 'timeout',
    aliases: ['request-timeout'],
    value: 'S',
    help: 'timeout of each API request (also --request-timeout)',
  },
  schema: wholeNumber(1, 300),
});

/** What the function receives: the clusters and how to judge them. */
export const watchdogSettingsShape = {
  clusters: clusterList(clusterSchema),
  gracePeriodSeconds: gracePeriodSeconds.default(DEFAULTS.gracePeriodSeconds),
  startupGraceSeconds: startupGraceSeconds.default(DEFAULTS.startupGraceSeconds),
  reminderIntervalSeconds: reminderIntervalSeconds.default(DEFAULTS.reminderIntervalSeconds),
  readFailuresBeforePage: readFailuresBeforePage.default(DEFAULTS.readFailuresBeforePage),
  storm: storm.prefault({}),
  fastMode: fastMode.prefault({}),
  nodeRefreshSeconds: nodeRefreshSeconds.default(DEFAULTS.nodeRefreshSeconds),
  requestTimeoutSeconds: requestTimeoutSeconds.default(DEFAULTS.requestTimeoutSeconds),
};

// --- What only the stack needs (the deployment file) -------------------------------------------

const emails = setting({
  key: 'emails',
  places: ['file'],
  shownDefault: 'required unless `existingTopicArn`',
  meaning: 'addresses subscribed to the topic',
  schema: z.array(
    z
      .string({
        error: (issue) =>
          `must be an email address like oncall@example.com (got ${shown(issue.input)})`,
      })
      .max(254, {
        error: (issue) =>
          `must be an email address like oncall@example.com (got ${shown(issue.input)})`,
      })
      .regex(PATTERNS.EMAIL, {
        error: (issue) =>
          `must be an email address like oncall@example.com (got ${shown(issue.input)})`,
      }),
    {
      error: (issue) =>
        `must be a list of email addresses, e.g. ["oncall@example.com"] (got ${shown(issue.input)})`,
    },
  ),
});

const topicArnProblem = (value: string) =>
  `must be an SNS topic ARN like arn:aws:sns:eu-west-1:123456789012:alerts (got ${shown(value)})`;

/** An SNS topic ARN, standard or FIFO (the CLI's --sns-topic-arn and the Lambda's TOPIC_ARN too). */
export function topicArn(hint: string) {
  return text({ hint, pattern: PATTERNS.TOPIC_ARN, invalid: topicArnProblem });
}

export const snsTopicArn = setting({
  key: '--sns-topic-arn',
  places: ['cli'],
  shownDefault: 'print to the terminal',
  meaning:
    '`watch`: publish notifications to SNS (credentials from the default AWS chain; `AWS_ENDPOINT_URL_SNS` is respected)',
  cli: {
    flag: 'sns-topic-arn',
    value: 'ARN',
    commands: ['watch'],
    help: 'publish notifications to this SNS topic (default AWS credentials)',
  },
  schema: topicArn('an SNS topic ARN'),
});

const existingTopicArn = setting({
  key: 'existingTopicArn',
  places: ['file'],
  shownDefault: 'none',
  meaning: 'publish to this topic (standard or FIFO) instead of creating one',
  schema: topicArn('an SNS topic ARN'),
});

const alarmEmails = setting({
  key: 'alarmEmails',
  places: ['file'],
  shownDefault: 'none',
  meaning:
    "a second delivery path for the watchdog's own alarms: addresses subscribed to a separate alarm topic (its own KMS key), so that one unsubscribe link cannot end all alerting",
  schema: emails,
});

const alarmTopicArn = setting({
  key: 'alarmTopicArn',
  places: ['file'],
  shownDefault: 'none',
  meaning:
    "a second delivery path for the watchdog's own alarms: an existing standard ops topic (its policy must let CloudWatch alarms of this account publish)",
  schema: topicArn('an SNS topic ARN').refine((arn) => !arn.endsWith('.fifo'), {
    error: (issue) =>
      `must be a standard topic: CloudWatch alarms cannot publish to a FIFO topic (got ${shown(issue.input)})`,
  }),
});

const scheduleError = (issue: { input?: unknown }) =>
  typeof issue.input === 'number' && Number.isInteger(issue.input) && issue.input > 60
    ? `must be at most 60 (got ${issue.input}): check each cluster at least hourly`
    : `must be a whole number ≥ 1; for sub-minute detection use fastMode (got ${shown(issue.input)})`;

const scheduleMinutes = setting({
  key: 'scheduleMinutes',
  places: ['file'],
  shownDefault: String(DEFAULTS.scheduleMinutes),
  meaning: 'check every N minutes (whole minutes, 1-60; for sub-minute detection use `fastMode`)',
  schema: z
    .int({ error: scheduleError })
    .min(1, { error: scheduleError })
    .max(60, { error: scheduleError })
    .default(DEFAULTS.scheduleMinutes),
});

const logRetentionDays = setting({
  key: 'logRetentionDays',
  places: ['file'],
  shownDefault: String(DEFAULTS.logRetentionDays),
  meaning: "the function's log group",
  schema: z
    .union(
      LOG_RETENTION_DAYS.map((days) => z.literal(days)),
      {
        error: (issue) =>
          `must be one of ${LOG_RETENTION_DAYS.join(', ')} (got ${shown(issue.input)})`,
      },
    )
    .default(DEFAULTS.logRetentionDays),
});

const reservedConcurrency = setting({
  key: 'reservedConcurrency',
  places: ['file'],
  shownDefault: 'clusters × 2 + 1',
  meaning: "a cap, so a runaway cannot eat the account's concurrency",
  schema: wholeNumber(1, 1000, 'the default is clusters × 2 + 1'),
});

const memoryMb = setting({
  key: 'memoryMb',
  places: ['file'],
  shownDefault: String(DEFAULTS.memoryMb),
  meaning:
    "the function's memory: 512 MB has room for ~20,000 nodes; give a 100,000-node cluster ~1,024 MB ([measured](docs/BENCHMARKS.md))",
  schema: wholeNumber(
    256,
    10_240,
    'Lambda allows 128-10240 MB; the watchdog needs ~512 MB for 20,000 nodes, ~1,024 MB for 100,000',
  ).default(DEFAULTS.memoryMb),
});

const vpcIdError = (issue: { input?: unknown }) =>
  `must be a VPC id like vpc-0123456789abcdef0 (got ${shown(issue.input)})`;

const vpc = setting({
  key: 'vpc',
  places: ['file'],
  shownDefault: 'none',
  meaning:
    '`{"vpcId","subnetIds":[],"securityGroupIds"?:[]}` for private API endpoints (the subnets need a path to SNS, DynamoDB, Secrets Manager, EKS and STS)',
  schema: strictObject(
    {
      vpcId: z.string({ error: vpcIdError }).regex(PATTERNS.VPC_ID, { error: vpcIdError }),
      subnetIds: idList(PATTERNS.SUBNET_ID, 'subnet-0123456789abcdef0'),
      securityGroupIds: idList(PATTERNS.SECURITY_GROUP_ID, 'sg-0123456789abcdef0').optional(),
    },
    '{"vpcId": "vpc-...", "subnetIds": ["subnet-..."]}',
  ),
});

/** What the `LeaseWatchdog` construct receives. */
export const deploymentShape = {
  ...watchdogSettingsShape,
  clusters: deployedClusters,
  emails: emails.optional(),
  existingTopicArn: existingTopicArn.optional(),
  alarmEmails: alarmEmails.optional(),
  alarmTopicArn: alarmTopicArn.optional(),
  scheduleMinutes,
  logRetentionDays,
  reservedConcurrency: reservedConcurrency.optional(),
  memoryMb,
  vpc: vpc.optional(),
};

const account = setting({
  key: 'account',
  places: ['file'],
  shownDefault: '`CDK_DEPLOY_ACCOUNT`',
  meaning: 'the 12-digit AWS account; without account and region the stack is environment-agnostic',
  schema: text({
    hint: 'a 12-digit AWS account id',
    pattern: PATTERNS.ACCOUNT,
    invalid: (value) => `must be a 12-digit AWS account id (got ${shown(value)})`,
  }),
});

const region = setting({
  key: 'region',
  places: ['file'],
  shownDefault: '`CDK_DEPLOY_REGION`',
  meaning: 'the AWS region to deploy to',
  schema: text({
    hint: 'an AWS region',
    pattern: PATTERNS.REGION,
    invalid: (value) => `must be an AWS region like eu-west-1 (got ${shown(value)})`,
  }),
});

const stackName = setting({
  key: 'stackName',
  places: ['file'],
  shownDefault: `\`${DEFAULTS.stackName}\``,
  meaning: 'the CloudFormation stack',
  schema: text({
    hint: 'the CloudFormation stack name',
    pattern: PATTERNS.STACK_NAME,
    invalid: (value) =>
      `must start with a letter and hold only letters, digits and '-' (got ${shown(value)})`,
  }).default(DEFAULTS.stackName),
});

/** A whole deployment file: the construct's configuration plus where the stack goes. */
export const appShape = {
  /** The JSON Schema an editor validates the file with (infra/config.schema.json). */
  $schema: z.string().optional().meta({ description: 'the JSON Schema this file follows' }),
  ...deploymentShape,
  account: account.optional(),
  region: region.optional(),
  stackName,
};

/** Validates an account or region taken from the environment with the file's own rules. */
export const environmentFallbacks = { account, region };
