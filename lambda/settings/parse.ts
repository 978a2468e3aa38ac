/**
 * Parsing settings once, at the edge, into typed and frozen objects: the deployment file at
 * `cdk synth`, and the watchdog settings that the Lambda's environment carries to its cold start
 * (runtime-config.ts reads them with the same parser). A setting the stack accepted is a setting
 * the function accepts. Pure: no AWS, no clock, no environment (it is passed in). Every problem
 * is a ConfigError of one line naming the field and the fix.
 */
import type * as z from 'zod';
import { watchdogSettingsShape } from './catalogue.js';
import { functionSettingsOf } from './cluster-file.js';
import { type AuthMode, EKS_CLUSTER_NAME_PROBLEM, NO_CLUSTERS } from './clusters.js';
import { DEFAULTS } from './defaults.js';
import { ConfigError, deepFreeze, firstProblem, shown, within } from './errors.js';
import { strictObject } from './fields.js';
import { memoryMbFor } from './function-memory.js';
import { PATTERNS } from './patterns.js';
import { appShape, deploymentShape, environmentFallbacks } from './stack-settings.js';

const watchdogSettingsSchema = strictObject(watchdogSettingsShape, 'the watchdog settings');
const deploymentSchema = strictObject(deploymentShape, 'the lease-watchdog configuration');
/** A whole deployment file. */
export const appSchema = strictObject(appShape, 'the lease-watchdog configuration');

type Parsed = z.output<typeof watchdogSettingsSchema>;
type ParsedCluster = NonNullable<Parsed['clusters']>[number];

/** How the watchdog reaches one cluster's API server (the EKS name filled in). */
export type ClusterAuth =
  | Exclude<ParsedCluster['auth'], { mode: 'eks' }>
  | {
      readonly mode: 'eks';
      readonly clusterName: string;
      readonly region?: string | undefined;
      /** The role the function assumes to reach the cluster (another account). */
      readonly roleArn?: string | undefined;
      /** A discovered cluster's identity (use-cases/discovery.ts): another is described anew. */
      readonly identity?: string | undefined;
    };
export type ClusterSettings = Readonly<Omit<ParsedCluster, 'auth'> & { auth: ClusterAuth }>;
/** The watchdog settings the function runs with (and `watch` builds from its flags). */
export type WatchdogSettings = Readonly<
  Omit<Parsed, 'clusters'> & { clusters: readonly ClusterSettings[] }
>;

type ReadonlyDeep<T> = T extends (infer E)[]
  ? readonly ReadonlyDeep<E>[]
  : T extends object
    ? { readonly [K in keyof T]: ReadonlyDeep<T[K]> }
    : T;

/** What the `LeaseWatchdog` construct accepts (and the JSON file holds, minus the stack's fields). */
export type LeaseWatchdogConfig = ReadonlyDeep<z.input<typeof deploymentSchema>>;
export interface DeployedCluster extends ClusterSettings {
  /** Whether to create an EKS access entry (always false for kubeconfig and token clusters). */
  readonly accessEntry: boolean;
}
/** The validated construct configuration, with every default filled in. Frozen. */
export interface DeploymentConfig
  extends Omit<
    z.output<typeof deploymentSchema>,
    'clusters' | 'emails' | 'reservedConcurrency' | 'memoryMb'
  > {
  readonly clusters: readonly DeployedCluster[];
  readonly emails: readonly string[];
  readonly reservedConcurrency: number;
  /** As set, or sized from `largestClusterNodes` (function-memory.ts). */
  readonly memoryMb: number;
}
export interface AppDeploymentConfig extends DeploymentConfig {
  readonly account?: string;
  readonly region?: string;
  readonly stackName: string;
}

/** Lambda allows 4 KB for all environment variables together; keep room for the others. */
export const MAX_SETTINGS_ENV_BYTES = 3_500;

/**
 * The default `reservedConcurrency` is clusters × 2 + 1 (a check and a late one per cluster,
 * plus a manual run), at most `DEFAULTS.reservedConcurrencyCap` (200): an account has 1,000
 * concurrent executions by default and Lambda keeps 100 of them unreserved, so all reservations
 * together stay within 900, and one watchdog should not take them all. A check lasts seconds and
 * each cluster's schedule fires once a period at its own moment (from when it was created), so
 * 200 checks at once is a burst a fleet of a few hundred clusters does not reach on the
 * schedule alone; an event throttled past it waits in Lambda's queue (retried for up to one
 * period) and the ThrottlesAlarm says so.
 *
 * With a dispatcher the fleet's size is not known at synth (discovery adds clusters), so the
 * default is the cap; and the dispatch queue's event source mapping needs room for at least its
 * 2 checks at once (Lambda's least MaximumConcurrency) beside the looks and the dispatcher.
 */
const MIN_DISPATCH_CONCURRENCY = 4;

