/**
 * Node's `node:http`, loaded with `require` rather than `import`, and only when first used. An ESM
 * import of a builtin makes Node read every export of it once, and `node:http`'s exports include
 * getters (`WebSocket`, `MessageEvent`, …) that load and compile Node's internal undici: ~130 ms
 * of CPU at the command's start for nothing the reader uses (docs/BENCHMARKS.md). On first use:
 * a command that reads no cluster (`silence list`, `config validate`) loads none of it (~10 ms
 * of CPU). The Lambda bundle does the same for every importer of `node:http`
 * (infra/node-http-required.ts).
 */
import { createRequire } from 'node:module';

let loaded: typeof import('node:http') | undefined;

export function nodeHttp(): typeof import('node:http') {
  loaded ??= createRequire(import.meta.url)('node:http') as typeof import('node:http');
  return loaded;
}
