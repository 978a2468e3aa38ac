/**
 * `lease-watchdog config init FILE`: writes the example deployment file (the package's
 * infra/config.example.json) to FILE, its `$schema` pointing at the package's
 * infra/config.schema.json from where FILE is — `./infra/config.schema.json` in this repository,
 * `./node_modules/lease-watchdog/infra/config.schema.json` in a project that installed the package
 * — so an editor completes and checks it; a copy of the example (`$schema: ./config.schema.json`)
 * would point nowhere once moved.
 *
 * `lease-watchdog config validate FILE [-o json]`: checks a deployment file as `cdk synth` would,
 * with the same module and the same one-line messages (lambda/adapters/config/deployment-file.ts),
 * in a fraction of a second and without the CDK. Like `amtool check-config`: exit 0 when the file
 * can be deployed, 2 when it cannot — invalid, or still holding the example's placeholder values
 * (which synthesize, but no deploy passes). `-o json` prints the effective settings, every default
 * filled in, as the stack reads them.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigFile } from '../lambda/adapters/config/deployment-file.js';
import {
  type AppDeploymentConfig,
  ConfigError,
  placeholderProblem,
} from '../lambda/settings/index.js';
import { readArgs } from './args.js';
import { EXIT_ERROR, EXIT_OK, type Io } from './io.js';
import { printableJson, sanitize } from './sanitize.js';

export const CONFIG_USAGE = [
  'Usage:',
  '  lease-watchdog config init FILE',
  '      write the example deployment file to FILE (not over an existing one), its $schema',
  '      pointing at the schema this package ships, for an editor to complete and check; then',
  '      replace its placeholder clusters and email',
  '  lease-watchdog config validate FILE [-o json]',
  '      check a deployment file (infra/config.example.json is one) as `cdk synth` does, and say',
  '      whether it can be deployed; exit 0 yes, 2 no (invalid, or placeholder values left)',
  '',
  'Options:',
  '  -o, --output json        also print the effective settings, defaults filled in',
  '  -h, --help               show this help',
].join('\n');

/** Says what is wrong on one line of stderr: exit 2. */
function fail(io: Io, message: string): number {
  io.stderr(`lease-watchdog: ${sanitize(message)}`);
  return EXIT_ERROR;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One line on what the file sets up: its clusters (and their auth modes) and its recipients. */
function summary(config: AppDeploymentConfig): string {
  const clusters = config.clusters.map((c) => `${c.name} (${c.auth.mode})`).join(', ');
  const every = config.scheduleMinutes === 1 ? 'minute' : `${config.scheduleMinutes} minutes`;
  return `${plural(config.clusters.length, 'cluster')}: ${clusters}; ${plural(config.emails.length, 'email address', 'email addresses')}; a check every ${every}`;
}

type Parsed =
  | { readonly help: true }
  | { readonly verb: 'init' | 'validate'; readonly file: string; readonly json: boolean };

function parse(argv: readonly string[]): Parsed | string {
  const parsed = readArgs(
    argv,
    { output: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
    'lease-watchdog config --help',
  );
  if (parsed.values.help) return { help: true };
  const [verb, file, ...extra] = parsed.positionals;
  if (verb !== 'validate' && verb !== 'init') {
    return verb === undefined
      ? 'config needs a subcommand: lease-watchdog config init FILE, or config validate FILE'
      : `unknown config subcommand "${verb}": config has init and validate (see lease-watchdog config --help)`;
  }
  if (file === undefined) return `config ${verb} needs a file: lease-watchdog config ${verb} FILE`;
  if (extra.length > 0) return `config ${verb} takes one file (got also "${extra.join(' ')}")`;
  const output = parsed.values.output;
  if (output !== undefined && output !== 'json') {
    return `--output must be json (got "${output}")`;
  }
  return { verb, file, json: output === 'json' };
}

/** The package's infra/ folder: one level up from cli/ in the sources, two from dist/cli-bundle/. */
function packagedInfra(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [resolve(here, '../infra'), resolve(here, '../../infra')];
  const found = candidates.find((dir) => existsSync(resolve(dir, 'config.schema.json')));
  if (found === undefined) throw new Error('the package has no infra/config.schema.json');
  return found;
}

/** Writes the example to `file`, its $schema relative to where the file is. */
function init(file: string, io: Io): number {
  if (existsSync(file)) {
    return fail(
      io,
      `${file} exists: config init writes a new file only (choose another name, or edit that one)`,
    );
  }
  const infra = packagedInfra();
  const example = JSON.parse(readFileSync(resolve(infra, 'config.example.json'), 'utf8')) as object;
  const schema = relative(dirname(resolve(file)), resolve(infra, 'config.schema.json'))
    .split(sep)
    .join('/');
  const text = JSON.stringify(
    { ...example, $schema: schema.startsWith('.') ? schema : `./${schema}` },
    null,
    2,
  );
  try {
    writeFileSync(file, `${text}\n`, { flag: 'wx' });
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return fail(io, `${file} cannot be written (${why})`);
  }
  io.stderr(
    `${sanitize(file)} written: replace its placeholder clusters and email, then lease-watchdog config validate ${sanitize(file)}`,
  );
  return EXIT_OK;
}

/** Runs `config ...`; resolves to the exit status. */
export async function config(argv: readonly string[], io: Io): Promise<number> {
  const parsed = parse(argv);
  if (typeof parsed === 'string') return fail(io, parsed);
  if ('help' in parsed) {
    io.stdout(CONFIG_USAGE);
    return EXIT_OK;
  }
  if (parsed.verb === 'init') return init(parsed.file, io);
  if (!existsSync(parsed.file)) {
    return fail(
      io,
      `${parsed.file} not found: lease-watchdog config init ${parsed.file} writes one`,
    );
  }
  let loaded: AppDeploymentConfig;
  try {
    loaded = loadConfigFile(parsed.file, io.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail(io, error.message);
  }
  if (parsed.json) io.stdout(printableJson(JSON.stringify(loaded, null, 2)));
  const problem = placeholderProblem(loaded);
  if (problem !== undefined) {
    return fail(io, `${parsed.file}: valid, but cannot be deployed: ${problem}`);
  }
  io.stderr(`${sanitize(parsed.file)}: valid, and can be deployed: ${sanitize(summary(loaded))}`);
  return EXIT_OK;
}
