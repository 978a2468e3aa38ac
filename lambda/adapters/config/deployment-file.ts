/**
 * The deployment file: read it and validate it with the settings module (lambda/settings), the
 * one definition of every setting, for the CDK app (infra/app.ts) and `lease-watchdog config
 * validate` alike, so both say the same. Every problem is a ConfigError whose message is one line naming
 * the file, the field and the fix.
 */
import { readFileSync } from 'node:fs';
import { type AppDeploymentConfig, ConfigError, parseAppConfig } from '../../settings/index.js';

/** Reads and validates a configuration file. */
export function loadConfigFile(
  path: string,
  env: Readonly<Record<string, string | undefined>> = {},
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
