/**
 * A/B of the evidence's EC2 call against the libraries already in the bundle (docs/BENCHMARKS.md,
 * "The EC2 evidence call: our code or the SDK's"):
 *
 * - XML: a hand-written reader (A, a file given on the command line: the project's own, as it was
 *   before the swap, `git show 542d225:lambda/adapters/evidence/xml.ts`) against
 *   `@aws-sdk/xml-builder`'s `parseXML` (B), on EC2 answers of 50 instances; medians of
 *   alternating rounds, and the minified bytes each adds to a bundle of its own.
 * - The transport: a fresh process that imports its client and POSTs once to a local server,
 *   global `fetch` (A: Node's internal undici) against `@smithy/node-http-handler` (B: node:http,
 *   already in the bundle for the SDK clients); medians of alternating processes.
 *
 *   node --import tsx bench/evidence-ab.ts <old xml.ts> [rounds]
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseXML } from '@aws-sdk/xml-builder';
import { build } from 'esbuild';
import { median } from './statistics.js';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const oldReader = process.argv[2];
const ROUNDS = Number(process.argv[3] ?? 15);
if (!oldReader) throw new Error('usage: bench/evidence-ab.ts <old xml.ts> [rounds]');

const NS = 'http://ec2.amazonaws.com/doc/2016-11-15/';
const ids = Array.from({ length: 50 }, (_, i) => `i-0${String(i).padStart(16, '0')}`);
const status = `<?xml version="1.0" encoding="UTF-8"?>\n<DescribeInstanceStatusResponse xmlns="${NS}"><requestId>r</requestId><instanceStatusSet>${ids
  .map(
    (id) =>
      `<item><instanceId>${id}</instanceId><availabilityZone>eu-west-1a</availabilityZone><eventsSet><item><code>system-reboot</code><description>scheduled reboot &amp; check</description><notBefore>2026-12-08T02:00:00.000Z</notBefore></item></eventsSet><instanceState><code>16</code><name>running</name></instanceState><systemStatus><status>ok</status><details><item><name>reachability</name><status>passed</status></item></details></systemStatus><instanceStatus><status>ok</status><details><item><name>reachability</name><status>passed</status></item></details></instanceStatus></item>`,
  )
  .join('')}</instanceStatusSet></DescribeInstanceStatusResponse>`;
const instances = `<?xml version="1.0" encoding="UTF-8"?>\n<DescribeInstancesResponse xmlns="${NS}"><requestId>r</requestId><reservationSet><item><reservationId>r-1</reservationId><instancesSet>${ids
  .map(
    (id) =>
      `<item><instanceId>${id}</instanceId><instanceState><code>80</code><name>stopped</name></instanceState><reason></reason><stateReason><code>Server.SpotInstanceTermination</code><message>Server.SpotInstanceTermination: Spot instance termination</message></stateReason><instanceLifecycle>spot</instanceLifecycle></item>`,
  )
  .join('')}</instancesSet></item></reservationSet></DescribeInstancesResponse>`;

const { parseXml } = (await import(resolve(oldReader))) as {
  parseXml: (text: string) => unknown;
};

function timeParses(parse: (text: string) => unknown): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < 200; i++) {
    parse(status);
    parse(instances);
  }
  return Number(process.hrtime.bigint() - start) / 1e3 / 200;
}

const xml = { a: [] as number[], b: [] as number[] };
for (let i = 0; i < 3; i++) {
  timeParses(parseXml);
  timeParses(parseXML);
}
for (let i = 0; i < ROUNDS; i++) {
  xml.a.push(timeParses(parseXml));
  xml.b.push(timeParses(parseXML));
}

async function bundleBytes(contents: string): Promise<number> {
  const out = await build({
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    write: false,
  });
  return out.outputFiles[0]?.contents.byteLength ?? 0;
}
const bytesA = await bundleBytes(`export { parseXml } from '${resolve(oldReader)}';`);
const bytesB = await bundleBytes(`export { parseXML } from '@aws-sdk/xml-builder';`);

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.end('<R><a>1</a></R>'));
});
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
const address = server.address();
const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
const callers = {
  a: `const t = performance.now(); const r = await fetch('${url}', { method: 'POST', body: 'Action=x' }); await r.text(); console.log(performance.now() - t);`,
  b: `const t = performance.now(); const { NodeHttpHandler } = await import('@smithy/node-http-handler'); const { HttpRequest } = await import('@smithy/core/protocols'); const u = new URL('${url}'); const { response } = await new NodeHttpHandler().handle(new HttpRequest({ method: 'POST', protocol: u.protocol, hostname: u.hostname, port: Number(u.port), path: '/', headers: { host: u.host }, body: 'Action=x' })); for await (const _ of response.body) {} console.log(performance.now() - t);`,
};
const firstCall = { a: [] as number[], b: [] as number[] };
for (let i = 0; i < ROUNDS; i++) {
  for (const side of ['a', 'b'] as const) {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', callers[side]], {
      cwd: ROOT,
    });
    firstCall[side].push(Number(stdout.trim()));
  }
}
server.close();

const f = (n: number) => n.toFixed(1);
console.log(`${new Date().toISOString()}, ${ROUNDS} rounds`);
console.log(
  `XML, 2 answers of 50 instances (${status.length + instances.length} chars): ours ${f(median(xml.a))} µs, parseXML ${f(median(xml.b))} µs (B/A ${(median(xml.b) / median(xml.a)).toFixed(2)}); minified alone: ours ${bytesA} B, parseXML ${bytesB} B`,
);
console.log(
  `first POST of a fresh process (import + call): fetch ${f(median(firstCall.a))} ms, NodeHttpHandler ${f(median(firstCall.b))} ms (B/A ${(median(firstCall.b) / median(firstCall.a)).toFixed(2)})`,
);
