/**
 * The README's cost table quotes docs/COST.md (rewritten by `npm run bench:cost`): the two must
 * say the same, so that a re-run of the bench that moves a figure fails here until the README
 * follows.
 */

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';

const root = new URL('../', import.meta.url);

/** The money cells of COST.md's row starting with `label`, by column (100, 1,000, 5,000, 100,000 nodes). */
function costRow(cost: string, label: string): string[] {
  const line = cost.split('\n').find((l) => l.replaceAll('*', '').startsWith(`| ${label} |`));
  assert.ok(line, `COST.md has a "${label}" row`);
  return line
    .split('|')
    .slice(2, -1)
    .map((cell) => cell.replaceAll('*', '').trim());
}

describe("the README's cost table", () => {
  it("quotes the variable totals, and with the dead-man's switch, of docs/COST.md at 1,000, 5,000 and 100,000 nodes", async () => {
    const [readme, cost] = await Promise.all([
      readFile(new URL('README.md', root), 'utf8'),
      readFile(new URL('docs/COST.md', root), 'utf8'),
    ]);
    const header = costRow(cost, 'per cluster-month');
    const variable = costRow(cost, 'variable total (the goal)');
    const allIn = costRow(cost, "with its dead-man's switch");
    const from = readme.indexOf('### What it costs\n');
    assert.ok(from >= 0, 'README.md has a "What it costs" section');
    const section = readme.slice(from, readme.indexOf('\n## ', from));
    for (const nodes of ['1,000', '5,000', '100,000']) {
      const column = header.indexOf(`${nodes} nodes`);
      assert.ok(column >= 0, `COST.md has a ${nodes}-node column`);
      const row = `| ${nodes} | ${variable[column]} | ${allIn[column]} |`;
      assert.ok(section.includes(row), `the README's "What it costs" section has ${row}`);
    }
    const [oneCluster] = costRow(cost, 'the whole bill');
    assert.ok(
      section.includes(`**${oneCluster} a month**`),
      `the README's whole bill is ${oneCluster}`,
    );
  });
});
