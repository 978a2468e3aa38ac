/**
 * The deployment configuration: the watchdog settings (validated by lambda/config.ts, the same
 * code the function runs at cold start) plus what only the stack needs (emails, topic, schedule,
 * log retention, VPC, access entries, account and region).
 *
 * Pure apart from `loadConfigFile`, which reads the file. Every problem is a ConfigError whose
 * message is one line naming the field and the fix.
 */
import { readFileSync } from 'node:fs';
import {
  type AuthMode,
  type ClusterAuth,
  type ClusterSettings,
  ConfigError,
  deepFreeze,
  expectObject,
  type FastModeSettings,
  fastModeSpanSeconds,
  fieldPath,
  isObject,
  type JsonObject,
  optionalString,
  PATTERNS,
  parseWatchdogSettings,
  rejectUnknownKeys,
  SETTINGS_KEYS,
  type StormSettings,
  shown,
  type WatchdogSettings,
  wholeNumber,
} from '../lambda/config.js';

export { ConfigError };

/** One cluster as written in the configuration. */
export interface ClusterConfig {
  name: string;
  auth: ClusterAuth;
  namespace?: string;
  excludeSelector?: string;
  /**
   * eks only: create an EKS access entry for the function's role with the Kubernetes group
   * `lease-watchdog` (bound by deploy/rbac.yaml). Default true.
   */
  accessEntry?: boolean;
}

export interface VpcPlacement {
  vpcId: string;
  subnetIds: string[];
  /** Default: a new security group that allows all outbound traffic and no inbound. */
  securityGroupIds?: string[];
}

/** What the `LeaseWatchdog` construct accepts (and what the JSON file holds, minus the stack's fields). */
export interface LeaseWatchdogConfig {
  clusters: ClusterConfig[];
  /** Addresses subscribed to the topic by email. Required unless `existingTopicArn` is set. */
  emails?: string[];
  /** Publish to this topic instead of creating one. */
  existingTopicArn?: string;
  /** Minutes between checks of each cluster. Default 1; sub-minute detection is `fastMode`. */
  scheduleMinutes?: number;
  gracePeriodSeconds?: number;
  startupGraceSeconds?: number;
  reminderIntervalSeconds?: number;
  storm?: Partial<StormSettings>;
  fastMode?: Partial<FastModeSettings>;
  /** Days the function's logs are kept. Default 30. */
  logRetentionDays?: number;
  /** Cap on the function's concurrent executions. Default clusters × 2 + 1. */
  reservedConcurrency?: number;
  /** The function's memory, MB. Default 512 (room for ~20,000 nodes; see docs/BENCHMARKS.md). */
  memoryMb?: number;
  vpc?: VpcPlacement;
}

/** The whole configuration file: the construct's configuration plus where the stack goes. */
export interface AppConfig extends LeaseWatchdogConfig {
  /** 12-digit AWS account. Default: env CDK_DEPLOY_ACCOUNT, else an environment-agnostic stack. */
  account?: string;
  /** AWS region. Default: env CDK_DEPLOY_REGION, else an environment-agnostic stack. */
  region?: string;
  /** Default `LeaseWatchdog`. */
  stackName?: string;
}

export interface DeployedCluster extends ClusterSettings {
  /** Whether to create an EKS access entry (always false for kubeconfig and token clusters). */
  accessEntry: boolean;
}

/** The validated configuration, with every default filled in. Frozen. */
export interface DeploymentConfig extends WatchdogSettings {
  clusters: DeployedCluster[];
  emails: string[];
  existingTopicArn?: string;
  scheduleMinutes: number;
  logRetentionDays: number;
  reservedConcurrency: number;
  memoryMb: number;
  vpc?: VpcPlacement;
}

export interface AppDeploymentConfig extends DeploymentConfig {
  account?: string;
  region?: string;
  stackName: string;
}

