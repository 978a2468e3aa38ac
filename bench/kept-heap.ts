/**
 * What a warm container keeps between checks at a given cluster size: the live heap after a steady
 * check (the node cache, the observations), split by what holds it. Measured by dropping each and
 * collecting, so run it with `--expose-gc`, against a simulated cluster (`npm run sim`):
 *
 *   node --expose-gc --import tsx bench/kept-heap.ts --kubeconfig PATH
 *
 * One JSON line on stdout, MB: `kept` (the reader with its node cache, and the observations), `observations`,
 * `nodeCache` (the reader and its cache), `rest` (neither: what the read left elsewhere).
 */
import { parseArgs } from 'node:util';
import { loadKubeConfig } from '../lambda/adapters/kube/config/kubeconfig-files.js';
import { KubeClusterReader, NodeCache } from '../lambda/adapters/kube/kube-reader.js';
import { evaluate, labelsUsedBy } from '../lambda/core/evaluate.js';
import type { Observations } from '../lambda/core/model.js';
import { DEFAULT_POLICY } from '../lambda/settings/index.js';

const { values } = parseArgs({ options: { kubeconfig: { type: 'string' } } });
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined)
  throw new Error('run with --expose-gc: the heap is measured after collecting');
const heap = (): number => {
  gc();
  return process.memoryUsage().heapUsed;
};

/** The reader a warm container keeps, with its node cache. */
function readerOf(cache: NodeCache): KubeClusterReader {
  return new KubeClusterReader({
    kubeConfig: loadKubeConfig({ path: values.kubeconfig, env: process.env }),
    cluster: 'bench',
    namespace: 'kube-node-lease',
    requestTimeoutMs: 60_000,
    bounds: { budgetMs: 900_000 },
    labelKeys: labelsUsedBy(DEFAULT_POLICY),
    nodeCache: cache,
  });
}

/** A warm-up read (a relist that fills the cache), then one steady check, its observations kept. */
async function check(reader: KubeClusterReader): Promise<void> {
  const warm = evaluate(await reader.read(), new Map(), DEFAULT_POLICY, { now: Date.now() });
  const steady = evaluate(await reader.read(), warm.observations, DEFAULT_POLICY, {
    now: Date.now(),
  });
  // Kept here, not returned: a value awaited at the top level stays in its frame.
  kept.observations = steady.observations;
}

const base = heap();
const kept: { reader?: KubeClusterReader; observations?: Observations } = {
  reader: readerOf(new NodeCache(3_600_000)),
};
await check(kept.reader as KubeClusterReader);
const both = heap() - base;
kept.observations = undefined;
const readerOnly = heap() - base;
kept.reader = undefined;
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
process.stdout.write(
  `${JSON.stringify({ kept: mb(both), observations: mb(both - readerOnly), nodeCache: mb(readerOnly - (heap() - base)), rest: mb(heap() - base) })}\n`,
);
