/**
 * What one check costs the API server, per check, on the default settings: requests, bytes on the
 * wire (gzipped as kube-apiserver sends them) and decoded, and objects, for a check that lists
 * whole Nodes (a cold start, or once per `nodeRefreshSeconds`) and for a steady-state check in
 * between (leases + the Table of Nodes), against the lease list alone. Counted from the simulated
 * API server's own log of what it sent (sim/responses.ts). Also the Table of Nodes with
 * `includeObject=Metadata`, for comparison. Writes its section of docs/BENCHMARKS.md.
 *
 *   npm run bench:api-cost            (1,000 / 5,000 / 20,000 / 100,000 nodes)
 *   npm run bench:api-cost -- 1000 5000
 */
import { KubeConfig } from '@kubernetes/client-node';
import { Agent, fetch } from 'undici';
import { KubeClusterReader, NodeCache } from '../lambda/adapters/kube/kube-reader.js';
import { SimCluster } from '../sim/cluster.js';
import { type SentAnswer, type SimServer, startSimServer } from '../sim/server.js';
import { benchmarksSection } from './benchmarks-section.js';
import { median } from './statistics.js';

const sizes = process.argv.slice(2).map(Number).filter(Number.isFinite);
const SIZES = sizes.length > 0 ? sizes : [1_000, 5_000, 20_000, 100_000];
const RUNS = 3;
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
const writeSection = await benchmarksSection('## API server cost per check');

interface Cost {
  requests: number;
  wire: number;
  decoded: number;
  objects: number;
}

function costOf(sent: readonly SentAnswer[], objects: number): Cost {
  return {
    requests: sent.length,
    wire: sent.reduce((sum, a) => sum + a.bytes, 0),
    decoded: sent.reduce((sum, a) => sum + a.decodedBytes, 0),
    objects,
  };
}

function medianCost(costs: Cost[]): Cost {
  return {
    requests: median(costs.map((c) => c.requests)),
    wire: median(costs.map((c) => c.wire)),
    decoded: median(costs.map((c) => c.decoded)),
    objects: median(costs.map((c) => c.objects)),
  };
}

/** Lists the Table of Nodes with `includeObject` over every page; the sim logs the bytes. */
async function tableWith(server: SimServer, includeObject: string): Promise<number> {
  const dispatcher = new Agent({ connect: { ca: server.caPem } });
  let rows = 0;
  let next: string | undefined;
  try {
    do {
      const query = new URLSearchParams({ includeObject, limit: '2000' });
      if (next) query.set('continue', next);
      const response = await fetch(`${server.url}/api/v1/nodes?${query}`, {
        headers: {
          authorization: `Bearer ${server.token}`,
          accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
          'accept-encoding': 'gzip',
        },
        dispatcher,
      });
      const body = (await response.json()) as { rows: unknown[]; metadata: { continue?: string } };
      rows += body.rows.length;
      next = body.metadata.continue || undefined;
    } while (next);
  } finally {
    await dispatcher.close();
  }
  return rows;
}

interface Result {
  nodes: number;
  relist: Cost;
  steady: Cost;
  leases: Cost;
  tableNone: Cost;
  tableMetadata: Cost;
}

/** A reader of the sim as the watchdog builds one, its node cache on a clock the bench moves. */
function benchReader(server: SimServer, clock: { now: number }): KubeClusterReader {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(server.kubeconfig());
  return new KubeClusterReader({
    kubeConfig,
    cluster: 'bench',
    namespace: 'kube-node-lease',
    nodeCache: new NodeCache(900_000, () => clock.now),
    // The sim shares this process and a noisy machine: bytes are measured here, not time.
    requestTimeoutMs: 300_000,
    bounds: { budgetMs: 1_800_000, maxPageBytes: 256 * 1024 * 1024 },
  });
}

