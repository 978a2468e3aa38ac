/**
 * What the settings say about themselves, for people and editors: the README's configuration and
 * command-line tables, and the JSON Schema of the deployment file. Rendered from the one
 * declaration of each setting; a test keeps README.md and infra/config.schema.json current.
 */
import * as z from 'zod';
import { appSchema } from '../lambda/settings/parse.js';
import { allSettings, type SettingInfo } from '../lambda/settings/registry.js';

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** The README's table of the deployment file's fields. */
export function configurationTable(): string {
  const rows = allSettings()
    .filter((s) => s.places.includes('file'))
    .map((s) => row([`\`${s.key}\``, s.shownDefault, s.meaning]));
  return [row(['field', 'default', 'meaning']), row(['---', '---', '---']), ...rows].join('\n');
}

function flagName(s: SettingInfo): string {
  const cli = s.cli;
  if (!cli) return '';
  const value = cli.value ? ` ${cli.value.replaceAll('|', '\\|')}` : '';
  return `\`--${cli.flag}${value}\``;
}

/** The README's table of the command line's options. */
export function cliTable(): string {
  const flagged = allSettings().filter((s) => s.cli !== undefined);
  const both = flagged.filter((s) => s.cli?.commands === undefined);
  const watchOnly = flagged.filter((s) => s.cli?.commands !== undefined);
  const rows = [...both, ...watchOnly].map((s) =>
    row([flagName(s), s.cli?.shownDefault ?? s.shownDefault, s.cli?.meaning ?? s.meaning]),
  );
  return [row(['option', 'default', 'meaning']), row(['---', '---', '---']), ...rows].join('\n');
}

/** The JSON Schema of a deployment file (what `$schema` in infra/config.example.json names). */
export function configurationJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(appSchema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return {
    ...schema,
    title: 'lease-watchdog deployment configuration',
    description:
      'One deployment of lease-watchdog: the clusters to watch, who to notify, and how to judge silence. Validated again at cdk synth, with one-line errors.',
  };
}

/** Replaces the text between `<!-- name:begin -->` and `<!-- name:end -->`. */
export function replaceSection(document: string, name: string, content: string): string {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const from = document.indexOf(begin);
  const to = document.indexOf(end);
  if (from < 0 || to < from) throw new Error(`no ${begin} ... ${end} section`);
  return `${document.slice(0, from + begin.length)}\n${content}\n${document.slice(to)}`;
}