export const DEFAULT_SCHEDULE_MINUTES = 1;
export const DEFAULT_LOG_RETENTION_DAYS = 30;
export const DEFAULT_STACK_NAME = 'LeaseWatchdog';
/** Lambda allows 4 KB for all environment variables together; keep room for the others. */
export const MAX_SETTINGS_ENV_BYTES = 3_500;
/** The values CloudWatch Logs accepts for retention. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
  3653,
] as const;

const CONSTRUCT_KEYS = [
  ...SETTINGS_KEYS,
  'emails',
  'existingTopicArn',
  'scheduleMinutes',
  'logRetentionDays',
  'reservedConcurrency',
  'memoryMb',
  'vpc',
];
const APP_KEYS = [...CONSTRUCT_KEYS, 'account', 'region', 'stackName'];

const EMAIL = /^[^@\s"'<>(),;:]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/;
const VPC_ID = /^vpc-[0-9a-f]{8,17}$/;
const SUBNET_ID = /^subnet-[0-9a-f]{8,17}$/;
const SECURITY_GROUP_ID = /^sg-[0-9a-f]{8,17}$/;
const ACCOUNT = /^\d{12}$/;
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

function withWhere<T>(where: string | undefined, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ConfigError && where) {
      throw new ConfigError(`${where}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

/** Splits each cluster's `accessEntry` (a stack concern) from the settings the function sees. */
function splitAccessEntries(clusters: unknown): {
  clusters: unknown;
  accessEntries: (boolean | undefined)[];
} {
  if (!Array.isArray(clusters)) return { clusters, accessEntries: [] };
  const accessEntries: (boolean | undefined)[] = [];
  const stripped = clusters.map((cluster, i) => {
    if (!isObject(cluster) || !('accessEntry' in cluster)) {
      accessEntries.push(undefined);
      return cluster;
    }
    const { accessEntry, ...rest } = cluster;
    const at = `clusters[${i}].accessEntry`;
    if (typeof accessEntry !== 'boolean') {
      throw new ConfigError(`${at} must be true or false (got ${shown(accessEntry)})`);
    }
    const mode = isObject(rest.auth) ? rest.auth.mode : undefined;
    if (accessEntry && mode !== undefined && mode !== ('eks' satisfies AuthMode)) {
      throw new ConfigError(
        `${at} applies only to eks clusters; remove it from this ${shown(mode)} cluster`,
      );
    }
    accessEntries.push(accessEntry);
    return rest;
  });
  return { clusters: stripped, accessEntries };
}

function parseEmails(obj: JsonObject): string[] {
  const value = obj.emails;
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new ConfigError(
      `emails must be a list of email addresses, e.g. ["oncall@example.com"] (got ${shown(value)})`,
    );
  }
  const seen = new Set<string>();
  return value.map((email, i) => {
    if (typeof email !== 'string' || email.length > 254 || !EMAIL.test(email)) {
      throw new ConfigError(
        `emails[${i}] must be an email address like oncall@example.com (got ${shown(email)})`,
      );
    }
    const key = email.toLowerCase();
    if (seen.has(key))
      throw new ConfigError(`emails[${i}] ${shown(email)} is listed twice; remove the duplicate`);
    seen.add(key);
    return email;
  });
}

function idList(value: unknown, path: string, pattern: RegExp, example: string): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ConfigError(
      `${path} must be a non-empty list, e.g. ["${example}"] (got ${shown(value)})`,
    );
  }
  return value.map((id, i) => {
    if (typeof id !== 'string' || !pattern.test(id)) {
      throw new ConfigError(`${path}[${i}] must be an id like ${example} (got ${shown(id)})`);
    }
    return id;
  });
}