/** RUNS steady checks, each after a relist but at 100,000 nodes, costed from what the sim sent. */
async function readChecks(
  server: SimServer,
  nodes: number,
): Promise<{ relist: Cost; steady: Cost; leases: Cost }> {
  const clock = { now: 0 };
  const reader = benchReader(server, clock);
  const relists: Cost[] = [];
  const steadies: Cost[] = [];
  const leaseLists: Cost[] = [];
  for (let run = 0; run < RUNS; run++) {
    // Past the refresh period: this check lists whole Nodes (once only at 100,000: ~1 GB of JSON).
    if (run === 0 || nodes < 50_000) {
      clock.now += 1_000_000;
      server.resetStats();
      const full = await reader.read();
      relists.push(costOf(server.sent, full.leases.length + (full.nodes?.length ?? 0)));
    }
    clock.now += 60_000;
    server.resetStats();
    const steady = await reader.read();
    const sent = [...server.sent];
    const rows = sent.filter((a) => a.url.startsWith('/api/v1/nodes?')).length > 0 ? nodes : 0;
    const gets = sent.filter((a) => a.url.startsWith('/api/v1/nodes/')).length;
    steadies.push(costOf(sent, steady.leases.length + rows + gets));
    leaseLists.push(
      costOf(
        sent.filter((a) => a.url.startsWith(LEASES)),
        steady.leases.length,
      ),
    );
  }
  return {
    relist: medianCost(relists),
    steady: medianCost(steadies),
    leases: medianCost(leaseLists),
  };
}

async function measure(nodes: number): Promise<Result> {
  const cluster = new SimCluster({ seed: 5 });
  cluster.addNodes(nodes, { zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] });
  const server = await startSimServer({ cluster });
  try {
    const { relist, steady, leases } = await readChecks(server, nodes);
    server.resetStats();
    const noneRows = await tableWith(server, 'None');
    const tableNone = costOf(server.sent, noneRows);
    server.resetStats();
    const metadataRows = await tableWith(server, 'Metadata');
    const tableMetadata = costOf(server.sent, metadataRows);
    return { nodes, relist, steady, leases, tableNone, tableMetadata };
  } finally {
    await server.close();
  }
}

const results: Result[] = [];
for (const nodes of SIZES) {
  const result = await measure(nodes);
  results.push(result);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

const n = (value: number) => Math.round(value).toLocaleString('en-US');
const mb = (bytes: number) =>
  bytes >= 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1)} MB`
    : `${(bytes / 1024).toFixed(0)} KB`;
const x = (ratio: number) => `${ratio.toFixed(2)}×`;
// One hour on the 1-minute schedule: 4 checks that list whole Nodes (every 900 s), 56 steady ones.
const hourly = (r: Result, key: 'wire' | 'decoded') =>
  (4 * r.relist[key] + 56 * r.steady[key]) / 60 / r.leases[key];

const rows = results.map((r) =>
  [
    n(r.nodes),
    `${n(r.leases.requests)} / ${mb(r.leases.wire)} / ${mb(r.leases.decoded)}`,
    `${n(r.steady.requests)} / ${mb(r.steady.wire)} / ${mb(r.steady.decoded)} / ${n(r.steady.objects)}`,
    `**${x(r.steady.wire / r.leases.wire)}** / ${x(r.steady.decoded / r.leases.decoded)}`,
    `${n(r.relist.requests)} / ${mb(r.relist.wire)} / ${mb(r.relist.decoded)} / ${n(r.relist.objects)}`,
    `${x(r.relist.wire / r.leases.wire)} / ${x(r.relist.decoded / r.leases.decoded)}`,
    `${x(hourly(r, 'wire'))} / ${x(hourly(r, 'decoded'))}`,
    `${mb(r.tableNone.wire)} / ${mb(r.tableNone.decoded)}`,
    `${mb(r.tableMetadata.wire)} / ${mb(r.tableMetadata.decoded)}`,
  ].join(' | '),
);

await writeSection([
  `## API server cost per check (${new Date().toISOString().slice(0, 10)})`,
  '',
  `\`npm run bench:api-cost\` (bench/api-cost.ts): what one check reads from the API server on the default settings (\`nodeRefreshSeconds\` 900), from the simulated API server's log: requests / bytes on the wire (gzip over 128 KiB, as kube-apiserver does) / bytes decoded / objects. A steady check lists the leases and the Table of Nodes (\`includeObject=None\`); a relisting check (after a cold start, then every 900 s) lists leases and whole Nodes. Medians of ${RUNS} runs. The last two columns are the Table of Nodes alone, without and with \`includeObject=Metadata\` (real Metadata rows are larger still: the sim's Nodes carry no \`managedFields\`).`,
  '',
  '| nodes | lease list alone: requests / wire / decoded | steady check: requests / wire / decoded / objects | steady ÷ leases: wire / decoded (target ≤ 1.5×) | relisting check: requests / wire / decoded / objects | relist ÷ leases | hour average ÷ leases (4 relists + 56 steady) | Table, None: wire / decoded | Table, Metadata: wire / decoded |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map((row) => `| ${row} |`),
  '',
]);
