/**
 * The Lambda's configuration, read from its environment at cold start: the watchdog settings the
 * stack wrote (parsed by parse.ts, the deployment file's own parser), the cluster file in the
 * function's code, and where notifications and state go. Pure: the environment and the cluster
 * file are passed in. Every problem is a ConfigError of one line naming the variable and the fix.
 */
import * as z from 'zod';
import { CLUSTER_FILE } from './cluster-file.js';
import { ConfigError, deepFreeze, shown } from './errors.js';
import { text } from './fields.js';
import { parseWatchdogSettings, parseWith, type WatchdogSettings } from './parse.js';
import { PATTERNS } from './patterns.js';

/** The environment variables the stack sets and the function reads. */
export const RUNTIME_ENV = Object.freeze({
  settings: 'LEASE_WATCHDOG_SETTINGS',
  topicArn: 'TOPIC_ARN',
  stateTable: 'STATE_TABLE',
  /** The topic of chat notifications: set by the stack when `chatNotifications` is. */
  chatTopicArn: 'CHAT_TOPIC_ARN',
  /** The machine topic (String-structure publishes with attributes): set when `machineTopic` is. */
  machineTopicArn: 'MACHINE_TOPIC_ARN',
  /** The queue of the watchdog's own looks (re-checks of suspects): set by the stack. */
  recheckQueueUrl: 'RECHECK_QUEUE_URL',
  /** The queue the dispatcher fans each cluster's check out on: set by the stack with the dispatcher. */
  dispatchQueueUrl: 'DISPATCH_QUEUE_URL',
});

export interface RuntimeConfig {
  readonly settings: WatchdogSettings;
  readonly topicArn: string;
  readonly stateTable: string;
  /** Where chat notifications go (`chatNotifications`); undefined when they are off. */
  readonly chatTopicArn?: string | undefined;
  /** Where the document goes with its message attributes (`machineTopic`); undefined when off. */
  readonly machineTopicArn?: string | undefined;
  /** Where the watchdog asks for looks of its own (SQS); undefined: it looks only when invoked. */
  readonly recheckQueueUrl?: string | undefined;
  /** Where the dispatcher sends each cluster's check (SQS); undefined: no dispatcher. */
  readonly dispatchQueueUrl?: string | undefined;
}

const runtimeSchema = z.object({
  [RUNTIME_ENV.topicArn]: text({
    hint: 'the SNS topic that receives the notifications',
    pattern: PATTERNS.TOPIC_ARN,
    invalid: (value) =>
      `must be an SNS topic ARN like arn:aws:sns:eu-west-1:123456789012:alerts (got ${shown(value)})`,
  }),
  [RUNTIME_ENV.stateTable]: text({
    hint: 'the DynamoDB table that keeps the watchdog state',
    pattern: PATTERNS.TABLE_NAME,
    invalid: (value) => `must be a DynamoDB table name (got ${shown(value)})`,
  }),
});

function requiredEnv(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  what: string,
) {
  const value = env[name]?.trim();
  if (value === undefined || value === '') throw new ConfigError(`${name} is required (${what})`);
  return value;
}

/** The cluster file (cluster-file.ts) as the function finds it: where, and how to read it. */
export interface ClusterFileSource {
  /** For errors: where it was looked for. */
  readonly path: string;
  /** Its text; throws when it cannot be read. */
  read(): string;
}

function parseJson(raw: string, where: string, what: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new ConfigError(
      `${where} must be JSON of ${what}: ${(error as Error).message.split('\n')[0]}`,
    );
  }
}

/**
 * The clusters: those of the cluster file, then those the settings list themselves (a cluster
 * with values CloudFormation resolves stays in the environment: cluster-file.ts).
 */
function withClusters(json: unknown, clusterFile: ClusterFileSource | undefined): unknown {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return json;
  const own = 'clusters' in json ? json.clusters : undefined;
  if (clusterFile === undefined) {
    if (own !== undefined) return json;
    throw new ConfigError(
      `${RUNTIME_ENV.settings} lists no clusters and there is no ${CLUSTER_FILE}: the CDK stack writes it into the function's code`,
    );
  }
  let raw: string;
  try {
    raw = clusterFile.read();
  } catch (error) {
    throw new ConfigError(
      `${clusterFile.path} cannot be read (${(error as Error).message.split('\n')[0]}): the CDK stack writes it into the function's code; deploy again`,
    );
  }
  const file = parseJson(raw, clusterFile.path, '{"clusters": [...]}');
  if (
    typeof file !== 'object' ||
    file === null ||
    !('clusters' in file) ||
    !Array.isArray(file.clusters) ||
    (own !== undefined && !Array.isArray(own))
  ) {
    throw new ConfigError(`${clusterFile.path} must be {"clusters": [...]}; deploy again`);
  }
  return { ...json, clusters: [...file.clusters, ...((own as unknown[] | undefined) ?? [])] };
}

