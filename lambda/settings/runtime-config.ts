/**
 * The Lambda's configuration, read from its environment at cold start (runtime-environment.ts):
 * the watchdog settings the stack wrote, with the cluster file's clusters, validated by parse.ts
 * (the deployment file's own parser), and where notifications and state go. Pure: the
 * environment and the cluster file are passed in. Every problem is a ConfigError of one line
 * naming the variable and the fix.
 */
import { parseWatchdogSettings } from './parse.js';
import {
  type ClusterFileSource,
  type RuntimeConfig,
  refuseInsecureTls,
  runtimeConfigOf,
  settingsJson,
} from './runtime-environment.js';

export { type ClusterFileSource, RUNTIME_ENV, type RuntimeConfig } from './runtime-environment.js';

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
  refuseInsecureTls(env);
  const { json, where } = settingsJson(env, clusterFile);
  return runtimeConfigOf(env, parseWatchdogSettings(json, where));
}
