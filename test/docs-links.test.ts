/**
 * Every relative link in README.md and docs/*.md leads somewhere: the file exists and, when the
 * link names an anchor of a Markdown file, that file has the heading (GitHub's anchor of it). Text
 * moves between the README and docs/; this is what keeps a moved section's links alive.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replaceAll(' ', '-');
}

/** The text outside fenced code blocks, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

function anchors(file: string): Set<string> {
  const text = prose(readFileSync(file, 'utf8'));
  const headings = [...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] ?? ''));
  const named = [...text.matchAll(/<a (?:name|id)="([^"]+)"/g)].map((m) => m[1] ?? '');
  return new Set([...headings, ...named]);
}

function links(file: string): string[] {
  const text = prose(readFileSync(file, 'utf8'));
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z]+:/.test(target));
}

const documents = [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name)),
];

it('every relative link in README.md and docs/*.md names a file and a heading that exist', () => {
  const broken: string[] = [];
  for (const file of documents) {
    for (const target of links(file)) {
      const [path = '', anchor] = target.split('#');
      const to = path === '' ? file : join(dirname(file), decodeURIComponent(path));
      const where = `${relative(root, file)}: ${target}`;
      if (!existsSync(to)) broken.push(`${where} (no such file)`);
      else if (anchor !== undefined && to.endsWith('.md') && !anchors(to).has(anchor))
        broken.push(`${where} (no such heading in ${relative(root, to)})`);
    }
  }
  assert.deepEqual(broken, []);
});
