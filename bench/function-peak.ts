/**
 * `npm run bench:function`: the deployed function's own peak memory, invocation by invocation, on
 * one large simulated cluster. Where `npm run bench` times a read and its evaluation alone, this
 * runs the whole of what Lambda runs: the stack is synthesised (`buildStack`, the default memory
 * and the NODE_OPTIONS it derives), and the bundle it stages is imported by a process of its own
 * under that environment (testkit/bundle-runtime.ts: plain Node, as Lambda runs it), then invoked
 * once per scheduled minute on a fake clock. Each invocation reads the cluster over HTTPS, loads
 * and saves its state in dynalite, publishes to the local SNS server and collects its garbage,
 * and reports its own maximum RSS (the figure Lambda reports as "Max Memory Used"), and the
 * process's memory before and after it (`process.memoryUsage()`).
 *
 * The minutes cover a cold start (a relist, and the first save of the whole observation
 * snapshot), the steady checks after it, and the node cache's relist every `nodeRefreshSeconds`
 * (900 s); at minute 5 a node's kubelet stops, so a FIRING is published and its observation
 * saved. Not a test: nothing is asserted, the figures are printed.
 *
 *   npm run bench:function                   (100,000 nodes, 17 minutes)
 *   BENCH_NODES=20000 BENCH_MINUTES=3 npm run bench:function
 *   BENCH_FUNCTION_ENV='{"MALLOC_ARENA_MAX":"2"}' npm run bench:function   (more variables)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAppConfig } from '../lambda/settings/index.js';
import type { ClusterReport } from '../lambda/use-cases/invocation.js';
import { startBundleProcess } from '../testkit/bundle-process.js';
import type { Closer } from '../testkit/harness-options.js';
import { startOutsideWorld } from '../testkit/harness-parts.js';
import { localAwsEnv } from '../testkit/local-aws-env.js';
import { synthesizeFunction } from '../testkit/synthesized-function.js';
import { FakeClock, SCHEDULE_MS, TOPIC_ARN } from '../testkit/watchdog-harness.js';
import { median } from './statistics.js';

const NODES = Number(process.env.BENCH_NODES ?? 100_000);
const MINUTES = Number(process.env.BENCH_MINUTES ?? 17);
const CLUSTER = 'bench';
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

const work = mkdtempSync(join(tmpdir(), 'lease-watchdog-function-peak-'));
const closers: Closer[] = [];
try {
  const clock = new FakeClock();
  console.error(`bench:function: ${NODES} nodes: starting the simulated cluster and AWS stand-ins`);
  const world = await startOutsideWorld(
    clock,
    { clusters: { [CLUSTER]: { nodes: NODES } } },
    closers,
  );
  const target = world.targets.get(CLUSTER);
  if (target === undefined) throw new Error('the simulated cluster did not start');

  // The stack as a user synthesises it for this cluster (token mode, its CA), told the cluster's
  // size: the function's memory and heap flags are whatever the stack then chooses.
  const config = parseAppConfig({
    clusters: [
      {
        name: CLUSTER,
        auth: {
          mode: 'token',
          server: target.server.url,
          caData: Buffer.from(target.server.caPem).toString('base64'),
          tokenSecretId: target.tokenSecretId,
        },
      },
    ],
    emails: ['oncall@example.com'],
    largestClusterNodes: NODES,
  });
  const synthesized = synthesizeFunction(join(work, 'cdk.out'), config);
  const { asset, memoryMb } = synthesized;
  // The variables that are text; those the template fills from resources (the looks' queue) are
  // left out: the function then runs its scheduled checks without queueing looks.
  const variables = Object.fromEntries(
    Object.entries(synthesized.variables).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );

  const runtime = await startBundleProcess<{ clusters: ClusterReport[] }>(
    join(asset, 'index.mjs'),
    {
      cwd: work,
      env: {
        PATH: process.env.PATH ?? '',
        ...variables,
        TOPIC_ARN,
        STATE_TABLE: world.tableName,
        ...localAwsEnv(work, {
          sns: world.sns.url,
          dynamodb: world.dynamo.endpoint,
          secretsManager: world.secrets.url,
        }),
        AWS_ENDPOINT_URL_EC2: world.ec2Endpoint,
        LW_TEST_NOW: String(clock.now()),
        // More variables for the function, to try one (e.g. '{"MALLOC_ARENA_MAX":"2"}').
        ...(JSON.parse(process.env.BENCH_FUNCTION_ENV ?? '{}') as Record<string, string>),
      },
      keepBytes: 2000,
    },
  );
  closers.push(async () => {
    runtime.kill();
  });

  console.error(
    `bench:function: memory ${memoryMb} MB, NODE_OPTIONS "${variables.NODE_OPTIONS ?? ''}"; ${MINUTES} scheduled invocations`,
  );
  console.log(
    'minute  status   wall     sent by the API  published  max RSS   RSS before / after, heap in use before / after, external and heap committed after (MB)',
  );
  const peaks: { minute: number; rss: number; relist: boolean }[] = [];
  for (let minute = 0; minute < MINUTES; minute++) {
    if (minute === 5) target.sim.stopKubelet(target.nodes[0] as string);
    target.server.resetStats();
    const started = performance.now();
    const got = await runtime.invoke({ cluster: CLUSTER }, clock.now());
    const wall = (performance.now() - started) / 1000;
    if ('error' in got) throw new Error(`minute ${minute}: the invocation failed: ${got.error}`);
    const [report] = got.report.clusters;
    const sent = target.server.stats.bytesSent;
    // A relist lists whole Nodes: a list of them that is not the Table.
    const relist = target.server.sent.some(
      (a) => /^\/api\/v1\/nodes(\?|$)/.test(a.url) && !a.accept?.includes('as=Table'),
    );
    const rss = got.maxRssBytes ?? Number.NaN;
    peaks.push({ minute, rss, relist });
    console.log(
      `${String(minute).padStart(6)}  ${(report?.lastStatus ?? '?').padEnd(7)}  ${wall.toFixed(1).padStart(5)} s  ${mb(sent).padStart(9)} MB${relist ? ' (relist)' : '         '}  ${String(report?.published ?? 0).padStart(9)}  ${mb(rss)} MB  ${mb(got.memory.before.rss)} / ${mb(got.memory.after.rss)}, ${mb(got.memory.before.heapUsed)} / ${mb(got.memory.after.heapUsed)}, ${mb(got.memory.after.external)}, ${mb(got.memory.after.heapTotal)}`,
    );
    clock.advance(SCHEDULE_MS);
  }
  const steady = peaks.filter((p) => !p.relist).map((p) => p.rss);
  const relists = peaks.filter((p) => p.relist).map((p) => p.rss);
  console.log(
    `${NODES} nodes, ${memoryMb} MB function: steady invocations median ${mb(median(steady))} MB, max ${mb(Math.max(...steady))} MB (${steady.length}); relisting ${relists.map(mb).join(' / ')} MB`,
  );
} finally {
  for (const close of closers.reverse()) await close();
  rmSync(work, { recursive: true, force: true });
}
