/**
 * The house's layers, checked on the import graph so that they cannot drift: the core is pure,
 * settings depend only on the core, use cases depend on ports (never on an adapter folder), and
 * nothing imports a layer above it. And no import cycles.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Project modules each module imports (relative imports only), as paths from the root. */
function importGraph(dirs: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const specifier = /^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms;
  for (const file of dirs.flatMap(sources)) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = [...text.matchAll(specifier)].map((m) =>
      normalize(join(dirname(file), (m[1] ?? '').replace(/\.js$/, '.ts'))),
    );
    graph.set(file, targets);
  }
  return graph;
}

const graph = importGraph(['lambda', 'infra']);
const layer = (file: string): string => {
  const path = relative('lambda', file);
  if (file.startsWith('infra/')) return 'infra';
  if (path.startsWith('core/')) return 'core';
  if (path.startsWith('settings/')) return 'settings';
  if (path === 'ports.ts') return 'ports';
  if (
    [
      'check-cycle.ts',
      'check-log.ts',
      'watchdog.ts',
      'confirmed-subscriptions.ts',
      'alert-evidence.ts',
    ].includes(path)
  ) {
    return 'use-case';
  }
  if (/^(kube|state|notify|aws|recheck)\//.test(path) || path === 'metrics.ts') return 'adapter';
  return 'composition';
};

/** What each layer may import. */
const ALLOWED: Record<string, readonly string[]> = {
  core: ['core'],
  settings: ['settings', 'core'],
  ports: ['core', 'settings'],
  adapter: ['adapter', 'ports', 'core', 'settings'],
  'use-case': ['use-case', 'ports', 'core', 'settings'],
  composition: ['composition', 'use-case', 'adapter', 'ports', 'core', 'settings'],
  infra: ['infra', 'settings', 'composition', 'adapter'],
};

describe('architecture', () => {
  it('has the modules it is checked on', () => {
    assert.ok(graph.size > 50, `${graph.size} modules`);
    assert.equal(layer('lambda/check-cycle.ts'), 'use-case');
  });

  it('imports only downwards: core ← settings ← ports ← adapters, use cases ← composition roots', () => {
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

  it('keeps the core free of I/O, clocks and the environment', () => {
    const impure: string[] = [];
    for (const file of graph.keys()) {
      if (layer(file) !== 'core') continue;
      const text = readFileSync(join(root, file), 'utf8');
      for (const bad of [
        /Date\.now\(\)/,
        /new Date\(\)/,
        /process\.env/,
        /from 'node:(fs|net|http|https)/,
      ]) {
        if (bad.test(text)) impure.push(`${file}: ${bad}`);
      }
    }
    assert.deepEqual(impure, []);
  });
});
