/**
 * What `node:http` is in the Lambda bundle (infra/watchdog-function.ts aliases `http` and
 * `node:http` here): Node's own module, loaded with `require` rather than `import`. An ESM import
 * of a builtin makes Node read every export of it once, and `node:http`'s exports include getters
 * (`WebSocket`, `MessageEvent`, …) that load and compile Node's internal undici: ~80 ms of CPU at
 * every cold start for nothing the watchdog uses (docs/BENCHMARKS.md, cold start). `require`
 * leaves those getters alone.
 */
import { createRequire } from 'node:module';

type Http = typeof import('node:http');

const http = createRequire(import.meta.url)('node:http') as Http;

export default http;
export const {
  Agent,
  ClientRequest,
  IncomingMessage,
  METHODS,
  OutgoingMessage,
  STATUS_CODES,
  Server,
  ServerResponse,
  createServer,
  get,
  globalAgent,
  maxHeaderSize,
  request,
  validateHeaderName,
  validateHeaderValue,
} = http;
