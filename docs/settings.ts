/**
 * `npm run docs:settings`: rewrites the settings' tables and infra/config.schema.json from the
 * settings module, where each setting is declared once: the README's compact configuration table
 * (field, default, one short line), the full one in docs/CONFIGURATION.md and the command line's
 * options in docs/CLI.md. test/settings-docs.test.ts fails when they are not current.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { allSettings } from '../lambda/settings/index.js';
import { SHORT_LINES } from './settings-short-lines.js';
import {
  cliTable,
  configurationJsonSchema,
  configurationTable,
  replaceSection,
} from './settings-tables.js';

const root = new URL('../', import.meta.url);

/** The README's table: each field of the deployment file, its default and one short line. */
export function compactConfigurationTable(): string {
  const rows = allSettings()
    .filter((s) => s.places.includes('file'))
    .map((s) => {
      const line = SHORT_LINES[s.key];
      if (line === undefined)
        throw new Error(`docs/settings-short-lines.ts: no short line for ${s.key}: add one`);
      return `| \`${s.key}\` | ${s.shownDefault} | ${line} |`;
    });
  return ['| field | default | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

/**
 * A table written for the README, placed in docs/: links from the repository's root are made
 * relative to docs/ (`docs/X.md` becomes `X.md`, `deploy/…` becomes `../deploy/…`).
 */
export function fromDocs(markdown: string): string {
  return markdown.replace(/\]\((?!https?:|#)([^)]+)\)/g, (_, target: string) =>
    target.startsWith('docs/') ? `](${target.slice('docs/'.length)})` : `](../${target})`,
  );
}

async function rewritten(path: string, sections: Record<string, string>): Promise<string> {
  let text = await readFile(new URL(path, root), 'utf8');
  for (const [name, content] of Object.entries(sections))
    text = replaceSection(text, name, content);
  return text;
}

/** Each file the settings render into, as it should read: path → its text. */
export async function renderSettingsDocs(): Promise<Record<string, string>> {
  return {
    'README.md': await rewritten('README.md', { settings: compactConfigurationTable() }),
    'docs/CONFIGURATION.md': await rewritten('docs/CONFIGURATION.md', {
      settings: fromDocs(configurationTable()),
    }),
    'docs/CLI.md': await rewritten('docs/CLI.md', { 'cli-options': fromDocs(cliTable()) }),
  };
}

export function renderSchema(): string {
  return `${JSON.stringify(configurationJsonSchema(), null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [path, text] of Object.entries(await renderSettingsDocs()))
    await writeFile(new URL(path, root), text);
  await writeFile(new URL('infra/config.schema.json', root), renderSchema());
  console.log(
    'README.md, docs/CONFIGURATION.md, docs/CLI.md and infra/config.schema.json rewritten from lambda/settings',
  );
}
