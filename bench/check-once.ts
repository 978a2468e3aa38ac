/**
 * One benchmark subject, run in a fresh process (bundled by bench/run.ts) so that its peak RSS is
 * the watchdog's own: `runs` timed checks of a cluster — read (paginated, over HTTPS) and
 * evaluate — then one JSON line on stdout.
 *
 *   --kubeconfig PATH  --runs N  --mode relist|steady|leases  [--floor]
 *
 * relist: every check lists Leases and whole Nodes (the default reader of this branch).
 * steady: a warm node cache (one untimed full read first), then checks that list the Leases and
 *   GET only the Nodes the leases single out: what a check costs while nothing changes.
 * leases: the lease list alone.
 * --floor: instead of timing checks, capture the answer bodies of one read with the Nodes in
 *   JSON (a timed check reads them in protobuf) and time JSON.parse of those pages alone, `runs`
 *   times: the floor any JSON reader of the cluster pays.
 */

import { parseArgs } from 'node:util';
import { loadKubeConfig } from '../lambda/adapters/kube/config/kubeconfig-files.js';
import { tapBodies } from '../lambda/adapters/kube/decode/answer-body.js';
import { KubeClusterReader, NodeCache } from '../lambda/adapters/kube/kube-reader.js';
import { evaluate, labelsUsedBy } from '../lambda/core/evaluate.js';
import type { Observations } from '../lambda/core/model.js';
import { verdictCount } from '../lambda/core/verdict-list.js';
import { collectIfGrown, heapInUse, releasingRead } from '../lambda/handler/heap-release.js';
import { DEFAULT_POLICY } from '../lambda/settings/index.js';
import { peakRssBytes, resetPeakRss } from '../testkit/peak-rss.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    runs: { type: 'string', default: '5' },
    mode: { type: 'string', default: 'relist' },
    floor: { type: 'boolean', default: false },
  },
});
const mode = values.mode;
if (mode !== 'relist' && mode !== 'steady' && mode !== 'leases') {
  throw new Error(`--mode must be relist, steady or leases (got ${mode})`);
}
const runs = Number(values.runs);
const reader = new KubeClusterReader({
  kubeConfig: loadKubeConfig({ path: values.kubeconfig, env: process.env }),
  cluster: 'bench',
  namespace: 'kube-node-lease',
  readNodes: mode !== 'leases',
  requestTimeoutMs: 60_000,
  // The machine may be shared and loaded: the bench measures the cost, not the Lambda's budget.
  bounds: { budgetMs: 900_000 },
  labelKeys: labelsUsedBy(DEFAULT_POLICY),
  // A refresh period longer than the bench: after the first read, every read is steady.
  nodeCache: mode === 'steady' ? new NodeCache(3_600_000) : undefined,
  // The floor is JSON.parse of the pages a JSON reader gets: the Nodes as JSON, not protobuf.
  nodesAsJson: values.floor,
});

// The function's reads: a large one collected before it is judged (handler/heap-release.ts).
const releasing = releasingRead(reader);

if (values.floor) {
  // Every body the reader parses during one read, kept (decoded, untimed); then JSON.parse of
  // them alone.
  const pages: string[] = [];
  const parse = JSON.parse;
  if (mode === 'steady') await reader.read(); // warm the cache first, as the timed checks do
  tapBodies((body) => pages.push(body.toString('utf8')));
  await reader.read();
  tapBodies(undefined);
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    for (const page of pages) parse(page);
    times.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
  }
  process.stdout.write(
    `${JSON.stringify({ mode, floor: times, floorCpu: cpu, pages: pages.length })}\n`,
  );
} else {
  const times: number[] = [];
  const cpu: number[] = [];
  let requests = 0;
  let bytes = 0;
  let nodes = 0;
  let observations: Observations = new Map();
  if (mode === 'steady') {
    const heapAtStart = heapInUse();
    observations = (await check(observations)).observations;
    // What the warm-up relist left behind goes, as the handler collects it (heap-release.ts).
    await collectIfGrown(heapAtStart);
  }
  // The peak RSS of the timed checks alone: the kernel's high-water mark, reset after a steady
  // run's warm-up (Linux: /proc/self/clear_refs), else sampled. A sample every 10 ms on the event
  // loop never sees the evaluation, which runs without yielding and is where a check peaks.
  const peakReset = mode === 'steady' && resetPeakRss();
  let sampledPeak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
  }, 10);
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const heapAtStart = heapInUse();
    const done = await check(observations);
    // As the handler ends an invocation (handler/heap-release.ts), counted in the check's CPU;
    // out here, where the check's snapshot and verdicts are no longer held by its frame.
    await collectIfGrown(heapAtStart);
    times.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
    ({ observations, requests, bytes, nodes } = done);
  }
  clearInterval(sampler);
  const maxRssBytes = process.resourceUsage().maxRSS * 1024;
  // With the mark reset, the kernel's mark is the timed checks' own peak.
  const timedPeakRssBytes = peakReset ? Math.max(peakRssBytes(), sampledPeak) : undefined;
  process.stdout.write(
    `${JSON.stringify({ mode, times, cpu, requests, bytes, nodes, maxRssBytes, sampledPeakRssBytes: sampledPeak, timedPeakRssBytes })}\n`,
  );
}

/**
 * One check: a read (collected after, as the function's are) and its evaluation, of which only
 * what the next check needs (the observations, as the state carries them) and the counts are
 * returned. In a function of its own so that the snapshot and the verdicts die with it, as they do
 * when an invocation returns: held in the top-level frame (an awaited value stays in its
 * register), the last check's snapshot and verdicts (~40-55 MB at 100,000 nodes) were live through
 * the next one and counted in its peak.
 */
async function check(
  observations: Observations,
): Promise<{ observations: Observations; requests: number; bytes: number; nodes: number }> {
  const snapshot = await releasing.read();
  const evaluation = evaluate(snapshot, observations, DEFAULT_POLICY, { now: Date.now() });
  return {
    observations: evaluation.observations,
    requests: snapshot.stats?.requests ?? 0,
    bytes: snapshot.stats?.bytes ?? 0,
    // Counted as the function counts them: the healthy verdicts are not built into one array.
    nodes: verdictCount(evaluation),
  };
}
