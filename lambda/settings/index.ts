/**
 * The watchdog's settings: each declared once (catalogue.ts, clusters.ts), parsed once at the
 * edge (parse.ts; the Lambda's environment by runtime-config.ts), turned into the core's
 * policies in one place (policies.ts).
 */
export { CLUSTER_FILE, type FunctionSettings, functionSettingsOf } from './cluster-file.js';
export { AUTH_MODES, type AuthMode } from './clusters.js';
export { DEFAULTS } from './defaults.js';
export { type DiscoverSettings, KUBERNETES_GROUP } from './discovery.js';
export { ConfigError } from './errors.js';
export {
  type AppDeploymentConfig,
  type ClusterAuth,
  type ClusterSettings,
  DEFAULT_CONCURRENCY_CAP,
  type DeployedCluster,
  type DeploymentConfig,
  type LeaseWatchdogConfig,
  MAX_SETTINGS_ENV_BYTES,
  parseAppConfig,
  parseDeploymentConfig,
  parseWatchdogSettings,
  type StormSettings,
  type WatchdogSettings,
  watchdogSettingsOf,
} from './parse.js';
export { PATTERNS } from './patterns.js';
export { type Placeholder, placeholderProblem, placeholdersIn } from './placeholders.js';
export {
  type ClusterPolicies,
  DEFAULT_ALERT_POLICY,
  DEFAULT_POLICIES,
  DEFAULT_POLICY,
  policiesOf,
} from './policies.js';
export { allSettings, type CliFlag, type Place, type SettingInfo } from './registry.js';
export {
  type ClusterFileSource,
  loadRuntimeConfig,
  RUNTIME_ENV,
  type RuntimeConfig,
} from './runtime-config.js';
