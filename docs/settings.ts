/**
 * `npm run docs:settings`: rewrites the README's configuration and command-line tables and
 * infra/config.schema.json from the settings module, where each setting is declared once.
 * test/settings-docs.test.ts fails when they are not current.
 */
import { readFile, writeFile } from 'node:fs/promises';
import {
  cliTable,
  configurationJsonSchema,
  configurationTable,
  replaceSection,
} from '../lambda/settings/docs.js';

const root = new URL('../', import.meta.url);

export async function renderReadme(): Promise<string> {
  const readme = await readFile(new URL('README.md', root), 'utf8');
  return replaceSection(
    replaceSection(readme, 'settings', configurationTable()),
    'cli-options',
    cliTable(),
  );
}

export function renderSchema(): string {
  return `${JSON.stringify(configurationJsonSchema(), null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await writeFile(new URL('README.md', root), await renderReadme());
  await writeFile(new URL('infra/config.schema.json', root), renderSchema());
  console.log('README.md and infra/config.schema.json rewritten from lambda/settings');
}
