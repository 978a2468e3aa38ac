/**
 * The watchdog's settings: parsed once, at the edge, into a typed and frozen object.
 *
 * The same validation runs at `cdk synth` (infra/config.ts) and at the Lambda's cold start
 * (`loadRuntimeConfig`), so a setting the stack accepted is a setting the function accepts.
 * Pure: no AWS calls, no clock, no environment (the environment is passed in).
 */
import {
  DEFAULT_GRACE_PERIOD_SECONDS,
  DEFAULT_NAMESPACE,
  DEFAULT_STARTUP_GRACE_SECONDS,
} from './core/policy.js';
import { parseSelector } from './core/selector.js';

/** How the watchdog reaches one cluster's API server. */
export type ClusterAuth =
  | { mode: 'kubeconfig'; secretId: string; context?: string }
  | { mode: 'token'; server: string; caData?: string; tokenSecretId: string }
  | { mode: 'eks'; clusterName: string; region?: string };

export const AUTH_MODES = ['kubeconfig', 'token', 'eks'] as const;
export type AuthMode = ClusterAuth['mode'];

export interface ClusterSettings {
  /** The watchdog's name for the cluster: in notifications, state keys, metrics and the schedule input. */
  name: string;
  auth: ClusterAuth;
  /** Where the node Leases live. Default `kube-node-lease`. */
  namespace: string;
  /** Nodes matching this label selector never alert. */
  excludeSelector?: string;
}

export interface StormSettings {
  zoneFraction: number;
  zoneMinNodes: number;
  clusterFraction: number;
  clusterMinNodes: number;
}

export interface FastModeSettings {
  /** Checks per invocation; 1 = one check per schedule tick. */
  checksPerInvocation: number;
  /** Seconds between the checks of one invocation. */
  intervalSeconds: number;
}

export interface WatchdogSettings {
  clusters: ClusterSettings[];
  gracePeriodSeconds: number;
  startupGraceSeconds: number;
  /** Seconds between reminders while a node stays down; 0 = no reminders. */
  reminderIntervalSeconds: number;
  storm: StormSettings;
  fastMode: FastModeSettings;
  /**
   * List whole Nodes at most this often (seconds); in between, re-read only the nodes whose
   * leases look silent. 0 (default): list them on every check. For very large clusters.
   */
  nodeRefreshSeconds: number;
}

export const DEFAULT_REMINDER_INTERVAL_SECONDS = 14_400;
export const DEFAULT_STORM: Readonly<StormSettings> = Object.freeze({
  zoneFraction: 0.55,
  zoneMinNodes: 3,
  clusterFraction: 0.55,
  clusterMinNodes: 3,
});
export const DEFAULT_FAST_MODE: Readonly<FastModeSettings> = Object.freeze({
  checksPerInvocation: 1,
  intervalSeconds: 10,
});
/** The longest a fast-mode invocation may spend between its first and last check (Lambda's limit is 900 s). */
export const MAX_FAST_MODE_SPAN_SECONDS = 840;

/** A configuration that cannot be used. The message is one line naming the field and the fix. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The top-level keys of the watchdog settings (infra/config.ts accepts these and its own). */
export const SETTINGS_KEYS = [
  'clusters',
  'gracePeriodSeconds',
  'startupGraceSeconds',
  'reminderIntervalSeconds',
  'storm',
  'fastMode',
  'nodeRefreshSeconds',
] as const;
const CLUSTER_KEYS = ['name', 'auth', 'namespace', 'excludeSelector'] as const;
const AUTH_KEYS: Record<AuthMode, readonly string[]> = {
  kubeconfig: ['mode', 'secretId', 'context'],
  token: ['mode', 'server', 'caData', 'tokenSecretId'],
  eks: ['mode', 'clusterName', 'region'],
};

const CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const EKS_CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const SECRET_ARN =
  /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;
const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

// ---------------------------------------------------------------------------------------------
// Field readers: each names the field's path in its message.

/** Renders a value for a message: short, one line. */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function fieldPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent === '' ? key : `${parent}.${key}`;
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function expectObject(value: unknown, path: string, what: string): JsonObject {
  if (!isObject(value)) {
    throw new ConfigError(
      `${path || 'the configuration'} must be an object (${what}), got ${shown(value)}`,
    );
  }
  return value;
}

/** Rejects fields the reader does not know: a typo must not silently fall back to a default. */
export function rejectUnknownKeys(obj: JsonObject, known: readonly string[], path: string): void {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key)) {
      throw new ConfigError(
        `${fieldPath(path, key)} is not a known setting; remove it or use one of: ${known.join(', ')}`,
      );
    }
  }
}

