/**
 * The watchdog's settings: each declared once (catalogue.ts, clusters.ts), parsed once at the
 * edge (parse.ts; the Lambda's environment by runtime-config.ts), turned into the core's
 * policies in one place (policies.ts).
 */
export { CLUSTER_FILE, functionSettingsOf } from './cluster-file.js';
export { DEFAULTS } from './defaults.js';
export { type DiscoverSettings, KUBERNETES_GROUP } from './discovery.js';
export { ConfigError } from './errors.js';
export {
  type AppDeploymentConfig,
  type ClusterAuth,
  type ClusterSettings,
  type DeployedCluster,
  type DeploymentConfig,
  type LeaseWatchdogConfig,
  parseAppConfig,
  parseDeploymentConfig,
  parseWatchdogSettings,
  type WatchdogSettings,
  watchdogSettingsOf,
} from './parse.js';
export { PATTERNS } from './patterns.js';
export { placeholderProblem, placeholdersIn } from './placeholders.js';
export { DEFAULT_ALERT_POLICY, DEFAULT_POLICY, policiesOf } from './policies.js';
export { allSettings } from './registry.js';
export { loadRuntimeConfig, RUNTIME_ENV, type RuntimeConfig } from './runtime-config.js';
