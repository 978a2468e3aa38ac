/**
 * The watchdog function with its baked-in defaults (ARM64, Node 24 ESM bundle, explicit timeout and
 * memory, tracing), its own log group, and a role that may write to that log group only. Everything
 * else the role may do is granted by the resources it uses (`grantPublish`, `grantStateAccess`, …).
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AssetHashType,
  DockerImage,
  Duration,
  RemovalPolicy,
  Stage,
  Validations,
} from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import {
  type BundlingOptions,
  type ICommandHooks,
  NodejsFunction,
  OutputFormat,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { heapOptionsFor, MALLOC_TUNABLES } from '../lambda/settings/function-memory.js';
import {
  CLUSTER_FILE,
  ConfigError,
  type DeploymentConfig,
  functionSettingsOf,
  RUNTIME_ENV,
  watchdogSettingsOf,
} from '../lambda/settings/index.js';
import { KUBE_AUTH_BUNDLING, stagedKubeAuth } from './kube-auth-bundle.js';
import { placeInVpc, type VpcPlacement } from './vpc-placement.js';

/** Time allowed for one check (list leases and nodes, decide, publish, save). */
export const CHECK_BUDGET_SECONDS = 45;

/** The handler the stack bundles: the same module the tests exercise. */
export const DEFAULT_ENTRY = fileURLToPath(
  new URL('../lambda/handler/handler.ts', import.meta.url),
);

/**
 * What the bundle gets for packages client-node imports at load but the Lambda never uses (esbuild
 * `--alias`): a module that throws if used. See that file for which and why.
 */
const ABSENT = besideThisFile('absent-in-lambda');

/** Left out of the bundle: undici, the proxy agents (an http:// proxy-url is our own CONNECT tunnel; others are refused), the azure/gcp auth's. */
const LEFT_OUT = ['undici', 'socks-proxy-agent', 'socks', 'hpagent', 'jsonpath-plus'];

/** What the bundle gets for `node:http`: Node's module by `require` (see that file for why). */
const NODE_HTTP_REQUIRED = besideThisFile('node-http-required');

/** `name`.ts next to this file (the repository), else `name`.js (the installed package). */
function besideThisFile(name: string): string | undefined {
  return [`${name}.ts`, `${name}.js`]
    .map((file) => fileURLToPath(new URL(file, import.meta.url)))
    .find((file) => existsSync(file));
}

/**
 * The installed package has no TypeScript sources: it ships the handler bundled from
 * `DEFAULT_ENTRY` by this very construct when it was packed (`npm pack` runs
 * infra/handler-bundle.ts), next to the compiled construct (`dist/handler-bundle`).
 */
export const PREBUILT_HANDLER = fileURLToPath(new URL('../handler-bundle', import.meta.url));

/**
 * Context key: a folder holding an already bundled handler (`index.mjs`), such as the one
 * `npm run bundle` writes to dist/handler-bundle, deployed instead of bundling `DEFAULT_ENTRY`, as
 * the installed package deploys its own. A synth that is not about the bundling (the tests of a
 * fleet's templates) is spared an esbuild run; `entry`, when given, is still bundled.
 */
export const HANDLER_BUNDLE_CONTEXT = 'lease-watchdog:handler-bundle';

/**
 * The code: `entry` (default `DEFAULT_ENTRY`) bundled by esbuild, else the shipped bundle (or the
 * one `HANDLER_BUNDLE_CONTEXT` names); either way with the cluster file
 * (lambda/settings/cluster-file.ts) next to the handler. The file's text is written once into the
 * cloud assembly's directory at synth and copied into the code (esbuild's `afterBundling` hook; a
 * local "bundling" that copies the shipped bundle), so it is part of the asset's hash: a cluster
 * added or removed is a code update of the same deploy.
 */
