import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { emailsMarkdown } from '../docs/emails.js';

it('docs/EMAILS.md is what the code renders today (npm run emails rewrites it)', async () => {
  const committed = await readFile(new URL('../docs/EMAILS.md', import.meta.url), 'utf8');
  assert.equal(committed, emailsMarkdown());
});
