#!/usr/bin/env node
// The `lease-watchdog` command: the bundled CLI (`npm run build` bundles it into dist/cli-bundle/,
// infra/cli-bundle.ts; `npm pack` does too).
import { unsupportedNode } from './node-version.js';

const tooOld = unsupportedNode(process.versions.node);
if (tooOld !== undefined) {
  process.stderr.write(`${tooOld}\n`);
  process.exit(2);
}
// V8's code cache of the bundle, kept on disk (os.tmpdir()/node-compile-cache, or NODE_COMPILE_CACHE;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off): later runs skip compiling it. Never throws
// (https://nodejs.org/api/module.html#moduleenablecompilecacheoptions). Taken with
// process.getBuiltinModule, not `import`: an ESM import of a builtin reads all of its exports.
const nodeModule = process.getBuiltinModule('node:module');
const { status } = nodeModule.enableCompileCache();
const { ENABLED, ALREADY_ENABLED } = nodeModule.constants.compileCacheStatus;
const cached = status === ENABLED || status === ALREADY_ENABLED;
// `--version` (or `version`) alone: answered without loading the command (kubectl's `version --client` is as quick).
const versionOnly =
  process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === 'version');
// With the cache on, the command's code is compiled whole when it loads (V8's --no-lazy, for that
// import only), so the cache holds the functions a command runs, not only those that run at
// load: ~2 ms of a check's start, A/B (docs/BENCHMARKS.md, "The command's start beside kubectl").
const eager = cached && !versionOnly;
const v8 = eager ? process.getBuiltinModule('node:v8') : undefined;
v8?.setFlagsFromString('--no-lazy');
let main;
let version;
try {
  if (versionOnly) version = await import('../dist/cli-bundle/version.js');
  else main = await import('../dist/cli-bundle/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist'))
    throw error;
  process.stderr.write('lease-watchdog: not built yet: run `npm run build` in the repository\n');
  process.exit(2);
}
v8?.setFlagsFromString('--lazy');
if (version) process.stdout.write(`${version.version()}\n`);
else await main.cli();