export function requiredString(obj: JsonObject, key: string, path: string, hint: string): string {
  const value = obj[key];
  const at = fieldPath(path, key);
  if (value === undefined || value === null || value === '')
    throw new ConfigError(`${at} is required: ${hint}`);
  if (typeof value !== 'string')
    throw new ConfigError(`${at} must be a string (${hint}), got ${shown(value)}`);
  if (value.trim() !== value)
    throw new ConfigError(`${at} must not start or end with spaces (got ${shown(value)})`);
  return value;
}

export function optionalString(
  obj: JsonObject,
  key: string,
  path: string,
  hint: string,
): string | undefined {
  if (obj[key] === undefined) return undefined;
  return requiredString(obj, key, path, hint);
}

export function wholeNumber(
  obj: JsonObject,
  key: string,
  path: string,
  range: { min: number; max: number; fallback: number; hint?: string },
): number {
  const value = obj[key];
  if (value === undefined) return range.fallback;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < range.min ||
    value > range.max
  ) {
    const hint = range.hint ? `; ${range.hint}` : '';
    throw new ConfigError(
      `${fieldPath(path, key)} must be a whole number from ${range.min} to ${range.max} (got ${shown(value)})${hint}`,
    );
  }
  return value;
}

function fraction(obj: JsonObject, key: string, path: string, fallback: number): number {
  const value = obj[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1) {
    throw new ConfigError(
      `${fieldPath(path, key)} must be a fraction greater than 0 and at most 1, e.g. 0.55 (got ${shown(value)})`,
    );
  }
  return value;
}