function parseVpc(value: unknown): VpcPlacement | undefined {
  if (value === undefined) return undefined;
  const obj = expectObject(value, 'vpc', '{"vpcId": "vpc-...", "subnetIds": ["subnet-..."]}');
  rejectUnknownKeys(obj, ['vpcId', 'subnetIds', 'securityGroupIds'], 'vpc');
  const vpcId = obj.vpcId;
  if (typeof vpcId !== 'string' || !VPC_ID.test(vpcId)) {
    throw new ConfigError(
      `vpc.vpcId must be a VPC id like vpc-0123456789abcdef0 (got ${shown(vpcId)})`,
    );
  }
  const subnetIds = idList(obj.subnetIds, 'vpc.subnetIds', SUBNET_ID, 'subnet-0123456789abcdef0');
  if (obj.securityGroupIds === undefined) return { vpcId, subnetIds };
  const securityGroupIds = idList(
    obj.securityGroupIds,
    'vpc.securityGroupIds',
    SECURITY_GROUP_ID,
    'sg-0123456789abcdef0',
  );
  return { vpcId, subnetIds, securityGroupIds };
}

function parseScheduleMinutes(obj: JsonObject): number {
  const value = obj.scheduleMinutes;
  if (value === undefined) return DEFAULT_SCHEDULE_MINUTES;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ConfigError(
      `scheduleMinutes must be a whole number ≥ 1; for sub-minute detection use fastMode (got ${shown(value)})`,
    );
  }
  if (value > 60) {
    throw new ConfigError(
      `scheduleMinutes must be at most 60 (got ${value}): check each cluster at least hourly`,
    );
  }
  return value;
}

function parseConfig(input: unknown, keys: readonly string[]): DeploymentConfig {
  const obj = expectObject(input, '', 'the lease-watchdog configuration');
  rejectUnknownKeys(obj, keys, '');
  const { clusters: clusterInput, accessEntries } = splitAccessEntries(obj.clusters);
  const settingsInput: JsonObject = {};
  for (const key of SETTINGS_KEYS) if (obj[key] !== undefined) settingsInput[key] = obj[key];
  settingsInput.clusters = clusterInput;
  const settings = parseWatchdogSettings(settingsInput);

  const emails = parseEmails(obj);
  const existingTopicArn = optionalString(obj, 'existingTopicArn', '', 'an SNS topic ARN');
  if (existingTopicArn !== undefined && !PATTERNS.TOPIC_ARN.test(existingTopicArn)) {
    throw new ConfigError(
      `existingTopicArn must be an SNS topic ARN like arn:aws:sns:eu-west-1:123456789012:alerts (got ${shown(existingTopicArn)})`,
    );
  }
  if (existingTopicArn === undefined && emails.length === 0) {
    throw new ConfigError(
      'emails must list at least one address to notify (or set existingTopicArn to publish to a topic you already have)',
    );
  }

  const scheduleMinutes = parseScheduleMinutes(obj);
  const span = fastModeSpanSeconds(settings.fastMode);
  if (span >= scheduleMinutes * 60) {
    throw new ConfigError(
      `fastMode spans ${span} s ((checksPerInvocation - 1) × intervalSeconds), which must be shorter than the schedule period (${scheduleMinutes * 60} s); lower fastMode.checksPerInvocation or fastMode.intervalSeconds`,
    );
  }

  const logRetentionDays = obj.logRetentionDays ?? DEFAULT_LOG_RETENTION_DAYS;
  if (!(LOG_RETENTION_DAYS as readonly unknown[]).includes(logRetentionDays)) {
    throw new ConfigError(
      `logRetentionDays must be one of ${LOG_RETENTION_DAYS.join(', ')} (got ${shown(logRetentionDays)})`,
    );
  }

  const clusters: DeployedCluster[] = settings.clusters.map((cluster, i) => ({
    ...cluster,
    accessEntry: cluster.auth.mode === 'eks' && (accessEntries[i] ?? true),
  }));
  const reservedConcurrency = wholeNumber(obj, 'reservedConcurrency', '', {
    min: 1,
    max: 1000,
    fallback: clusters.length * 2 + 1,
    hint: 'the default is clusters × 2 + 1',
  });
  const memoryMb = wholeNumber(obj, 'memoryMb', '', {
    min: 256,
    max: 10_240,
    fallback: DEFAULT_MEMORY_MB,
    hint: 'Lambda allows 128-10240 MB; the watchdog needs ~512 MB for 20,000 nodes, ~1,024 MB for 100,000',
  });
  const vpc = parseVpc(obj.vpc);

  const settingsBytes = Buffer.byteLength(JSON.stringify(settings));
  if (settingsBytes > MAX_SETTINGS_ENV_BYTES) {
    throw new ConfigError(
      `the watchdog settings take ${settingsBytes} bytes but a Lambda environment holds 4 KB; split clusters across deployments (stackName) or drop caData from token clusters`,
    );
  }

  const config: DeploymentConfig = {
    ...settings,
    clusters,
    emails,
    scheduleMinutes,
    logRetentionDays: logRetentionDays as number,
    reservedConcurrency,
    memoryMb,
  };
  if (existingTopicArn !== undefined) config.existingTopicArn = existingTopicArn;
  if (vpc !== undefined) config.vpc = vpc;
  return config;
}

