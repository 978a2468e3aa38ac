/**
 * One benchmark subject, run in a fresh process (bundled by bench/run.ts) so that its peak RSS is
 * the watchdog's own: `runs` timed checks of a cluster — read (paginated, over HTTPS) and
 * evaluate — then one JSON line on stdout.
 *
 *   --kubeconfig PATH  --runs N  --mode full|leases
 */

import { parseArgs } from 'node:util';
import { evaluate, labelsUsedBy } from '../lambda/core/evaluate.js';
import type { Observations } from '../lambda/core/model.js';
import { KubeClusterReader } from '../lambda/kube/kube-reader.js';
import { loadKubeConfig } from '../lambda/kube/kubeconfig.js';
import { DEFAULT_POLICY } from '../lambda/settings/index.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    runs: { type: 'string', default: '5' },
    mode: { type: 'string', default: 'full' },
  },
});
const reader = new KubeClusterReader({
  kubeConfig: loadKubeConfig({ path: values.kubeconfig, env: process.env }),
  cluster: 'bench',
  namespace: 'kube-node-lease',
  readNodes: values.mode !== 'leases',
  requestTimeoutMs: 60_000,
  labelKeys: labelsUsedBy(DEFAULT_POLICY),
});
const times: number[] = [];
const cpu: number[] = [];
let requests = 0;
let bytes = 0;
let nodes = 0;
let observations: Observations = new Map();
for (let i = 0; i < Number(values.runs); i++) {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const snapshot = await reader.read();
  const evaluation = evaluate(snapshot, observations, DEFAULT_POLICY, Date.now());
  times.push(performance.now() - started);
  const used = process.cpuUsage(cpuBefore);
  cpu.push((used.user + used.system) / 1000);
  observations = evaluation.observations;
  requests = snapshot.stats?.requests ?? 0;
  bytes = snapshot.stats?.bytes ?? 0;
  nodes = evaluation.nodes.length;
}
process.stdout.write(
  `${JSON.stringify({ mode: values.mode, times, cpu, requests, bytes, nodes, maxRssBytes: process.resourceUsage().maxRSS * 1024 })}\n`,
);