/** `dispatched`: the fleet's dispatcher runs (`dispatch`, or `discover`). */
function reservedConcurrencyOf(
  given: number | undefined,
  dispatched: boolean,
  clusters: number,
): number {
  if (given !== undefined && dispatched && given < MIN_DISPATCH_CONCURRENCY) {
    throw new ConfigError(
      `reservedConcurrency must be at least ${MIN_DISPATCH_CONCURRENCY} with dispatch or discover (the dispatch queue runs at least 2 checks at once, beside the looks and the dispatcher); got ${given}`,
    );
  }
  if (given !== undefined) return given;
  const cap = DEFAULTS.reservedConcurrencyCap;
  return dispatched ? cap : Math.min(clusters * 2 + 1, cap);
}

/**
 * `input` parsed by `schema`; a ConfigError naming the first problem when it does not fit.
 * Without zod's eval-compiled fast path (`jitless`): settings are parsed once, and compiling that
 * path for each object schema cost more than it saves (~7 ms of the Lambda's cold start).
 */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, { jitless: true });
  if (!result.success) throw firstProblem(result.error);
  return result.data;
}

/** The rules that span fields: unique names, the EKS name's default. */
function checkSettings<
  C extends ParsedCluster,
  T extends { clusters?: C[] | undefined; discover?: unknown },
>(settings: T): Omit<T, 'clusters'> & { clusters: (Omit<C, 'auth'> & { auth: ClusterAuth })[] } {
  const listed = settings.clusters ?? [];
  if (listed.length === 0 && settings.discover === undefined) {
    throw new ConfigError(
      settings.clusters === undefined
        ? `clusters is required: ${NO_CLUSTERS}`
        : `clusters must list at least one cluster to watch (it is empty), or set discover`,
    );
  }
  const seen = new Map<string, number>();
  listed.forEach((cluster, i) => {
    const first = seen.get(cluster.name);
    if (first !== undefined) {
      throw new ConfigError(
        `clusters[${i}].name "${cluster.name}" is already used by clusters[${first}]; cluster names must be unique`,
      );
    }
    seen.set(cluster.name, i);
  });
  const clusters = listed.map((cluster, i) => {
    if (cluster.auth.mode !== 'eks' || cluster.auth.clusterName !== undefined) {
      return cluster as Omit<C, 'auth'> & { auth: ClusterAuth };
    }
    // The EKS name defaults to the watchdog's name for the cluster.
    if (!PATTERNS.EKS_CLUSTER_NAME.test(cluster.name)) {
      throw new ConfigError(
        `clusters[${i}].auth.clusterName ${EKS_CLUSTER_NAME_PROBLEM(cluster.name)}`,
      );
    }
    const { mode, clusterName: _unset, ...where } = cluster.auth;
    return { ...cluster, auth: { mode, clusterName: cluster.name, ...where } };
  });
  return { ...settings, clusters };
}

/**
 * Validates watchdog settings and fills in the defaults. Throws ConfigError with one line naming
 * the field and the fix, prefixed with `where` (a file or variable name) when given.
 */
export function parseWatchdogSettings(input: unknown, where?: string): WatchdogSettings {
  return within(where, () => deepFreeze(checkSettings(parseWith(watchdogSettingsSchema, input))));
}

type ParsedDeployment = z.output<typeof deploymentSchema>;

/** Each address once (compared without case), in `emails` and in `alarmEmails` alike. */
function checkUnique(field: 'emails' | 'alarmEmails', emails: readonly string[] | undefined): void {
  const seen = new Set<string>();
  emails?.forEach((email, i) => {
    const key = email.toLowerCase();
    if (seen.has(key)) {
      throw new ConfigError(`${field}[${i}] ${shown(email)} is listed twice; remove the duplicate`);
    }
    seen.add(key);
  });
}

/** A cluster of a deployment file, its EKS name filled in (checkSettings). */
type CheckedCluster = Omit<NonNullable<ParsedDeployment['clusters']>[number], 'auth'> & {
  auth: ClusterAuth;
};

/** A cluster as the stack deploys it: whether it gets an EKS access entry, checked. */
function deployedCluster(cluster: CheckedCluster, i: number): DeployedCluster {
  if (cluster.accessEntry === true && cluster.auth.mode !== ('eks' satisfies AuthMode)) {
    throw new ConfigError(
      `clusters[${i}].accessEntry applies only to eks clusters; remove it from this ${shown(cluster.auth.mode)} cluster`,
    );
  }
  const assumed = cluster.auth.mode === 'eks' && cluster.auth.roleArn !== undefined;
  if (cluster.accessEntry === true && assumed) {
    throw new ConfigError(
      `clusters[${i}].accessEntry must be false with auth.roleArn: cluster ${cluster.name} is reached through a role of its own account, where you create the access entry (docs/DEPLOY.md, "Clusters in other accounts")`,
    );
  }
  return {
    ...cluster,
    accessEntry: cluster.auth.mode === 'eks' && !assumed && cluster.accessEntry !== false,
  };
}

/**
 * Why the stack cannot create the access entry of cluster `index` (undefined: it can):
 * CloudFormation creates an `AWS::EKS::AccessEntry` in the stack's own region only. `cdk synth`
 * (infra/cluster-access.ts) and `config validate` (parseAppConfig) ask this one question.
 */