/** The function's default memory, MB. */
export const DEFAULT_MEMORY_MB = 512;

/**
 * Validates the construct's configuration (what `new LeaseWatchdog(...)` receives) and fills in
 * the defaults. Idempotent: a parsed configuration parses to itself.
 */
export function parseDeploymentConfig(input: unknown, where?: string): DeploymentConfig {
  return withWhere(where, () => deepFreeze(parseConfig(input, CONSTRUCT_KEYS)));
}

/** Validates a whole configuration file: the construct's configuration plus account, region, stack name. */
export function parseAppConfig(
  input: unknown,
  where?: string,
  env: Record<string, string | undefined> = {},
): AppDeploymentConfig {
  return withWhere(where, () => {
    const config: AppDeploymentConfig = {
      ...parseConfig(input, APP_KEYS),
      stackName: DEFAULT_STACK_NAME,
    };
    const obj = input as JsonObject;
    const account =
      optionalString(obj, 'account', '', 'a 12-digit AWS account id') ?? env.CDK_DEPLOY_ACCOUNT;
    if (account !== undefined && account !== '') {
      if (!ACCOUNT.test(account)) {
        throw new ConfigError(`account must be a 12-digit AWS account id (got ${shown(account)})`);
      }
      config.account = account;
    }
    const region = optionalString(obj, 'region', '', 'an AWS region') ?? env.CDK_DEPLOY_REGION;
    if (region !== undefined && region !== '') {
      if (!PATTERNS.REGION.test(region)) {
        throw new ConfigError(`region must be an AWS region like eu-west-1 (got ${shown(region)})`);
      }
      config.region = region;
    }
    const stackName = optionalString(obj, 'stackName', '', 'the CloudFormation stack name');
    if (stackName !== undefined) {
      if (!STACK_NAME.test(stackName)) {
        throw new ConfigError(
          `stackName must start with a letter and hold only letters, digits and '-' (got ${shown(stackName)})`,
        );
      }
      config.stackName = stackName;
    }
    return deepFreeze(config);
  });
}

/** Reads and validates a configuration file. */
export function loadConfigFile(
  path: string,
  env: Record<string, string | undefined> = {},
): AppDeploymentConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      code === 'ENOENT'
        ? `${path} not found: copy infra/config.example.json and pass -c config=<your file>`
        : `${path} cannot be read (${code ?? (error as Error).message})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path} is not valid JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  return parseAppConfig(json, path, env);
}

/** The part of the configuration the function receives as LEASE_WATCHDOG_SETTINGS. */
export function watchdogSettingsOf(config: DeploymentConfig): WatchdogSettings {
  return deepFreeze({
    clusters: config.clusters.map(({ accessEntry: _ignored, ...cluster }) => cluster),
    gracePeriodSeconds: config.gracePeriodSeconds,
    startupGraceSeconds: config.startupGraceSeconds,
    reminderIntervalSeconds: config.reminderIntervalSeconds,
    storm: config.storm,
    fastMode: config.fastMode,
    nodeRefreshSeconds: config.nodeRefreshSeconds,
  });
}

/** Cluster names used in `fieldPath` messages elsewhere in infra. */
export function clusterPath(index: number, key: string): string {
  return fieldPath(`clusters[${index}]`, key);
}
