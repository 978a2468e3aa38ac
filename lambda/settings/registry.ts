/**
 * The registry of settings: every setting is declared once with `setting()`, which returns its
 * schema (with its default and description attached) and records what the README's tables, the
 * JSON Schema and the CLI's flags need to know about it.
 */
import type { z } from 'zod';
import type { CliFlag } from './cli-flags.js';

/** Where a setting can be given. */
export type Place = 'file' | 'lambda' | 'cli';

export interface SettingInfo {
  /** `gracePeriodSeconds`, `clusters[].namespace`, or the flag for a CLI-only option. */
  readonly key: string;
  readonly places: readonly Place[];
  /** How the default reads in the tables (`50`, `required`, `clusters × 2 + 1`). */
  readonly shownDefault: string;
  /** Markdown: what docs/CONFIGURATION.md says it means (links from the repository's root). */
  readonly meaning: string;
  /** The value it takes when not given, when there is one default for every context. */
  readonly defaultValue?: unknown;
  readonly cli?: CliFlag;
  /** Validates a value (the flag value once converted, for CLI options). */
  readonly schema: z.ZodType;
}

const registry: SettingInfo[] = [];

/** Every declared setting, in declaration order (the order of the README's tables). */
export function allSettings(): readonly SettingInfo[] {
  return registry;
}

/** Plain text for a JSON Schema description or `--help`: Markdown backticks and links removed. */
export function plain(markdown: string): string {
  return markdown
    .replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')
    .replaceAll('`', '')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface SettingDeclaration<S extends z.ZodType>
  extends Omit<SettingInfo, 'schema' | 'shownDefault' | 'places'> {
  readonly schema: S;
  /** Default: the default value as written; `off` without one (or for a switch). */
  readonly shownDefault?: string;
  /** Default: the deployment file and the Lambda, and the command line when it has a `cli` flag. */
  readonly places?: readonly Place[];
}

/** Records a setting and returns its schema described for the JSON Schema. */
export function setting<S extends z.ZodType>(declaration: SettingDeclaration<S>): S {
  const schema = declaration.schema.meta({ description: plain(declaration.meaning) }) as S;
  // A flag's default is its setting's.
  const defaultValue = declaration.defaultValue ?? declaration.cli?.defaultValue;
  const off = defaultValue === undefined || defaultValue === false;
  const shownDefault = declaration.shownDefault ?? (off ? 'off' : String(defaultValue));
  const everywhere: Place[] = declaration.cli ? ['file', 'lambda', 'cli'] : ['file', 'lambda'];
  const places = declaration.places ?? everywhere;
  registry.push({ ...declaration, defaultValue, places, shownDefault, schema });
  return schema;
}
