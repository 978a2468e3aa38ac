import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { renderCliExample } from '../docs/cli-example.js';
import { emailsMarkdown } from '../docs/emails.js';

it('docs/EMAILS.md is what the code renders today (npm run emails rewrites it)', async () => {
  const committed = await readFile(new URL('../docs/EMAILS.md', import.meta.url), 'utf8');
  assert.equal(committed, emailsMarkdown());
});

it("the README's command-line example is what the CLI prints today (npm run docs:cli rewrites it)", async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const example = await renderCliExample();
  assert.ok(
    readme.includes(`<!-- cli-example:begin -->\n${example}\n<!-- cli-example:end -->`),
    `README.md holds:\n${example}`,
  );
});

it("the README's contents list every section, in order, with GitHub's anchors", async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const slug = (title: string) =>
    title
      .toLowerCase()
      .replace(/[^a-z0-9 -]/g, '')
      .replaceAll(' ', '-');
  const headings = [...readme.matchAll(/^(##|###) (.+)$/gm)]
    .map(([, level, title]) => ({ level, title: title ?? '' }))
    .filter((h) => h.title !== 'Contents');
  const expected = headings.map(
    (h) => `${h.level === '##' ? '' : '  '}- [${h.title}](#${slug(h.title)})`,
  );
  const start = readme.indexOf('## Contents\n\n');
  assert.ok(start >= 0, 'README.md has a Contents section');
  const after = readme.slice(start + '## Contents\n\n'.length);
  const listed = after.slice(0, after.indexOf('\n\n')).split('\n');
  assert.deepEqual(listed, expected);
});
