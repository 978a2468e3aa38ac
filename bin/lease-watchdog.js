#!/usr/bin/env node
// The `lease-watchdog` command: the compiled CLI (`npm run build` compiles it; `npm pack` does too).
import { unsupportedNode } from './node-version.js';

const tooOld = unsupportedNode(process.versions.node);
if (tooOld !== undefined) {
  process.stderr.write(`${tooOld}\n`);
  process.exit(2);
}
let main;
try {
  main = await import('../dist/cli/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist'))
    throw error;
  process.stderr.write('lease-watchdog: not built yet: run `npm run build` in the repository\n');
  process.exit(2);
}
await main.cli();
