/**
 * The README is what a new user reads in ten minutes, in the order they need it: what it is, a
 * quick start, how it decides, deploy, operate, configure, develop, under a table of contents,
 * in about 3,000 words (counted as `wc -w` counts them). The rest lives in docs/, linked, and
 * within its own limits.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { parseAppConfig } from '../lambda/settings/index.js';

const readme = readFile(new URL('../README.md', import.meta.url), 'utf8');

it('the README has the sections a new user needs, in their order', async () => {
  const sections = [...(await readme).matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  assert.deepEqual(sections, [
    'Contents',
    'Quick start',
    'How it decides',
    'Deploy',
    'Operate',
    'Configuration',
    'Develop',
  ]);
});

it('the README is at most 3,000 words', async () => {
  const words = (await readme).split(/\s+/).filter((w) => w !== '').length;
  assert.ok(words <= 3000, `README.md has ${words} words`);
});

it('docs/ holds at most 30,000 words, docs/BENCHMARKS.md at most 5,000 (issue 40)', async () => {
  const { readdir } = await import('node:fs/promises');
  const folder = new URL('../docs/', import.meta.url);
  const pages = (await readdir(folder)).filter((name) => name.endsWith('.md'));
  const words = async (name: string) =>
    (await readFile(new URL(name, folder), 'utf8')).split(/\s+/).filter((w) => w !== '').length;
  const counts = await Promise.all(pages.map(words));
  const total = counts.reduce((sum, n) => sum + n, 0);
  assert.ok(total <= 30_000, `docs/*.md hold ${total} words`);
  const benchmarks = counts[pages.indexOf('BENCHMARKS.md')] ?? 0;
  assert.ok(benchmarks > 0 && benchmarks <= 5_000, `docs/BENCHMARKS.md has ${benchmarks} words`);
});

it('Deploy is numbered steps from zero, with the cluster-side set-up of each auth mode', async () => {
  const text = await readme;
  const deploy = text.slice(text.indexOf('\n## Deploy\n'), text.indexOf('\n## Operate\n'));
  const steps = [...deploy.matchAll(/^(\d+)\. \*\*/gm)].map((m) => Number(m[1]));
  assert.ok(steps.length >= 5, `Deploy has ${steps.length} numbered steps`);
  assert.deepEqual(
    steps,
    steps.map((_, i) => i + 1),
  );
  for (const needed of ['access entr', 'aws-auth', 'deploy/rbac.yaml', 'deploy/token.yaml'])
    assert.ok(deploy.includes(needed), `Deploy says ${needed}`);
});

it("Deploy's configurations are valid deployment files: discovery first, the explicit list second", async () => {
  const text = await readme;
  const deploy = text.slice(text.indexOf('\n## Deploy\n'));
  const blocks = [...deploy.matchAll(/```json\n([\s\S]*?)\n\s*```/g)].map((m) => m[1] ?? '');
  assert.ok(blocks.length >= 2, 'Deploy shows two configurations');
  const [discovering, listing] = blocks.slice(0, 2).map((b) => parseAppConfig(JSON.parse(b)));
  assert.deepEqual(discovering?.clusters, []);
  assert.deepEqual(discovering?.discover?.tags, { 'lease-watchdog': 'on' });
  assert.deepEqual(
    listing?.clusters.map((c) => [c.name, c.auth.mode]),
    [['prod-eu', 'eks']],
  );
});

it("Operate names every alarm of docs/OPERATE.md's table", async () => {
  const text = await readme;
  const operate = text.slice(text.indexOf('\n## Operate\n'), text.indexOf('\n## Configuration\n'));
  const table = await readFile(new URL('../docs/OPERATE.md', import.meta.url), 'utf8');
  const alarms = [...table.matchAll(/^\| `<stackName>-([A-Za-z]+)/gm)].map((m) => m[1] ?? '');
  assert.ok(alarms.length >= 8, `docs/OPERATE.md's table has ${alarms.length} alarms`);
  for (const alarm of alarms) assert.ok(operate.includes(alarm), `Operate names ${alarm}`);
});