export function accessEntryRegionProblem(
  cluster: DeployedCluster,
  index: number,
  stackRegion: string | undefined,
): string | undefined {
  const { auth, name } = cluster;
  if (!cluster.accessEntry || auth.mode !== 'eks' || auth.region === undefined) return undefined;
  if (stackRegion === undefined || auth.region === stackRegion) return undefined;
  return `clusters[${index}].accessEntry must be false: cluster ${name} is in ${auth.region} but the stack deploys to ${stackRegion}, and CloudFormation creates access entries in its own region only; set it false and, once deployed, run aws eks create-access-entry --region ${auth.region} --cluster-name ${auth.clusterName} --type STANDARD --principal-arn <the stack's FunctionRoleArn> --kubernetes-groups lease-watchdog`;
}

/** The settings but the clusters go into the function's environment, which holds 4 KB in all. */
function checkEnvironmentSize(config: DeploymentConfig): void {
  // The clusters go into the function's code (cluster-file.ts); the rest into its environment.
  const { environment } = functionSettingsOf(watchdogSettingsOf(config));
  const settingsBytes = Buffer.byteLength(environment);
  if (settingsBytes > MAX_SETTINGS_ENV_BYTES) {
    throw new ConfigError(
      `the watchdog settings other than clusters take ${settingsBytes} bytes but a Lambda environment holds 4 KB; shorten the longest of them`,
    );
  }
}

/** The rules of a deployment that span fields, on top of the watchdog settings' own. */
function checkDeployment(parsed: ParsedDeployment): DeploymentConfig {
  const settings = checkSettings<
    NonNullable<ParsedDeployment['clusters']>[number],
    ParsedDeployment
  >(parsed);
  const emails = parsed.emails ?? [];
  checkUnique('emails', emails);
  checkUnique('alarmEmails', parsed.alarmEmails);
  if (parsed.existingTopicArn === undefined && emails.length === 0) {
    throw new ConfigError(
      'emails must list at least one address to notify (or set existingTopicArn to publish to a topic you already have)',
    );
  }
  const clusters = settings.clusters.map(deployedCluster);
  const config: DeploymentConfig = {
    ...settings,
    clusters,
    emails,
    // Discovered clusters are not known at synth, and they are dispatched: as with dispatch.
    reservedConcurrency: reservedConcurrencyOf(
      parsed.reservedConcurrency,
      settings.dispatch || parsed.discover !== undefined,
      clusters.length,
    ),
    memoryMb: parsed.memoryMb ?? memoryMbFor(parsed.largestClusterNodes),
  };
  checkEnvironmentSize(config);
  return config;
}

/**
 * Validates the construct's configuration (what `new LeaseWatchdog(...)` receives) and fills in
 * the defaults. Idempotent: a parsed configuration parses to itself.
 */
export function parseDeploymentConfig(input: unknown, where?: string): DeploymentConfig {
  return within(where, () => deepFreeze(checkDeployment(parseWith(deploymentSchema, input))));
}

/** Validates a whole configuration file: the construct's configuration plus account, region, stack name. */
export function parseAppConfig(
  input: unknown,
  where?: string,
  env: Readonly<Record<string, string | undefined>> = {},
): AppDeploymentConfig {
  return within(where, () => {
    const parsed = parseWith(appSchema, input);
    const { account, region, stackName, $schema: _editorsOnly, ...deployment } = parsed;
    const config: AppDeploymentConfig = { ...checkDeployment(deployment), stackName };
    const fromEnv = (key: 'account' | 'region', name: string): string | undefined => {
      const value = env[name];
      if (value === undefined || value === '') return undefined;
      return parseWith(strictObject({ [key]: environmentFallbacks[key] }, key), { [key]: value })[
        key
      ] as string;
    };
    const resolvedAccount = account ?? fromEnv('account', 'CDK_DEPLOY_ACCOUNT');
    const resolvedRegion = region ?? fromEnv('region', 'CDK_DEPLOY_REGION');
    config.clusters.forEach((cluster, i) => {
      const problem = accessEntryRegionProblem(cluster, i, resolvedRegion);
      if (problem !== undefined) throw new ConfigError(problem);
    });
    return deepFreeze({
      ...config,
      ...(resolvedAccount === undefined ? {} : { account: resolvedAccount }),
      ...(resolvedRegion === undefined ? {} : { region: resolvedRegion }),
    });
  });
}

/** The part of the configuration the function receives as LEASE_WATCHDOG_SETTINGS. */
export function watchdogSettingsOf(config: DeploymentConfig): WatchdogSettings {
  const settings: Record<string, unknown> = {};
  for (const key of Object.keys(watchdogSettingsShape)) {
    const value = config[key as keyof DeploymentConfig];
    // An optional setting left out stays out (as parseWatchdogSettings leaves it out).
    if (value !== undefined) settings[key] = value;
  }
  settings.clusters = config.clusters.map(({ accessEntry: _stackOnly, ...cluster }) => cluster);
  return deepFreeze(settings as WatchdogSettings);
}
