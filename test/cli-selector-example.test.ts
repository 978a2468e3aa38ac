/** docs/CLI.md's `-l` / `-o wide` / `-o yaml` example is what the CLI prints today. */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { renderSelectorExample } from '../docs/cli-example.js';

it("docs/CLI.md's -l, -o wide and -o yaml example is what the CLI prints today (npm run docs:cli rewrites it)", async () => {
  const doc = await readFile(new URL('../docs/CLI.md', import.meta.url), 'utf8');
  const example = await renderSelectorExample();
  assert.match(example, /NODE-GROUP/);
  assert.ok(
    doc.includes(
      `<!-- cli-selector-example:begin -->\n${example}\n<!-- cli-selector-example:end -->`,
    ),
    `docs/CLI.md holds:\n${example}`,
  );
});