/** Freezes an object graph (plain objects and arrays). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function prefixed(where: string | undefined, run: () => WatchdogSettings): WatchdogSettings {
  if (where === undefined || where === '') return run();
  try {
    return run();
  } catch (error) {
    if (error instanceof ConfigError)
      throw new ConfigError(`${where}: ${error.message}`, { cause: error });
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------

function parseSecretId(obj: JsonObject, key: string, path: string): string {
  const value = requiredString(obj, key, path, 'the Secrets Manager secret name or ARN');
  if (value.startsWith('arn:') ? !SECRET_ARN.test(value) : !SECRET_NAME.test(value)) {
    throw new ConfigError(
      `${fieldPath(path, key)} must be a Secrets Manager secret name or ARN like arn:aws:secretsmanager:eu-west-1:123456789012:secret:my-secret (got ${shown(value)})`,
    );
  }
  return value;
}

function parseAuth(value: unknown, path: string, clusterName: string): ClusterAuth {
  const obj = expectObject(
    value,
    path,
    `how to reach the cluster: {"mode": "${AUTH_MODES.join('" | "')}", ...}`,
  );
  const mode = obj.mode;
  if (mode === undefined) {
    throw new ConfigError(
      `${fieldPath(path, 'mode')} is required: one of ${AUTH_MODES.join(', ')}`,
    );
  }
  if (typeof mode !== 'string' || !(AUTH_MODES as readonly string[]).includes(mode)) {
    throw new ConfigError(
      `${fieldPath(path, 'mode')} must be one of ${AUTH_MODES.join(', ')} (got ${shown(mode)})`,
    );
  }
  const authMode = mode as AuthMode;
  rejectUnknownKeys(obj, AUTH_KEYS[authMode], path);
  switch (authMode) {
    case 'kubeconfig': {
      const secretId = parseSecretId(obj, 'secretId', path);
      const context = optionalString(obj, 'context', path, 'the kubeconfig context to use');
      return context === undefined
        ? { mode: authMode, secretId }
        : { mode: authMode, secretId, context };
    }
    case 'token': {
      const server = requiredString(
        obj,
        'server',
        path,
        'the https:// URL of the Kubernetes API server',
      );
      let url: URL | undefined;
      try {
        url = new URL(server);
      } catch {
        url = undefined;
      }
      if (url?.protocol !== 'https:') {
        throw new ConfigError(
          `${fieldPath(path, 'server')} must be the https:// URL of the Kubernetes API server (got ${shown(server)})`,
        );
      }
      const caData = optionalString(obj, 'caData', path, 'the base64 PEM of the cluster CA');
      if (caData !== undefined && !BASE64.test(caData)) {
        throw new ConfigError(
          `${fieldPath(path, 'caData')} must be base64 of the cluster CA certificate (PEM), as in a kubeconfig's certificate-authority-data`,
        );
      }
      const tokenSecretId = parseSecretId(obj, 'tokenSecretId', path);
      return caData === undefined
        ? { mode: authMode, server, tokenSecretId }
        : { mode: authMode, server, caData, tokenSecretId };
    }
    case 'eks': {
      // The EKS name defaults to the watchdog's name for the cluster.
      const eksName =
        obj.clusterName === undefined
          ? clusterName
          : requiredString(obj, 'clusterName', path, 'the EKS cluster name');
      if (!EKS_CLUSTER_NAME.test(eksName)) {
        throw new ConfigError(
          `${fieldPath(path, 'clusterName')} must be an EKS cluster name: letters, digits, '-' and '_' (got ${shown(eksName)})`,
        );
      }
      const region = optionalString(obj, 'region', path, 'the AWS region of the cluster');
      if (region !== undefined && !REGION.test(region)) {
        throw new ConfigError(
          `${fieldPath(path, 'region')} must be an AWS region like eu-west-1 (got ${shown(region)})`,
        );
      }
      return region === undefined
        ? { mode: authMode, clusterName: eksName }
        : { mode: authMode, clusterName: eksName, region };
    }
  }
}

function parseCluster(value: unknown, path: string): ClusterSettings {
  const obj = expectObject(value, path, 'one cluster: {"name": ..., "auth": {...}}');
  rejectUnknownKeys(obj, CLUSTER_KEYS, path);
  const name = requiredString(obj, 'name', path, 'give each cluster a unique name, e.g. "prod-eu"');
  if (!CLUSTER_NAME.test(name)) {
    throw new ConfigError(
      `${fieldPath(path, 'name')} must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit (got ${shown(name)})`,
    );
  }
  if (obj.auth === undefined) {
    throw new ConfigError(
      `${fieldPath(path, 'auth')} is required: {"mode": "${AUTH_MODES.join('" | "')}", ...}`,
    );
  }
  const auth = parseAuth(obj.auth, fieldPath(path, 'auth'), name);
  const namespace =
    optionalString(obj, 'namespace', path, 'the namespace of the node Leases') ?? DEFAULT_NAMESPACE;
  if (!DNS_LABEL.test(namespace)) {
    throw new ConfigError(
      `${fieldPath(path, 'namespace')} must be a Kubernetes namespace name, e.g. ${DEFAULT_NAMESPACE} (got ${shown(namespace)})`,
    );
  }
  const excludeSelector = optionalString(obj, 'excludeSelector', path, 'a label selector');
  if (excludeSelector !== undefined) {
    try {
      parseSelector(excludeSelector);
    } catch (error) {
      throw new ConfigError(
        `${fieldPath(path, 'excludeSelector')} must be a label selector like "role=batch,!critical": ${(error as Error).message}`,
      );
    }
  }
  const cluster: ClusterSettings = { name, auth, namespace };
  if (excludeSelector !== undefined) cluster.excludeSelector = excludeSelector;
  return cluster;
}

function parseSettings(input: unknown): WatchdogSettings {
  const obj = expectObject(input, '', 'the watchdog settings');
  rejectUnknownKeys(obj, SETTINGS_KEYS, '');
  const list = obj.clusters;
  if (list === undefined)
    throw new ConfigError('clusters is required: list at least one cluster to watch');
  if (!Array.isArray(list))
    throw new ConfigError(`clusters must be a list of clusters, got ${shown(list)}`);
  if (list.length === 0)
    throw new ConfigError('clusters must list at least one cluster to watch (it is empty)');
  const clusters = list.map((item, i) => parseCluster(item, fieldPath('clusters', i)));
  const seen = new Map<string, number>();
  clusters.forEach((cluster, i) => {
    const first = seen.get(cluster.name);
    if (first !== undefined) {
      throw new ConfigError(
        `clusters[${i}].name "${cluster.name}" is already used by clusters[${first}]; cluster names must be unique`,
      );
    }
    seen.set(cluster.name, i);
  });

  const gracePeriodSeconds = wholeNumber(obj, 'gracePeriodSeconds', '', {
    min: 1,
    max: 86_400,
    fallback: DEFAULT_GRACE_PERIOD_SECONDS,
  });
  const startupGraceSeconds = wholeNumber(obj, 'startupGraceSeconds', '', {
    min: 0,
    max: 86_400,
    fallback: DEFAULT_STARTUP_GRACE_SECONDS,
  });
  const reminderIntervalSeconds = wholeNumber(obj, 'reminderIntervalSeconds', '', {
    min: 0,
    max: 604_800,
    fallback: DEFAULT_REMINDER_INTERVAL_SECONDS,
    hint: '0 turns reminders off',
  });
  if (reminderIntervalSeconds > 0 && reminderIntervalSeconds < 60) {
    throw new ConfigError(
      `reminderIntervalSeconds must be 0 (no reminders) or at least 60 (got ${reminderIntervalSeconds})`,
    );
  }

  const stormInput =
    obj.storm === undefined ? {} : expectObject(obj.storm, 'storm', 'storm thresholds');
  rejectUnknownKeys(stormInput, Object.keys(DEFAULT_STORM), 'storm');
  const storm: StormSettings = {
    zoneFraction: fraction(stormInput, 'zoneFraction', 'storm', DEFAULT_STORM.zoneFraction),
    zoneMinNodes: wholeNumber(stormInput, 'zoneMinNodes', 'storm', {
      min: 1,
      max: 100_000,
      fallback: DEFAULT_STORM.zoneMinNodes,
    }),
    clusterFraction: fraction(
      stormInput,
      'clusterFraction',
      'storm',
      DEFAULT_STORM.clusterFraction,
    ),
    clusterMinNodes: wholeNumber(stormInput, 'clusterMinNodes', 'storm', {
      min: 1,
      max: 100_000,
      fallback: DEFAULT_STORM.clusterMinNodes,
    }),
  };

  const fastInput =
    obj.fastMode === undefined ? {} : expectObject(obj.fastMode, 'fastMode', 'fast mode');
  rejectUnknownKeys(fastInput, Object.keys(DEFAULT_FAST_MODE), 'fastMode');
  const fastMode: FastModeSettings = {
    checksPerInvocation: wholeNumber(fastInput, 'checksPerInvocation', 'fastMode', {
      min: 1,
      max: 60,
      fallback: DEFAULT_FAST_MODE.checksPerInvocation,
    }),
    intervalSeconds: wholeNumber(fastInput, 'intervalSeconds', 'fastMode', {
      min: 1,
      max: 300,
      fallback: DEFAULT_FAST_MODE.intervalSeconds,
    }),
  };
  const span = fastModeSpanSeconds(fastMode);
  if (span > MAX_FAST_MODE_SPAN_SECONDS) {
    throw new ConfigError(
      `fastMode spans ${span} s ((checksPerInvocation - 1) × intervalSeconds); keep it at most ${MAX_FAST_MODE_SPAN_SECONDS} s`,
    );
  }

  const nodeRefreshSeconds = wholeNumber(obj, 'nodeRefreshSeconds', '', {
    min: 0,
    max: 3_600,
    fallback: 0,
    hint: '0 lists whole Nodes on every check',
  });

  return {
    clusters,
    gracePeriodSeconds,
    startupGraceSeconds,
    reminderIntervalSeconds,
    storm,
    fastMode,
    nodeRefreshSeconds,
  };
}

/** Seconds from the first to the last check of one invocation. */
export function fastModeSpanSeconds(fastMode: FastModeSettings): number {
  return (fastMode.checksPerInvocation - 1) * fastMode.intervalSeconds;
}