/**
 * Reads the Lambda's configuration from its environment (set by the CDK stack):
 * LEASE_WATCHDOG_SETTINGS (JSON of the watchdog settings but the clusters), TOPIC_ARN,
 * STATE_TABLE, and CHAT_TOPIC_ARN with chatNotifications; and the clusters from the cluster file
 * in the function's code (cluster-file.ts), validated together with the rest by the deployment
 * file's own schemas (settings that list `clusters` themselves need no file). Refuses an
 * environment that turns TLS verification off for the whole process
 * (NODE_TLS_REJECT_UNAUTHORIZED=0): the function sends bearer tokens to API servers.
 */
export function loadRuntimeConfig(
  env: Readonly<Record<string, string | undefined>>,
  clusterFile?: ClusterFileSource,
): RuntimeConfig {
  if (env.NODE_TLS_REJECT_UNAUTHORIZED?.trim() === '0') {
    throw new ConfigError(
      'NODE_TLS_REJECT_UNAUTHORIZED=0 turns off TLS verification, and the watchdog would send its cluster tokens to any server; remove it from the function environment',
    );
  }
  const settings = settingsOf(env, clusterFile);
  const topicArn = requiredEnv(
    env,
    RUNTIME_ENV.topicArn,
    'the SNS topic that receives the notifications',
  );
  const stateTable = requiredEnv(
    env,
    RUNTIME_ENV.stateTable,
    'the DynamoDB table that keeps the watchdog state',
  );
  const checked = parseWith(runtimeSchema, {
    [RUNTIME_ENV.topicArn]: topicArn,
    [RUNTIME_ENV.stateTable]: stateTable,
  });
  const chatTopicArn =
    settings.chatNotifications === undefined
      ? undefined
      : sideTopicArnOf(env, RUNTIME_ENV.chatTopicArn, 'chat notifications', 'chatNotifications');
  const machineTopicArn =
    settings.machineTopic !== true
      ? undefined
      : sideTopicArnOf(env, RUNTIME_ENV.machineTopicArn, 'the machine topic', 'machineTopic');
  const recheckQueueUrl = queueUrlOf(env, RUNTIME_ENV.recheckQueueUrl, 'rechecks');
  const dispatchQueueUrl = queueUrlOf(env, RUNTIME_ENV.dispatchQueueUrl, 'checks');
  return deepFreeze({
    settings,
    topicArn: checked[RUNTIME_ENV.topicArn] as string,
    stateTable: checked[RUNTIME_ENV.stateTable] as string,
    ...(chatTopicArn === undefined ? {} : { chatTopicArn }),
    ...(machineTopicArn === undefined ? {} : { machineTopicArn }),
    ...(recheckQueueUrl === undefined ? {} : { recheckQueueUrl }),
    ...(dispatchQueueUrl === undefined ? {} : { dispatchQueueUrl }),
  });
}

/** The watchdog settings: LEASE_WATCHDOG_SETTINGS, with the cluster file's clusters. */
function settingsOf(
  env: Readonly<Record<string, string | undefined>>,
  clusterFile: ClusterFileSource | undefined,
): WatchdogSettings {
  const raw = requiredEnv(
    env,
    RUNTIME_ENV.settings,
    'JSON of the watchdog settings; the CDK stack sets it',
  );
  const json = withClusters(
    parseJson(raw, RUNTIME_ENV.settings, 'the watchdog settings'),
    clusterFile,
  );
  return parseWatchdogSettings(
    json,
    clusterFile === undefined ? RUNTIME_ENV.settings : `${RUNTIME_ENV.settings} + ${CLUSTER_FILE}`,
  );
}

/** The ARN in `name` (CHAT_TOPIC_ARN, MACHINE_TOPIC_ARN), required as `setting` is set. */
function sideTopicArnOf(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  what: string,
  setting: string,
): string {
  const topicArn = requiredEnv(
    env,
    name,
    `the SNS topic of ${what}, as ${setting} is set; the CDK stack sets it`,
  );
  if (!PATTERNS.TOPIC_ARN.test(topicArn)) {
    throw new ConfigError(
      `${name} must be an SNS topic ARN like arn:aws:sns:eu-west-1:123456789012:${name === RUNTIME_ENV.chatTopicArn ? 'chat' : 'machine'} (got ${shown(topicArn)})`,
    );
  }
  return topicArn;
}

/** A queue's URL (RECHECK_QUEUE_URL, DISPATCH_QUEUE_URL), when the stack set it. */
function queueUrlOf(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  example: string,
): string | undefined {
  const url = env[name]?.trim() || undefined;
  if (url !== undefined && !/^https:\/\/[^\s/]+\/\d{12}\/[\w-]{1,80}$/.test(url)) {
    throw new ConfigError(
      `${name} must be an SQS queue URL like https://sqs.eu-west-1.amazonaws.com/123456789012/${example} (got ${shown(url)})`,
    );
  }
  return url;
}
