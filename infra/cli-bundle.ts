/**
 * Writes the command the package ships (`dist/cli-bundle/`): cli/main.ts and what it imports,
 * node_modules included, bundled by esbuild into one ESM entry (`main.js`), plus `version.js` for
 * the bin's `--version`. `npm run build` runs it after the compiler, so `npm test`, `npm pack` and
 * `bench:cli-start` all run the shipped form. One file to load instead of ~170 modules is the
 * command's start (docs/BENCHMARKS.md); `splitting` keeps every `await import()` a chunk of its
 * own, so `check` still loads neither the AWS SDK nor client-node's KubeConfig.
 *
 * Beside it, outside what the package ships, `dist/cli-bundle.meta.json`: esbuild's metafile, which
 * says which sources each chunk holds (test/cli-start-modules.test.ts reads it).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI_BUNDLE = fileURLToPath(new URL('../dist/cli-bundle', import.meta.url));
const CLI_BUNDLE_META = `${CLI_BUNDLE}.meta.json`;

/** A CommonJS module whose exports are getters: `load` runs at the first use of any of them. */
function standIn(names: readonly string[], load: string): string {
  return [
    'let loaded;',
    `for (const name of ${JSON.stringify(names)})`,
    `  Object.defineProperty(exports, name, { get: () => (loaded ??= ${load})[name], enumerable: true });`,
  ].join('\n');
}

/**
 * A CommonJS module that reads every export from `load`'s module at its use, and has no own
 * exports. esbuild imports a CommonJS module into an ESM one through `__toESM`, which makes an
 * object inheriting from the module's prototype and copies each own export onto it: ~30 such
 * imports of Node's modules copying ~100 getters each were ~5 ms of every command's start. With
 * nothing to copy, each import is one object whose prototype (a Proxy) reads the builtin's
 * export when it is used, as the getters did. `__esModule` is answered without loading the
 * module (`__toESM` asks it of importers not in Node's mode).
 */
function lazyStandIn(load: string): string {
  return [
    'let loaded;',
    `const builtin = () => (loaded ??= ${load});`,
    'const exported = new Proxy(Object.create(null), {',
    '  get: (_, name) => builtin()[name],',
    '  has: (_, name) => name in builtin(),',
    '});',
    'module.exports = new Proxy({}, {',
    "  get: (_, name) => (name === '__esModule' ? undefined : builtin()[name]),",
    '  has: (_, name) => name in builtin(),',
    '  ownKeys: () => [],',
    '  getPrototypeOf: () => exported,',
    '});',
  ].join('\n');
}

/**
 * Node's own modules taken with `process.getBuiltinModule`, not `import`: an ESM import of a
 * builtin makes Node read every export of it once, and their getters load and compile modules
 * nothing here uses (`node:fs`: fs/promises, readline and the REPL's history; `node:util`:
 * worker_threads; `node:crypto`: webcrypto). Each loads when the code first uses it (`check`
 * never loads node:fs/promises), and only the exports the code uses are read.
 */
const builtinsOnUse: Plugin = {
  name: 'builtins-on-use',
  setup(bundle) {
    // A dynamic import's entry re-exports the builtin (`export *`), which needs its exports as
    // own properties; every other import takes the stand-in with none (lazyStandIn).
    bundle.onResolve({ filter: /^node:/ }, ({ path, namespace }) => ({
      path,
      namespace: namespace === 'lazy-entry' ? 'builtin' : 'builtin-proxy',
    }));
    bundle.onLoad({ filter: /.*/, namespace: 'builtin' }, ({ path }) => ({
      contents: standIn(Object.keys(process.getBuiltinModule(path) as object), loadOf(path)),
      loader: 'js',
    }));
    bundle.onLoad({ filter: /.*/, namespace: 'builtin-proxy' }, ({ path }) => ({
      contents: lazyStandIn(loadOf(path)),
      loader: 'js',
    }));
  },
};
const loadOf = (path: string): string => `process.getBuiltinModule(${JSON.stringify(path)})`;

/**
 * Packages the command runs only when first used, each bundled into a file of its own beside the
 * chunks (`<name>.cjs`) and required from there: js-yaml reads a kubeconfig only when it is not
 * the YAML kubectl writes (lambda/adapters/kube/config/kubeconfig-yaml.ts reads that one). Inside the
 * command's chunk it was 100 kB of its 250 that every command loaded, and with the code compiled
 * whole at load (bin/lease-watchdog.js) compiled too.
 */