/**
 * Validates watchdog settings and fills in the defaults. Throws ConfigError with one line naming
 * the field and the fix, prefixed with `where` (a file or variable name) when given.
 */
export function parseWatchdogSettings(input: unknown, where?: string): WatchdogSettings {
  return deepFreeze(prefixed(where, () => parseSettings(input)));
}

// ---------------------------------------------------------------------------------------------

export interface RuntimeConfig {
  settings: WatchdogSettings;
  topicArn: string;
  stateTable: string;
}

function requiredEnv(env: Record<string, string | undefined>, name: string, what: string): string {
  const value = env[name];
  if (value === undefined || value.trim() === '')
    throw new ConfigError(`${name} is required (${what})`);
  return value.trim();
}

/**
 * Reads the Lambda's configuration from its environment (set by the CDK stack):
 * LEASE_WATCHDOG_SETTINGS (JSON of WatchdogSettings), TOPIC_ARN, STATE_TABLE.
 */
export function loadRuntimeConfig(env: Record<string, string | undefined>): RuntimeConfig {
  const raw = requiredEnv(
    env,
    'LEASE_WATCHDOG_SETTINGS',
    'JSON of the watchdog settings; the CDK stack sets it',
  );
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new ConfigError(
      `LEASE_WATCHDOG_SETTINGS must be JSON of the watchdog settings: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  const settings = parseWatchdogSettings(json, 'LEASE_WATCHDOG_SETTINGS');
  const topicArn = requiredEnv(env, 'TOPIC_ARN', 'the SNS topic that receives the notifications');
  if (!TOPIC_ARN.test(topicArn)) {
    throw new ConfigError(
      `TOPIC_ARN must be an SNS topic ARN like arn:aws:sns:eu-west-1:123456789012:alerts (got ${shown(topicArn)})`,
    );
  }
  const stateTable = requiredEnv(
    env,
    'STATE_TABLE',
    'the DynamoDB table that keeps the watchdog state',
  );
  if (!TABLE_NAME.test(stateTable)) {
    throw new ConfigError(`STATE_TABLE must be a DynamoDB table name (got ${shown(stateTable)})`);
  }
  return deepFreeze({ settings, topicArn, stateTable });
}

/** Exported for infra/config.ts, which validates the same shapes. */
export const PATTERNS = Object.freeze({ TOPIC_ARN, REGION, CLUSTER_NAME });
