/**
 * The settings describe themselves: the README's compact configuration table, the full one in
 * docs/CONFIGURATION.md, the command line's options in docs/CLI.md and the JSON Schema of the
 * deployment file are rendered from the one declaration of each setting, and must be current
 * (`npm run docs:settings` rewrites them).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { USAGE } from '../cli/args.js';
import { renderSchema, renderSettingsDocs } from '../docs/settings.js';
import { allSettings, parseAppConfig } from '../lambda/settings/index.js';

const root = new URL('../', import.meta.url);
const read = (path: string) => readFile(new URL(path, root), 'utf8');

describe('settings documentation', () => {
  it('README.md, docs/CONFIGURATION.md and docs/CLI.md hold the tables the settings render (npm run docs:settings)', async () => {
    const rendered = Object.entries(await renderSettingsDocs());
    assert.deepEqual(
      rendered.map(([path]) => path),
      ['README.md', 'docs/CONFIGURATION.md', 'docs/CLI.md'],
    );
    for (const [path, text] of rendered) assert.equal(await read(path), text, path);
  });

  it('infra/config.schema.json is the schema the settings render', async () => {
    assert.equal(await read('infra/config.schema.json'), renderSchema());
  });

  it('names every deployment-file setting in the schema, with its description', () => {
    const schema = JSON.parse(renderSchema()) as {
      properties: Record<string, { description?: string; items?: { properties: object } }>;
    };
    const clusterFields = schema.properties.clusters?.items?.properties as Record<
      string,
      { description?: string }
    >;
    const fileSettings = allSettings().filter((s) => s.places.includes('file'));
    assert.ok(fileSettings.length >= 20, `${fileSettings.length} settings`);
    for (const s of fileSettings) {
      const [top, field] = s.key.replace(/\[\]$/, '').split('[].');
      const entry = field === undefined ? schema.properties[top ?? ''] : clusterFields[field];
      assert.ok(entry, `${s.key} is in the schema`);
      assert.ok(entry.description, `${s.key} has a description`);
    }
  });

  it('the example file names the schema and is valid', async () => {
    const example = JSON.parse(await read('infra/config.example.json')) as { $schema?: string };
    assert.equal(example.$schema, './config.schema.json');
    assert.equal(parseAppConfig(example).clusters.length, 2);
  });

  it('every command-line option of the settings is in --help, with its default', () => {
    for (const s of allSettings().filter((x) => x.cli !== undefined)) {
      assert.match(USAGE, new RegExp(`--${s.cli?.flag}\\b`), `--${s.cli?.flag} in --help`);
      if (typeof s.defaultValue === 'number') {
        const line = USAGE.split('\n').find((l) => l.includes(`--${s.cli?.flag} `)) ?? '';
        assert.match(line, new RegExp(`default: ${s.defaultValue}\\)`), line);
      }
    }
  });
});