const ON_USE = ['js-yaml'];
const onUseFile = (name: string): string => `./${name.replace(/[^a-z0-9-]/gi, '_')}.cjs`;
const packagesOnUse: Plugin = {
  name: 'packages-on-use',
  setup(bundle) {
    const filter = new RegExp(`^(?:${ON_USE.join('|')})$`);
    bundle.onResolve({ filter }, ({ path }) => ({ path, namespace: 'on-use' }));
    bundle.onResolve({ filter: /\.cjs$/, namespace: 'on-use' }, ({ path }) => ({
      path,
      external: true,
    }));
    bundle.onLoad({ filter: /.*/, namespace: 'on-use' }, ({ path }) => ({
      contents: lazyStandIn(`require(${JSON.stringify(onUseFile(path))})`),
      loader: 'js',
      resolveDir: ROOT,
    }));
  },
};

/**
 * Every `await import()` of the command becomes an entry that imports the command's entry too
 * (cli/main.ts). esbuild makes a chunk of each set of entries that reach a module: with the
 * command's modules reached by every entry alike, they make one chunk, not one per set of
 * dynamic imports that share them (21 files for a check). Each file costs Node's ESM resolution
 * and linking at start; a dynamic import's own modules (the AWS SDK, zod, client-node's
 * KubeConfig) still make chunks of their own, loaded only by the commands that use them. The
 * command is evaluated already when a dynamic import runs, so importing it there runs nothing.
 */
const MAIN = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
/**
 * `export *` passes no `default`: the project's own dynamic imports take what they import by
 * name, and so does an entry of theirs; a package's gets the `default` too, as `import()` would
 * give it (the AWS SDK's `(await import('node:http')).default`, without which it finds no Agent:
 * "Right-hand side of 'instanceof' is not an object"). Taken by a computed key: a module without
 * one gives undefined, not a build error.
 */
function lazyEntry(path: string, withDefault: boolean): string {
  const from = JSON.stringify(path);
  const lines = [`import ${JSON.stringify(MAIN)};`, `export * from ${from};`];
  if (withDefault) {
    lines.push(
      `import * as all from ${from};`,
      "const key = 'default';",
      'export default all[key];',
    );
  }
  return `${lines.join('\n')}\n`;
}
const lazyEntries: Plugin = {
  name: 'lazy-entries',
  setup(bundle) {
    bundle.onResolve({ filter: /.*/ }, async ({ path, kind, resolveDir, importer, pluginData }) => {
      if (kind !== 'dynamic-import' || pluginData === LAZY) return undefined;
      const resolved = await bundle.resolve(path, { kind, resolveDir, importer, pluginData: LAZY });
      if (resolved.errors.length > 0 || resolved.external) return resolved;
      const withDefault = importer.includes('/node_modules/') ? WITH_DEFAULT : undefined;
      return { path: resolved.path, namespace: 'lazy-entry', pluginData: withDefault };
    });
    bundle.onLoad({ filter: /.*/, namespace: 'lazy-entry' }, ({ path, pluginData }) => ({
      contents: lazyEntry(path, pluginData === WITH_DEFAULT),
      loader: 'js',
      resolveDir: ROOT,
    }));
  },
};
const WITH_DEFAULT = Symbol('lazy entry with its default export');
const LAZY = Symbol('lazy entry resolved');

/** What the command's chunks and the packages on use (their own files) are built with alike. */
const COMMON = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  target: 'node22.19',
  // Fewer bytes for V8 to scan when it compiles a function on its first call (most of a check's
  // are: Node's compile cache holds what compiled at load): ~2 ms of a check's start, A/B. Names
  // are kept, so a stack trace still names our functions.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
} as const;

rmSync(CLI_BUNDLE, { recursive: true, force: true });
const { metafile } = await build({
  ...COMMON,
  entryPoints: { main: 'cli/main.ts', version: 'cli/version.ts' },
  outdir: CLI_BUNDLE,
  splitting: true,
  format: 'esm',
  mainFields: ['module', 'main'],
  // Bundled CommonJS dependencies still call `require` for Node's modules.
  banner: {
    js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);",
  },
  plugins: [lazyEntries, builtinsOnUse, packagesOnUse],
  metafile: true,
});
for (const name of ON_USE) {
  await build({
    ...COMMON,
    entryPoints: [name],
    outfile: `${CLI_BUNDLE}/${onUseFile(name)}`,
    format: 'cjs',
  });
}
writeFileSync(CLI_BUNDLE_META, JSON.stringify(metafile));
process.stderr.write(
  `lease-watchdog: command bundled into ${CLI_BUNDLE}: ${Object.keys(metafile.outputs).length} files\n`,
);
