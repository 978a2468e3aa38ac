/** The README's `-l` / `-o wide` / `-o yaml` example is what the CLI prints today. */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { renderSelectorExample } from '../docs/cli-example.js';

it("the README's -l, -o wide and -o yaml example is what the CLI prints today (npm run docs:cli rewrites it)", async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const example = await renderSelectorExample();
  assert.match(example, /NODE-GROUP/);
  assert.ok(
    readme.includes(
      `<!-- cli-selector-example:begin -->\n${example}\n<!-- cli-selector-example:end -->`,
    ),
    `README.md holds:\n${example}`,
  );
});
