/**
 * The CDK app (`cdk.json`: `npx tsx infra/app.ts`). Reads the configuration file
 * (`-c config=path`, else env LEASE_WATCHDOG_CONFIG_FILE, else infra/config.example.json),
 * validates it, and synthesizes one stack checked by cdk-nag's AwsSolutions pack. The example
 * (fake clusters, oncall@example.com) is for looking at: like any configuration still holding
 * placeholder values it synthesizes, and CloudFormation refuses to deploy it
 * (placeholder-guard.ts), whichever command runs the app.
 *
 * A bad configuration fails with one line on stderr, `lease-watchdog config: <message>`, exit 1.
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { loadConfigFile } from '../lambda/adapters/config/deployment-file.js';
import { ConfigError } from '../lambda/settings/index.js';
import { buildStack } from './stack.js';

const EXAMPLE_CONFIG = fileURLToPath(new URL('./config.example.json', import.meta.url));

/** Where the configuration comes from: context `config`, then the environment, then the example. */
function configPath(app: App, env: Record<string, string | undefined>): string {
  const fromContext: unknown = app.node.tryGetContext('config');
  if (typeof fromContext === 'string' && fromContext !== '') return fromContext;
  const fromEnv = env.LEASE_WATCHDOG_CONFIG_FILE;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return relative(process.cwd(), EXAMPLE_CONFIG) || EXAMPLE_CONFIG;
}

function main(): void {
  const app = new App();
  try {
    buildStack(app, loadConfigFile(configPath(app, process.env), process.env));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`lease-watchdog config: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  app.synth();
}

main();
