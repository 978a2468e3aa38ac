/**
 * The settings only the stack needs (the deployment file): who is notified, how often the
 * schedule runs, the function's size and place, and where the stack goes. Declared after the
 * function's settings (catalogue.ts), so the README's table lists them after those.
 */
import * as z from 'zod';
import { watchdogSettingsShape } from './catalogue.js';
import { deployedClusters } from './clusters.js';
import { DEFAULTS } from './defaults.js';
import { shown } from './errors.js';
import { topicArnRules } from './field-checks.js';
import {
  awsRegion,
  flag,
  idList,
  knownAtSynth,
  strictObject,
  text,
  wholeNumber,
} from './fields.js';
import { LOG_RETENTION_DAYS, PATTERNS } from './patterns.js';
import { type SettingDeclaration, setting } from './registry.js';

/** A setting of the deployment file only: the stack's, not the function's; `none` when not set. */
function stackSetting<S extends z.ZodType>(declaration: SettingDeclaration<S>): S {
  return setting({ shownDefault: 'none', ...declaration, places: ['file'] });
}

const emailError = (issue: { input?: unknown }) =>
  `must be an email address like oncall@example.com (got ${shown(issue.input)})`;

const emails = stackSetting({
  key: 'emails',
  shownDefault: 'required unless `existingTopicArn`',
  meaning: 'addresses subscribed to the topic',
  schema: z.array(
    z
      .string({ error: emailError })
      .max(254, { error: emailError })
      .regex(PATTERNS.EMAIL, { error: emailError, ...knownAtSynth }),
    {
      error: (issue) =>
        `must be a list of email addresses, e.g. ["oncall@example.com"] (got ${shown(issue.input)})`,
    },
  ),
});

const existingTopicArn = stackSetting({
  key: 'existingTopicArn',
  meaning: 'publish to this topic (standard or FIFO) instead of creating one',
  schema: text(topicArnRules('an SNS topic ARN')),
});

const alarmEmails = stackSetting({
  key: 'alarmEmails',
  meaning:
    "a second delivery path for the watchdog's own alarms: addresses subscribed to a separate alarm topic (its own KMS key), so that one unsubscribe link cannot end all alerting",
  schema: emails,
});

const dashboard = stackSetting({
  key: 'dashboard',
  shownDefault: 'off',
  meaning:
    "`true`: also make the CloudWatch dashboard (every cluster's checks, nodes, notifications and dead-man's switch, and the alarms), $3.00 a month beyond an account's first three ([docs/COST.md](docs/COST.md)); the alarms and metrics are there either way",
  schema: flag(),
});

const alarmTopicArn = stackSetting({
  key: 'alarmTopicArn',
  meaning:
    "a second delivery path for the watchdog's own alarms: an existing standard ops topic (its policy must let CloudWatch alarms of this account publish)",
  schema: text(topicArnRules('an SNS topic ARN')).refine((arn) => !arn.endsWith('.fifo'), {
    error: (issue) =>
      `must be a standard topic: CloudWatch alarms cannot publish to a FIFO topic (got ${shown(issue.input)})`,
  }),
});

const scheduleError = (issue: { input?: unknown }) =>
  typeof issue.input === 'number' && Number.isInteger(issue.input) && issue.input > 60
    ? `must be at most 60 (got ${issue.input}): check each cluster at least hourly`
    : `must be a whole number ≥ 1 (got ${shown(issue.input)}); the looks queue checks between scheduled runs`;

const scheduleMinutes = stackSetting({
  key: 'scheduleMinutes',
  shownDefault: String(DEFAULTS.scheduleMinutes),
  meaning: 'check every N minutes (whole minutes, 1-60; the looks queue checks in between)',
  schema: z
    .int({ error: scheduleError })
    .min(1, { error: scheduleError })
    .max(60, { error: scheduleError })
    .default(DEFAULTS.scheduleMinutes),
});

const logRetentionDays = stackSetting({
  key: 'logRetentionDays',
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

const reservedConcurrency = stackSetting({
  key: 'reservedConcurrency',
  shownDefault: `clusters × 2 + 1, at most ${DEFAULTS.reservedConcurrencyCap}; ${DEFAULTS.reservedConcurrencyCap} with \`dispatch\` or \`discover\``,
  meaning:
    "a cap, so a runaway cannot eat the account's concurrency (1,000 by default, of which Lambda keeps 100 unreserved: at most 900)",
  schema: wholeNumber({
    min: 1,
    max: 900,
    hint: `an account has 1,000 concurrent executions by default and Lambda keeps 100 unreserved; the default is clusters × 2 + 1, at most ${DEFAULTS.reservedConcurrencyCap}`,
  }),
});

const memoryMb = stackSetting({
  key: 'memoryMb',
  shownDefault: `${DEFAULTS.memoryMb}, or sized from \`largestClusterNodes\``,
  meaning:
    "the function's memory: 512 MB has room for ~100,000 nodes ([measured](docs/BENCHMARKS.md)); give a larger cluster more, or set `largestClusterNodes` instead",
  schema: wholeNumber({
    min: 256,
    max: 10_240,
    hint: 'Lambda allows 128-10240 MB; the watchdog needs ~512 MB for 100,000 nodes',
  }),
});

const largestClusterNodes = stackSetting({
  key: 'largestClusterNodes',
  meaning:
    "the node count of the largest cluster (give room to grow): unless `memoryMb` is set, the function's memory is sized from it, twice the function's measured peak (~130 MB + 1.25 MB per 1,000 nodes, `npm run bench:function`) in 128 MB steps, at least 512 MB: 512 MB for 100,000, 640 MB for 150,000",
  schema: wholeNumber({
    min: 1,
    max: 1_000_000,
    hint: "the node count of the largest cluster, e.g. 100000; the function's memory is sized from it",
  }),
});

const vpcIdError = (issue: { input?: unknown }) =>
  `must be a VPC id like vpc-0123456789abcdef0 (got ${shown(issue.input)})`;

const vpc = stackSetting({
  key: 'vpc',
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
  dashboard: dashboard.optional(),
  scheduleMinutes,
  logRetentionDays,
  reservedConcurrency: reservedConcurrency.optional(),
  memoryMb: memoryMb.optional(),
  largestClusterNodes: largestClusterNodes.optional(),
  vpc: vpc.optional(),
};

const account = stackSetting({
  key: 'account',
  shownDefault: '`CDK_DEPLOY_ACCOUNT`',
  meaning: 'the 12-digit AWS account; without account and region the stack is environment-agnostic',
  schema: text({
    hint: 'a 12-digit AWS account id',
    pattern: PATTERNS.ACCOUNT,
    invalid: (value) => `must be a 12-digit AWS account id (got ${shown(value)})`,
  }),
});

const region = stackSetting({
  key: 'region',
  shownDefault: '`CDK_DEPLOY_REGION`',
  meaning: 'the AWS region to deploy to',
  schema: awsRegion(),
});

const stackName = stackSetting({
  key: 'stackName',
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
