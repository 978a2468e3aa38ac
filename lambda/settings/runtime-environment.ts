/**
 * The Lambda's environment as the function reads it at cold start, without the schema library:
 * where notifications and state go, and the watchdog settings' JSON (LEASE_WATCHDOG_SETTINGS)
 * with the clusters of the cluster file in the function's code. runtime-config.ts validates the
 * settings with the deployment file's own schemas; `synthesizedRuntimeConfig` takes them as they
 * are when the cluster file vouches that they are what `cdk synth` validated (cluster-file.ts),
 * so that the cold start builds no schema (docs/BENCHMARKS.md, cold start). Pure: the environment
 * and the cluster file are passed in. Every problem is a ConfigError of one line naming the
 * variable and the fix.
 */
import { CLUSTER_FILE, vouchesFor } from './cluster-file.js';
import { ConfigError, deepFreeze, shown } from './errors.js';
import { type TextRules, textProblem, topicArnRules } from './field-checks.js';
import type { WatchdogSettings } from './parse.js';
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
  /** The function's own role: the principal discovery's access entries name (set with discover). */
  functionRoleArn: 'FUNCTION_ROLE_ARN',
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
  /** The function's own role (discovery's access entries and advice); undefined: not said. */
  readonly functionRoleArn?: string | undefined;
  /** Where the dispatcher sends each cluster's check (SQS); undefined: no dispatcher. */
  readonly dispatchQueueUrl?: string | undefined;
}

type Environment = Readonly<Record<string, string | undefined>>;

/** The cluster file (cluster-file.ts) as the function finds it: where, and how to read it. */
export interface ClusterFileSource {
  /** For errors: where it was looked for. */
  readonly path: string;
  /** Its text; throws when it cannot be read. */
  read(): string;
}

/** The watchdog settings' JSON with every cluster, before validation. */
export interface SettingsJson {
  readonly json: unknown;
  /** For errors: LEASE_WATCHDOG_SETTINGS, with the cluster file's name when there is one. */
  readonly where: string;
  /** True when the cluster file vouches that `cdk synth` validated exactly these settings. */
  readonly validatedAtSynth: boolean;
}

function requiredEnv(env: Environment, name: string, what: string) {
  const value = env[name]?.trim();
  if (value === undefined || value === '') throw new ConfigError(`${name} is required (${what})`);
  return value;
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

/** Refuses an environment that turns TLS verification off for the whole process. */
export function refuseInsecureTls(env: Environment): void {
  if (env.NODE_TLS_REJECT_UNAUTHORIZED?.trim() === '0') {
    throw new ConfigError(
      'NODE_TLS_REJECT_UNAUTHORIZED=0 turns off TLS verification, and the watchdog would send its cluster tokens to any server; remove it from the function environment',
    );
  }
}

/** The cluster file's JSON, to be `{"clusters": [...]}` (and the digest that vouches for it). */
function readClusterFile(clusterFile: ClusterFileSource) {
  let raw: string;
  try {
    raw = clusterFile.read();
  } catch (error) {
    throw new ConfigError(
      `${clusterFile.path} cannot be read (${(error as Error).message.split('\n')[0]}): the CDK stack writes it into the function's code; deploy again`,
    );
  }
  const file = parseJson(raw, clusterFile.path, '{"clusters": [...]}');
  return file as { clusters?: unknown; validatedSha256?: unknown } | null;
}

/**
 * LEASE_WATCHDOG_SETTINGS with the clusters: those of the cluster file, then those the settings
 * list themselves (a cluster with values CloudFormation resolves stays in the environment:
 * cluster-file.ts); and whether the cluster file vouches for the two together.
 */
export function settingsJson(env: Environment, clusterFile?: ClusterFileSource): SettingsJson {
  const raw = requiredEnv(
    env,
    RUNTIME_ENV.settings,
    'JSON of the watchdog settings; the CDK stack sets it',
  );
  const json = parseJson(raw, RUNTIME_ENV.settings, 'the watchdog settings');
  const where =
    clusterFile === undefined ? RUNTIME_ENV.settings : `${RUNTIME_ENV.settings} + ${CLUSTER_FILE}`;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { json, where, validatedAtSynth: false };
  }
  const own = 'clusters' in json ? json.clusters : undefined;
  if (clusterFile === undefined) {
    if (own !== undefined) return { json, where, validatedAtSynth: false };
    throw new ConfigError(
      `${RUNTIME_ENV.settings} lists no clusters and there is no ${CLUSTER_FILE}: the CDK stack writes it into the function's code`,
    );
  }
  const file = readClusterFile(clusterFile);
  if (!Array.isArray(file?.clusters) || (own !== undefined && !Array.isArray(own))) {
    throw new ConfigError(`${clusterFile.path} must be {"clusters": [...]}; deploy again`);
  }
  return {
    json: { ...json, clusters: [...file.clusters, ...((own as unknown[] | undefined) ?? [])] },
    where,
    validatedAtSynth: own === undefined && vouchesFor({ ...file, clusters: file.clusters }, raw),
  };
}

