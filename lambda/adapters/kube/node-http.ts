/**
 * Node's `node:http`, loaded with `require` rather than `import`. An ESM import of a builtin makes
 * Node read every export of it once, and `node:http`'s exports include getters (`WebSocket`,
 * `MessageEvent`, …) that load and compile Node's internal undici: ~130 ms of CPU at the command's
 * start for nothing the reader uses (docs/BENCHMARKS.md). The Lambda bundle does the same for every
 * importer of `node:http` (infra/node-http-required.ts); the command runs unbundled.
 */
import { createRequire } from 'node:module';

export const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');
