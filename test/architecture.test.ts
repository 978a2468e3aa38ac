/**
 * The house's layers, read from its folders and checked on the import graph so that they cannot
 * drift (README, "Develop"):
 *
 *   lambda/core/       the rules: pure (no I/O, no clock, no environment)
 *   lambda/settings/   every setting once; depends only on the core
 *   lambda/ports/      what the use cases need from outside
 *   lambda/use-cases/  the check cycle and what runs it; ports, never adapters
 *   lambda/adapters/   the ports' implementations (kube, state, notify, evidence, looks, metrics)
 *   lambda/handler/    the Lambda's composition root and the module Lambda loads
 *   cli/               the command's composition root and its commands
 *   infra/             the CDK construct and app
 *   sim/ testkit/      the simulated cluster; the local stand-ins tests, benches and docs share
 *   test/ bench/ docs/ what uses all of the above; nothing imports them (but tests run docs/)
 *
 * A folder is its layer: a new file is checked by where it is put, not by a list of names. And
 * package.json's `dependencies` are what the shipped folders import at run time, no more.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|js)$/.test(entry.name) ? [path] : [];
  });
}

/** Project modules each module imports (relative imports, static and dynamic), as paths from the root. */
function importGraph(dirs: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const specifier =
    /^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/gms;
  for (const file of dirs.flatMap(sources)) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = [...text.matchAll(specifier)].map((m) =>
      normalize(join(dirname(file), (m[1] ?? m[2] ?? '').replace(/\.js$/, '.ts'))),
    );
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

const FOLDERS = ['lambda', 'cli', 'infra', 'sim', 'testkit', 'test', 'bench', 'docs'];
const graph = importGraph(FOLDERS);

/** A module's layer: its folder under lambda/, else its top-level folder. */
function layer(file: string): string {
  const [top, sub] = file.split('/');
  return top === 'lambda' ? `lambda/${sub}` : (top ?? '');
}

const PRODUCT = [
  'lambda/core',
  'lambda/settings',
  'lambda/ports',
  'lambda/use-cases',
  'lambda/adapters',
  'lambda/handler',
  'cli',
  'infra',
];

/** What each layer may import (itself included). */
const ALLOWED: Record<string, readonly string[]> = {
  'lambda/core': ['lambda/core'],
  'lambda/settings': ['lambda/settings', 'lambda/core'],
  'lambda/ports': ['lambda/ports', 'lambda/settings', 'lambda/core'],
  'lambda/use-cases': ['lambda/use-cases', 'lambda/ports', 'lambda/settings', 'lambda/core'],
  'lambda/adapters': ['lambda/adapters', 'lambda/ports', 'lambda/settings', 'lambda/core'],
  'lambda/handler': [
    'lambda/handler',
    'lambda/use-cases',
    'lambda/adapters',
    'lambda/ports',
    'lambda/settings',
    'lambda/core',
  ],
  cli: [
    'cli',
    'lambda/use-cases',
    'lambda/adapters',
    'lambda/ports',
    'lambda/settings',
    'lambda/core',
  ],
  infra: ['infra', 'lambda/adapters', 'lambda/settings'],
  // The simulated cluster parses label selectors as the watchdog does; its demo runs the command.
  sim: ['sim', 'lambda/core', 'cli'],
  testkit: ['testkit', 'sim', ...PRODUCT],
  // Tests also run the docs' generators, to keep the docs current.
  test: ['test', 'testkit', 'sim', 'docs', ...PRODUCT],
  bench: ['bench', 'testkit', 'sim', ...PRODUCT],
  docs: ['docs', 'testkit', 'sim', ...PRODUCT],
};

/** Modules that render text for people: pure, like the core (no I/O, no SDK, no clock). */
const PURE = ['lambda/core/', 'lambda/adapters/notify/render/'];

describe('architecture', () => {
  it('has the modules it is checked on, each in a folder that is a layer', () => {
    assert.ok(graph.size > 200, `${graph.size} modules`);
    assert.equal(layer('lambda/use-cases/check-cycle.ts'), 'lambda/use-cases');
    const unplaced = [...graph.keys()].filter((file) => ALLOWED[layer(file)] === undefined);
    assert.deepEqual(
      unplaced,
      [],
      'every module lies in a layer (a folder of lambda/, or a top-level one)',
    );
  });

  it('imports only downwards: core ← settings ← ports ← use cases, adapters ← composition roots', () => {
    const wrong: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        if (!graph.has(target)) continue;
        if (!ALLOWED[layer(file)]?.includes(layer(target))) {
          wrong.push(`${file} (${layer(file)}) imports ${target} (${layer(target)})`);
        }
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('has no import cycle', () => {
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'visiting');
      for (const target of graph.get(file) ?? []) {
        if (graph.has(target)) visit(target, [...path, file]);
      }
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    assert.deepEqual(cycles, []);
  });

  it('keeps the core and the renderers free of I/O, clocks, the environment and the SDKs', () => {
    const impure: string[] = [];
    for (const file of graph.keys()) {
      if (!PURE.some((folder) => file.startsWith(folder))) continue;
      const text = readFileSync(join(root, file), 'utf8');
      for (const bad of [
        /Date\.now\(\)/,
        /new Date\(\)/,
        /process\.env/,
        /from 'node:(fs|net|http|https|child_process)/,
        /from '@aws-sdk\//,
        /from '@kubernetes\//,
      ]) {
        if (bad.test(text)) impure.push(`${file}: ${bad}`);
      }
    }
    assert.deepEqual(impure, []);
  });

  it('lets infra/ read the metric names without loading Powertools', () => {
    const reached = new Set<string>();
    const visit = (file: string): void => {
      if (reached.has(file) || !graph.has(file)) return;
      reached.add(file);
      for (const target of graph.get(file) ?? []) visit(target);
    };
    for (const file of graph.keys()) if (file.startsWith('infra/')) visit(file);
    const powertools = [...reached].filter((file) =>
      /from '@aws-lambda-powertools\//.test(readFileSync(join(root, file), 'utf8')),
    );
    assert.deepEqual(powertools, []);
  });

  it('ships as dependencies only the packages its shipped code imports at run time', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const imported = runtimePackages(['lambda', 'cli', 'infra', 'bin']);
    const unused = Object.keys(pkg.dependencies).filter((name) => !imported.has(name));
    assert.deepEqual(unused, [], 'not imported at run time: a devDependency, or nothing');
  });
});

/**
 * The packages the modules under `dirs` import at run time: static imports and re-exports that
 * are not `import type` (erased by the compiler), and dynamic imports.
 */
function runtimePackages(dirs: readonly string[]): Set<string> {
  const specifier =
    /^\s*(?:import|export)\s+(?!type\s)(?:[^;]*?from\s+)?'([^.'][^']*)'|\bimport\(\s*'([^.'][^']*)'\s*\)/gms;
  const packages = new Set<string>();
  for (const file of dirs.flatMap(sources)) {
    for (const match of readFileSync(join(root, file), 'utf8').matchAll(specifier)) {
      const spec = match[1] ?? match[2] ?? '';
      if (spec.startsWith('node:')) continue;
      const parts = spec.split('/');
      packages.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? spec));
    }
  }
  return packages;
}