/**
 * The Lambda's configuration around its validated watchdog settings: TOPIC_ARN, STATE_TABLE, and
 * the side topics and the queue as the settings ask for them. Frozen.
 */
export function runtimeConfigOf(env: Environment, settings: WatchdogSettings): RuntimeConfig {
  const sideTopic = (name: string, setting: string, what: string, example: string) =>
    requiredText(
      env,
      name,
      topicArnRules(
        `the SNS topic of ${what}, as ${setting} is set; the CDK stack sets it`,
        example,
      ),
    );
  const queueUrl = (name: string, example: string) =>
    optionalText(env, name, {
      hint: 'an SQS queue URL',
      pattern: /^https:\/\/[^\s/]+\/\d{12}\/[\w-]{1,80}$/,
      invalid: (url) =>
        `must be an SQS queue URL like https://sqs.eu-west-1.amazonaws.com/123456789012/${example} (got ${shown(url)})`,
    });
  const config = {
    settings,
    topicArn: requiredText(
      env,
      RUNTIME_ENV.topicArn,
      topicArnRules('the SNS topic that receives the notifications'),
    ),
    stateTable: requiredText(env, RUNTIME_ENV.stateTable, {
      hint: 'the DynamoDB table that keeps the watchdog state',
      pattern: PATTERNS.TABLE_NAME,
      invalid: (value) => `must be a DynamoDB table name (got ${shown(value)})`,
    }),
    chatTopicArn:
      settings.chatNotifications === undefined
        ? undefined
        : sideTopic(RUNTIME_ENV.chatTopicArn, 'chatNotifications', 'chat notifications', 'chat'),
    machineTopicArn:
      settings.machineTopic !== true
        ? undefined
        : sideTopic(RUNTIME_ENV.machineTopicArn, 'machineTopic', 'the machine topic', 'machine'),
    recheckQueueUrl: queueUrl(RUNTIME_ENV.recheckQueueUrl, 'rechecks'),
    dispatchQueueUrl: queueUrl(RUNTIME_ENV.dispatchQueueUrl, 'checks'),
    functionRoleArn: optionalText(env, RUNTIME_ENV.functionRoleArn, {
      hint: "the function's own role",
      pattern: PATTERNS.ROLE_ARN,
      invalid: (value) =>
        `must be an IAM role ARN like arn:aws:iam::123456789012:role/lease-watchdog (got ${shown(value)})`,
    }),
  };
  // A variable the stack did not set is left out, not kept as undefined.
  const set = Object.entries(config).filter(([, value]) => value !== undefined);
  return deepFreeze(Object.fromEntries(set) as unknown as RuntimeConfig);
}

/** A variable the stack sets: required (`rules.hint` says what it is), and checked by `rules`. */
function requiredText(env: Environment, name: string, rules: TextRules): string {
  const value = requiredEnv(env, name, rules.hint);
  const problem = textProblem(rules, value);
  if (problem !== undefined) throw new ConfigError(`${name} ${problem}`);
  return value;
}

/** A variable the stack sets only with what needs it: checked by `rules` when set. */
function optionalText(env: Environment, name: string, rules: TextRules): string | undefined {
  const value = env[name]?.trim() || undefined;
  return value === undefined ? undefined : requiredText(env, name, rules);
}

/**
 * The Lambda's configuration (as loadRuntimeConfig reads it) with the watchdog settings taken as
 * they are, when the cluster file vouches that they are exactly what `cdk synth` validated (the
 * stack wrote both, with every default filled in); undefined when it does not (an environment
 * changed by hand, a value CloudFormation resolved, no cluster file): then they must be validated.
 */
export function synthesizedRuntimeConfig(
  env: Environment,
  clusterFile?: ClusterFileSource,
): RuntimeConfig | undefined {
  refuseInsecureTls(env);
  const { json, validatedAtSynth } = settingsJson(env, clusterFile);
  return validatedAtSynth ? runtimeConfigOf(env, deepFreeze(json) as WatchdogSettings) : undefined;
}