function handlerCode(
  scope: Construct,
  entry: string | undefined,
  clusterFile: string,
):
  | { entry: string; handler: string; bundling: { commandHooks: ICommandHooks } }
  | { code: lambda.Code; handler: string } {
  const source = stagedClusterFile(scope, clusterFile);
  const outdir = Stage.of(scope)?.outdir as string;
  const bundled: unknown = scope.node.tryGetContext(HANDLER_BUNDLE_CONTEXT);
  if (entry === undefined && typeof bundled === 'string' && bundled !== '') {
    if (!existsSync(join(bundled, 'index.mjs'))) {
      throw new ConfigError(
        `context ${HANDLER_BUNDLE_CONTEXT}: ${bundled} holds no index.mjs (npm run bundle writes dist/handler-bundle)`,
      );
    }
    return bundledCode(bundled, clusterFile);
  }
  if (entry !== undefined || existsSync(DEFAULT_ENTRY)) {
    return {
      entry: entry ?? DEFAULT_ENTRY,
      handler: 'handler',
      bundling: {
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_input: string, output: string) => [
            `cp ${shellQuoted(source)} ${shellQuoted(join(output, CLUSTER_FILE))}`,
            `cp ${stagedKubeAuth({ outdir, ...BUNDLING_SHARED, alias: handlerAliases() })
              .map(shellQuoted)
              .join(' ')} ${shellQuoted(output)}`,
          ],
        },
      },
    };
  }
  if (existsSync(PREBUILT_HANDLER)) return bundledCode(PREBUILT_HANDLER, clusterFile);
  throw new ConfigError(
    `the watchdog's handler is neither at ${DEFAULT_ENTRY} nor bundled at ${PREBUILT_HANDLER}: reinstall lease-watchdog, or pass entry`,
  );
}

/** The handler bundled already in `dir`, copied with the cluster file beside it. */
function bundledCode(dir: string, clusterFile: string): { code: lambda.Code; handler: string } {
  const code = lambda.Code.fromAsset(dir, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never used: the local copy below always succeeds (no Docker at synth).
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/busybox'),
      local: {
        tryBundle(output: string): boolean {
          cpSync(dir, output, { recursive: true });
          writeFileSync(join(output, CLUSTER_FILE), clusterFile);
          return true;
        },
      },
    },
  });
  return { code, handler: 'index.handler' };
}

/** Writes the cluster file's text into the cloud assembly's directory; returns its path. */
function stagedClusterFile(scope: Construct, text: string): string {
  const dir = Stage.of(scope)?.outdir;
  if (dir === undefined) throw new ConfigError('the LeaseWatchdog construct must be in a CDK App');
  mkdirSync(dir, { recursive: true });
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const path = join(dir, `lease-watchdog-clusters.${hash}.json`);
  writeFileSync(path, text);
  return path;
}

function shellQuoted(path: string): string {
  return `'${path.replaceAll("'", "'\\''")}'`;
}

/** esbuild emits ESM; some dependencies still call `require`: define it from the module URL. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __lwCreateRequire } from 'node:module'; const require = __lwCreateRequire(import.meta.url);";

/** Seconds the function may run: one check (CHECK_BUDGET_SECONDS), rounded up to a minute. */
export const FUNCTION_TIMEOUT_SECONDS = 60;

export interface WatchdogFunction {
  readonly function: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
}

/** What the handler's bundle and kube-auth.mjs (kube-auth-bundle.ts) share: ESM for Node 24. */
const BUNDLING_SHARED = {
  target: 'node24',
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
};

/**
 * esbuild aliases: undici and others left out (850 kB, 40 % of the bundle and of its import) and
 * node:http required, not imported (docs/BENCHMARKS.md, cold start). Also how `npm run bench`
 * builds its subject, so that it measures the code the function runs.
 */
export function handlerAliases(): Record<string, string> {
  if (!ABSENT || !NODE_HTTP_REQUIRED) return {};
  return {
    ...Object.fromEntries(LEFT_OUT.map((name) => [name, ABSENT])),
    'node:http': NODE_HTTP_REQUIRED,
    http: NODE_HTTP_REQUIRED,
  };
}

/**
 * How esbuild bundles the handler: minified ESM for Node 24, the pinned AWS SDK inside, the
 * packages the Lambda never uses left out, client-node's KubeConfig in a file of its own.
 */
const BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  minify: true,
  // Shipped next to the bundle, not loaded (no --enable-source-maps): a minified stack trace
  // from the logs maps back to file and line offline. Without the sources' text: 1.9 MB.
  sourceMap: true,
  sourcesContent: false,
  ...BUNDLING_SHARED,
  // Bundle the pinned AWS SDK too: the deployed code is the code the tests ran. Only
  // kube-auth.mjs stays out, the file beside the bundle (kube-auth-bundle.ts).
  externalModules: [KUBE_AUTH_BUNDLING.external],
  esbuildArgs: {
    '--alias': [
      ...Object.entries(handlerAliases()).map(([name, file]) => `${name}=${file}`),
      KUBE_AUTH_BUNDLING.alias,
    ],
  },
  forceDockerBundling: false,
};

/**
 * Creates, in the given scope, the log group (`LogGroup`), the role (`FunctionRole`), and the
 * function (`Function`) with its global settings in the environment and its clusters in its code,
 * in the VPC when placed in one.
 */
export function createWatchdogFunction(
  scope: Construct,
  config: DeploymentConfig,
  entry: string | undefined,
  placement?: VpcPlacement,
): WatchdogFunction {
  const logGroup = new logs.LogGroup(scope, 'LogGroup', {
    retention: config.logRetentionDays as logs.RetentionDays,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const role = functionRole(scope, logGroup);
  const vpcPlacement = placeInVpc(placement, role);
  const settings = functionSettingsOf(watchdogSettingsOf(config));
  const code = handlerCode(scope, entry, settings.clusterFile);

  const fn = new NodejsFunction(scope, 'Function', {
    description: 'lease-watchdog: checks node Leases and notifies when a node stops heart-beating',
    ...code,
    runtime: lambda.Runtime.NODEJS_24_X,
    architecture: lambda.Architecture.ARM_64,
    memorySize: config.memoryMb,
    timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
    reservedConcurrentExecutions: config.reservedConcurrency,
    // The schedule is the retry: the next tick checks again, and the Errors alarm reports the
    // failure. A throttled event older than one period is superseded by the next tick: drop it.
    retryAttempts: 0,
    maxEventAge: Duration.minutes(config.scheduleMinutes),
    role,
    logGroup,
    tracing: lambda.Tracing.ACTIVE,
    ...vpcPlacement,
    // NODE_OPTIONS without --enable-source-maps: Node would read and parse the 1.9 MB map at every
    // cold start, ~20 % of the import (docs/BENCHMARKS.md, cold start). The map is still shipped.
    environment: {
      // The clusters are in the code (CLUSTER_FILE): the environment holds 4 KB in all.
      [RUNTIME_ENV.settings]: settings.environment,
      // The heap's sizes (lambda/settings/function-memory.ts), which the bench runs with too.
      NODE_OPTIONS: heapOptionsFor(config.memoryMb).join(' '),
      // glibc's malloc, fixed rather than adaptive: ~50 MB less at 100,000 nodes (function-memory.ts).
      GLIBC_TUNABLES: MALLOC_TUNABLES,
    },
    bundling: { ...('bundling' in code ? code.bundling : {}), ...BUNDLING },
  });
  grantInstanceEvidence(role);
  return { function: fn, role, logGroup };
}

/**
 * The function's role (`FunctionRole`), which may write to the given log group: instead of
 * AWSLambdaBasicExecutionRole (logs on every group), this log group only.
 */
function functionRole(scope: Construct, logGroup: logs.ILogGroup): iam.Role {
  const role = new iam.Role(scope, 'FunctionRole', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: 'lease-watchdog function: reads the configured clusters, keeps state, notifies',
  });
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'WriteOwnLogs',
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }),
  );
  return role;
}

/**
 * Evidence at alert time (lambda/adapters/evidence/instance-evidence.ts): EC2's word on a FIRING's
 * instances, read-only; and cdk-nag told why the role has statements on Resource "*".
 */
function grantInstanceEvidence(role: iam.Role): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'ReadInstanceEvidence',
      actions: ['ec2:DescribeInstanceStatus', 'ec2:DescribeInstances'],
      resources: ['*'],
    }),
  );
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'Active X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, so AWS requires Resource "*"; so do ec2:DescribeInstanceStatus and ec2:DescribeInstances (read-only, the EC2 evidence of a FIRING), and eks:ListClusters (discovery, with `discover`). Every other statement names its resource.',
  });
}
