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
